// The README is the front door: every SQL function and every CLI command it
// names must exist, and its quick start must be exactly the two commands the
// other tests run (test/demo.test.ts runs the first; CI runs the second).
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from './helpers/db.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

t.test('the quick start is exactly two commands: the demo and the tests', async (t) => {
  const section = readme.split('## Quick start')[1]?.split('\n## ')[0] ?? '';
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const commands = block.split('\n').map((l) => l.replace(/#.*$/, '').trim()).filter(Boolean);
  t.same(commands, ['npm run demo', 'npm test']);
  const scripts = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts as Record<string, string>;
  t.ok(scripts.demo && scripts.test, 'package.json defines both scripts');
});

t.test('every engine SQL function the README names exists in the migrated schema', async (t) => {
  const named = new Set([...readme.matchAll(/\bcommunity_deletion\.([a-z_]+)\s*\(/g)].map((m) => m[1]!));
  t.ok(named.size >= 10, `the README names ${named.size} SQL functions`);
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const rows = await db.sql<{ proname: string }[]>`
    select distinct p.proname::text as proname from pg_proc p
     where p.pronamespace = 'community_deletion'::regnamespace and p.proname = any(${[...named]})`;
  const existing = new Set(rows.map((r) => r.proname));
  t.same([...named].filter((f) => !existing.has(f)).sort(), [], 'no named function is missing');
  const legacy = [...readme.matchAll(/\b(?:public\.)?_?deletion_[a-z_]+\s*\(/g)].map((m) => m[0]);
  t.same(legacy, [], 'no function is named by its name before the engine had its own schema');
});

t.test('every CLI command in the README table is a command of bin/deletions', async (t) => {
  const section = readme.split('## CLI')[1]?.split('\n## ')[0] ?? '';
  const commands = [...section.matchAll(/^\| `([a-z-]+)[ `]/gm)].map((m) => m[1]!);
  t.ok(commands.length >= 10, `the README lists ${commands.length} commands`);
  const env: Record<string, string | undefined> = { ...process.env };
  for (const k of Object.keys(env)) if (k === 'NODE_OPTIONS' || k.startsWith('TAP')) delete env[k];
  const help = spawnSync(path.join(root, 'bin', 'deletions'), ['--help'], { env, encoding: 'utf8' });
  t.equal(help.status, 0, help.stderr);
  const missing = commands.filter((c) => !new RegExp(`deletions ${c}\\b`).test(help.stdout));
  t.same(missing, [], 'every listed command is in --help');
});

t.test('every test docs/security.md cites exists', async (t) => {
  const security = readFileSync(path.join(root, 'docs', 'security.md'), 'utf8');
  const sql = [...security.matchAll(/`([a-z_]+\/[a-z_]+)`/g)].map((m) => m[1]!);
  const e2e = [...security.matchAll(/`(test\/e2e\/[a-z-]+)`/g)].map((m) => m[1]!);
  t.ok(sql.length >= 15, `docs/security.md cites ${sql.length} pgTAP tests`);
  const missing = [
    ...sql.filter((r) => !existsSync(path.join(root, 'db', 'tests', `${r}.test.sql`))),
    ...e2e.filter((r) => !existsSync(path.join(root, `${r}.test.ts`))),
  ];
  t.same(missing, [], 'no cited test is missing');
});
