// The README's psql walkthrough, run exactly as the README shows it (the
// shell block that names docs/psql-walkthrough.sql, verbatim, in bash) on a
// freshly migrated database holding no community: `npm run seed` creates the
// community in all three stores, `deletions plan --json` writes plan.json,
// and psql submits, freezes with the plan's storage summary, and approves from
// a second login. Then the real executor deletes what was seeded: the seed
// follows the storage taxonomy and the frozen inventory is the seeded data.
import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, adminSql } from '../helpers/db.js';
import {
  deletions, e2eStores, fingerprint, root, show, type Env,
} from '../helpers/e2e.js';

const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('docs/psql-walkthrough.sql'));

const { db, bucket, redis, env } = await e2eStores(t);

// The README's paths are relative to the repository root; plan.json goes to
// a private directory that links to it, so concurrent runs do not collide.
const cwd = mkdtempSync(path.join(os.tmpdir(), 'cd-walkthrough-'));
t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
for (const entry of ['bin', 'db', 'docs', 'node_modules', 'package.json', 'scripts', 'src', 'tsconfig.json']) {
  symlinkSync(path.join(root, entry), path.join(cwd, entry));
}

// The walkthrough creates the approver's login `bob` when it is missing; drop it again only if this test created it.
const admin = adminSql();
const [had] = await admin<{ n: number }[]>`select count(*)::int as n from pg_roles where rolname = 'bob'`;
t.teardown(async () => {
  if (had!.n === 0) await admin.unsafe('drop role if exists bob').catch(() => {});
  await admin.end();
});

function bash(script: string, e: Env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env: e as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let requestId = '';
let communityId = '';

t.test('the README block runs as shown on a freshly migrated database', async (t) => {
  t.ok(block, 'the README has a shell block running docs/psql-walkthrough.sql');
  t.match(block!, /npm run seed -- --host tenant\.example/);
  t.match(block!, /bin\/deletions plan --host tenant\.example --json > plan\.json/);
  const [none] = await db.sql<{ n: number }[]>`select count(*)::int as n from public.communities`;
  t.equal(none!.n, 0, 'no community exists before');

  const r = await bash(block!, env);
  t.equal(r.code, 0, `exit ${r.code}\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);

  const [req] = await db.sql<{ id: string; community_id: string; stage: string; storage_manifest: any; schema_manifest: any; requested_by: string }[]>`
    select id, community_id, stage, storage_manifest, schema_manifest, requested_by from community_deletion.requests`;
  t.ok(req, 'one request');
  requestId = req!.id;
  communityId = req!.community_id;
  t.equal(req!.stage, 'approved');
  t.equal(req!.requested_by, 'alice');
  const [approval] = await db.sql<{ approved_by: string; approved_login: string }[]>`select approved_by, approved_login from community_deletion.approvals`;
  t.same(approval, { approved_by: 'bob', approved_login: 'bob' }, 'approved by bob from the second login');

  const plan = JSON.parse(readFileSync(path.join(cwd, 'plan.json'), 'utf8'));
  t.same(req!.storage_manifest, plan.storage_summary, 'the frozen storage half is the plan\'s summary');
  t.equal(plan.s3.object_versions, 30, 'the seed\'s default: 30 object versions');
  t.equal(plan.redis.keys, 20, 'the seed\'s default: 20 Redis keys');
  const frozenRows = Object.values(req!.schema_manifest.row_counts as Record<string, number>).reduce((a, b) => a + Number(b), 0);
  t.equal(frozenRows, plan.postgres.rows_to_delete, 'the frozen row counts are the plan\'s');
  t.ok(frozenRows >= 100, 'about 1,000 rows by default');
});

t.test('the executor deletes exactly what was seeded', async (t) => {
  const run = await deletions(['run', requestId], env);
  t.equal(run.code, 0, show(run));
  const after = await fingerprint(db.sql, bucket.store, redis, communityId);
  t.match(after, { rows: 0, versions: 0, keys: 0 });
  const again = await deletions(['plan', '--host', 'tenant.example'], env);
  t.equal(again.code, 4, show(again));
  t.match(again.json, { sqlstate: 'DL2C1', error: /tombstone/ });
});
