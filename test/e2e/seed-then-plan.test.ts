// `npm run seed -- --host H --rows N --objects M --keys K` creates a community
// in all three stores (rows in every registered scoped table, exactly M object
// versions under its owned prefixes in the taxonomy's shapes, exactly K keys
// in its Redis namespace), and `deletions plan` shows exactly those counts.
// A host that exists is refused (exit 2, nothing created); so is a bad count.
import t from 'tap';
import { spawn } from 'node:child_process';
import { createTestDatabase } from '../helpers/db.js';
import { createTestBucket } from '../helpers/moto.js';
import { cliEnv, deletions, root, show, type Env } from '../helpers/e2e.js';

const db = await createTestDatabase();
t.teardown(() => db.drop());
const bucket = await createTestBucket(t);
const env = cliEnv(db, bucket);
const host = `seeded-${process.pid}.example`;

function seed(args: string[], e: Env): Promise<{ code: number | null; stdout: string; stderr: string; json: any }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '-s', 'seed', '--', ...args], { cwd: root, env: e as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout.trim());
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

let seeded: any;

t.test('seed creates the community in all three stores', async (t) => {
  const r = await seed(['--host', host, '--rows', '150', '--objects', '17', '--keys', '9'], env);
  t.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  seeded = r.json;
  t.match(seeded, { host, community_id: /^[0-9a-f-]{36}$/, object_versions: 17, redis_keys: 9 });
  t.ok(seeded.rows >= 150 * 0.9, `about 150 rows (${seeded.rows})`);
  const [registered] = await db.sql<{ n: number }[]>`select count(*)::int as n from community_deletion.registered_tables where kind = 'scoped'`;
  t.equal(Object.keys(seeded.rows_by_table).length, registered!.n, 'a count for every scoped table');
  t.ok(Object.values(seeded.rows_by_table as Record<string, number>).every((n) => n > 0), 'rows in every scoped table');
});

t.test('plan shows exactly the seeded counts', async (t) => {
  const r = await deletions(['plan', '--host', host], env);
  t.equal(r.code, 0, show(r));
  const scoped = (r.json.postgres.tables as { table: string; kind: string; rows: number }[]).filter((x) => x.kind === 'scoped');
  t.same(Object.fromEntries(scoped.map((x) => [x.table, x.rows])), seeded.rows_by_table, 'rows per table');
  t.equal(r.json.postgres.rows_to_delete, seeded.rows);
  t.ok(r.json.postgres.rows_to_unlink > 0, 'provenance rows too');
  t.equal(r.json.s3.object_versions, 17, 'object versions');
  t.equal(r.json.s3.delete_markers, 0);
  t.ok(r.json.s3.prefixes.every((p: { object_versions: number }) => p.object_versions > 0), 'objects under each of the three owned prefixes');
  t.equal(r.json.redis.keys, 9, 'Redis keys');
});

t.test('a host that exists is refused (exit 2) and nothing is added', async (t) => {
  const r = await seed(['--host', host.toUpperCase(), '--objects', '5', '--keys', '5'], env);
  t.equal(r.code, 2, `${r.stdout}\n${r.stderr}`);
  t.match(r.stderr, /already exists/);
  const plan = await deletions(['plan', '--host', host], env);
  t.equal(plan.json.s3.object_versions, 17, 'no object added');
  t.equal(plan.json.redis.keys, 9, 'no key added');
});

t.test('a count that is not a non-negative integer is a usage error (exit 2)', async (t) => {
  const r = await seed(['--host', `other-${host}`, '--objects', '-3'], env);
  t.equal(r.code, 2, `${r.stdout}\n${r.stderr}`);
  const [n] = await db.sql<{ n: number }[]>`select count(*)::int as n from public.communities where host = ${`other-${host}`}`;
  t.equal(n!.n, 0, 'nothing created');
});

t.test('a missing variable is a configuration error (exit 5) before anything is created', async (t) => {
  const r = await seed(['--host', `third-${host}`], { ...env, REDIS_URL: undefined });
  t.equal(r.code, 5, `${r.stdout}\n${r.stderr}`);
  t.match(r.stderr, /REDIS_URL/);
  const [n] = await db.sql<{ n: number }[]>`select count(*)::int as n from public.communities where host = ${`third-${host}`}`;
  t.equal(n!.n, 0, 'nothing created');
});
