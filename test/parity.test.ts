// The parity check is only worth having if it fails on drift: run it against
// deliberately edited copies of schema.sql and watch it refuse them.
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migratedTemplate } from './helpers/migrated.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const parity = path.join(root, 'scripts', 'parity.sh');
const schema = readFileSync(path.join(root, 'schema.sql'), 'utf8');

// Every run compares with the same migrations: they are built once, and each
// run of parity.sh clones that database (DELETIONS_MIGRATED_TEMPLATE).
const migrated = migratedTemplate(t, root);

function runParity(file: string) {
  return spawnSync('bash', [parity, file], { encoding: 'utf8', env: { ...process.env, DELETIONS_MIGRATED_TEMPLATE: migrated } });
}

function driftedCopy(t: Test, edit: (s: string) => string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parity-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'schema.sql');
  const edited = edit(schema);
  t.not(edited, schema, 'the edit changed the copy');
  writeFileSync(file, edited);
  return file;
}

t.test('the committed schema.sql matches the migrations', async (t) => {
  const r = runParity(path.join(root, 'schema.sql'));
  t.equal(r.status, 0, r.stderr);
});

t.test('a dropped table is caught', async (t) => {
  const file = driftedCopy(t, (s) => s.replace(/CREATE TABLE public\.community_bans \([^;]*\);/s, ''));
  const r = runParity(file);
  t.equal(r.status, 1);
  t.match(r.stderr, /community_bans/);
});

t.test('a dropped trigger is caught', async (t) => {
  const file = driftedCopy(t, (s) => s.replace(/CREATE TRIGGER _200_guard_read_state_delete [^;]*;/s, ''));
  const r = runParity(file);
  t.equal(r.status, 1);
  t.match(r.stderr, /_200_guard_read_state_delete/);
});

t.test('an edited function body is caught', async (t) => {
  const file = driftedCopy(t, (s) => s.replace("'read-state event % of community % cannot be hard-deleted'", "'read-state event % of community % is protected'"));
  const r = runParity(file);
  t.equal(r.status, 1);
  t.match(r.stderr, /tg_events__guard_read_state_delete/);
});
