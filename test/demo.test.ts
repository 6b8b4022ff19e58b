// The README's first command must keep working: run `npm run demo` against a
// fresh empty database (it migrates it itself) and check its report says the
// target is gone and the bystander is byte-identical in all three stores.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from './helpers/db.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

t.test('npm run demo deletes the target and leaves the bystander identical', async (t) => {
  const db = await createTestDatabase({ empty: true });
  t.teardown(() => db.drop());
  const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: db.url };
  for (const k of Object.keys(env)) if (k === 'NODE_OPTIONS' || k.startsWith('TAP')) delete env[k];
  const r = spawnSync('npm', ['run', '--silent', 'demo'], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
  t.equal(r.status, 0, r.stderr.slice(-2000));
  const report = r.stdout;
  for (const store of ['PostgreSQL rows', 'S3 object versions', 'Redis keys']) {
    const line = report.split('\n').find((l) => l.startsWith(store));
    t.ok(line, `the report has a ${store} line`);
    // target before > 0, target now = 0, bystander before = now, marked identical
    const m = /\s(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+✓/.exec(line ?? '');
    t.ok(m, `${store}: counts and a ✓`);
    if (m) {
      t.ok(Number(m[1]) > 0, `${store}: the target had data`);
      t.equal(Number(m[2]), 0, `${store}: the target has none now`);
      t.equal(m[3], m[4], `${store}: the bystander count is unchanged`);
    }
  }
  t.match(report, /shared content-addressed blobs .* ✓ untouched/);
  t.match(report, /tombstone: .* state=tombstone/);
  t.match(report, /bin\/deletions inspect [0-9a-f-]{36}/);
});
