// `deletions --help` and `deletions migrate` work from bin/, migrate is
// idempotent, and a missing DATABASE_URL is a configuration error (exit 5).
import t from 'tap';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from './helpers/db.js';
import { SCHEMA_VERSION } from '../src/engine.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'deletions');

function deletions(args: string[], env: Record<string, string | undefined> = {}) {
  // Run the CLI the way an operator does: without tap's loader options.
  const merged: Record<string, string | undefined> = { ...process.env, ...env };
  for (const k of Object.keys(merged)) if (k === 'NODE_OPTIONS' || k.startsWith('TAP')) delete merged[k];
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete merged[k];
  return spawnSync(bin, args, { env: merged, encoding: 'utf8' });
}

t.test('--help lists the commands that exist', async (t) => {
  const r = deletions(['--help']);
  t.equal(r.status, 0);
  t.match(r.stdout, /deletions migrate/);
});

t.test('an unknown command is a usage error', async (t) => {
  const r = deletions(['explode']);
  t.equal(r.status, 2);
});

t.test('migrate applies every migration to an empty database, then is a no-op', async (t) => {
  const db = await createTestDatabase({ empty: true });
  t.teardown(() => db.drop());
  const first = deletions(['migrate', '--json'], { DATABASE_URL: db.url });
  t.equal(first.status, 0, first.stderr);
  t.match(JSON.parse(first.stdout), { migrated: true, schema_version: SCHEMA_VERSION, write_fence: 'native', managed: false },
    'migrated to the schema version this driver was built for, with the native write fence (.ci/run installs db/native)');
  t.same(JSON.parse(first.stdout).installation,
    { write_fence: 'native', ddl_lock: 'event_trigger', ddl_guard: 'event_trigger', rls_exemption: 'bypassrls',
      superuser_install: true, degraded: [] },
    'migrated by a superuser: nothing degraded');
  const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from community_deletion.registered_tables where kind = 'scoped'`;
  t.equal(row?.n, 28, 'the registry is populated');
  const applied = await db.sql`select filename from graphile_migrate.migrations order by filename`;
  const second = deletions(['migrate', '--json'], { DATABASE_URL: db.url });
  t.equal(second.status, 0, second.stderr);
  const again = await db.sql`select filename from graphile_migrate.migrations order by filename`;
  t.same(again, applied, 'the second run applied nothing new');
});

t.test('migrate without DATABASE_URL is a configuration error naming the variable', async (t) => {
  const r = deletions(['migrate', '--json'], { DATABASE_URL: undefined });
  t.equal(r.status, 5);
  t.match(JSON.parse(r.stdout), { variable: 'DATABASE_URL' });
});
