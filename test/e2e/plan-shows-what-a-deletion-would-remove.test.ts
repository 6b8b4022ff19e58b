// `deletions plan --host H` through the real CLI against real PostgreSQL,
// Redis and S3: rows per registered table in purge order (exactly the
// target's, never a bystander's), object versions and delete markers per owned
// prefix, the keys of the Redis namespace — and nothing is created or written
// (no request; every store's fingerprint unchanged). Its storage summary is
// exactly what `submit` freezes. Unknown host → 2; unusable bucket → 5.
import t from 'tap';
import {
  deletions, e2eStores, fingerprint, seedCommunity, show,
} from '../helpers/e2e.js';

const { db, sql, bucket, redis, env } = await e2eStores(t);
const tag = `plan-${process.pid}`;
// Per owned prefix: 2 keys × 2 versions, a delete marker each, one more version on key 0 → 5 versions + 2 markers.
const target = await seedCommunity(sql, bucket.store, redis, `target-${tag}.example`, { rows: 3, keys: 2, versions: 2, redisKeys: 4 });
const bystander = await seedCommunity(sql, bucket.store, redis, `bystander-${tag}.example`, { rows: 6, keys: 3, versions: 3, redisKeys: 9 });
const before = { target: await fingerprint(sql, bucket.store, redis, target.id), bystander: await fingerprint(sql, bucket.store, redis, bystander.id) };

let plan: any;

t.test('plan prints the target\'s rows per table, object versions per prefix and Redis keys (JSON off a terminal)', async (t) => {
  const r = await deletions(['plan', '--host', target.host.toUpperCase()], env);
  t.equal(r.code, 0, show(r));
  plan = r.json;
  t.match(plan, { host: target.host, community_id: target.id, deletion_state: 'active', open_request: null });

  const expected = await sql<{ table_name: string; row_count: string }[]>`select table_name, row_count from tests.scoped_row_counts(${target.id})`;
  const scoped = (plan.postgres.tables as { table: string; kind: string; rows: number }[]).filter((x) => x.kind === 'scoped');
  t.same(Object.fromEntries(scoped.map((x) => [x.table, x.rows])), Object.fromEntries(expected.map((e) => [e.table_name, Number(e.row_count)])),
    'every scoped table with exactly the target\'s rows');
  t.equal(plan.postgres.rows_to_delete, before.target.rows, 'rows_to_delete = the target\'s rows');
  t.ok(plan.postgres.rows_to_unlink > 0, 'provenance rows are counted');
  t.equal(plan.postgres.tables[0].kind, 'provenance', 'provenance first (purge order)');
  const order = (plan.postgres.tables as { table: string }[]).map((x) => x.table);
  t.ok(order.indexOf('reactions') < order.indexOf('events'), 'children before parents');

  t.same(plan.s3.prefixes.map((p: any) => [p.prefix, p.object_versions, p.delete_markers]), [
    [`_meta/${target.id}/`, 5, 2],
    [`_uploads/${target.id}/`, 5, 2],
    [`repos/${target.id}/`, 5, 2],
  ], 'object versions and delete markers per owned prefix');
  t.equal(plan.s3.object_versions + plan.s3.delete_markers, before.target.versions, 'every version of the target is counted, the bystander\'s none');
  t.match(plan.s3, { bucket: bucket.config.bucket, endpoint: bucket.config.endpoint });
  t.same(plan.redis, { pattern: `buzz:${target.id}:*`, keys: 6 }, 'the namespace keys (4 strings, a hash, a list), not the bare buzz:<id> key');
  t.equal(before.target.keys, 6);
});

t.test('plan created and wrote nothing', async (t) => {
  const [n] = await sql<{ n: number }[]>`select count(*)::int as n from community_deletion.requests`;
  t.equal(n!.n, 0, 'no request');
  t.same(await fingerprint(sql, bucket.store, redis, target.id), before.target, 'the target is untouched in all three stores');
  t.same(await fingerprint(sql, bucket.store, redis, bystander.id), before.bystander, 'the bystander is untouched');
});

t.test('the storage summary plan prints is exactly what submit freezes', async (t) => {
  const submitted = await deletions(['submit', '--host', target.host, '--requested-by', 'alice@ops'], env);
  t.equal(submitted.code, 0, show(submitted));
  t.same(submitted.json.storage_manifest, plan.storage_summary);
  const again = await deletions(['plan', '--host', target.host], env);
  t.equal(again.code, 0, show(again));
  t.match(again.json.open_request, { id: submitted.json.id, stage: 'inventoried', requested_by: 'alice@ops' }, 'plan names the open request');
});

t.test('an unknown host is a usage error (exit 2, DL1N2)', async (t) => {
  const r = await deletions(['plan', '--host', `nowhere-${tag}.example`], env);
  t.equal(r.code, 2, show(r));
  t.match(r.json, { sqlstate: 'DL1N2', error: /no community has host/ });
});

t.test('a missing bucket is a configuration error (exit 5) naming the bucket', async (t) => {
  const r = await deletions(['plan', '--host', target.host], { ...env, BUZZ_S3_BUCKET: `missing-${tag}` });
  t.equal(r.code, 5, show(r));
  t.match(r.json, { error: new RegExp(`missing-${tag}`) });
});

t.test('an unreachable Redis is a configuration error (exit 5)', async (t) => {
  const { freePort } = await import('../../src/dev/local-s3.js');
  const r = await deletions(['plan', '--host', target.host], { ...env, REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
  t.equal(r.code, 5, show(r));
  t.match(r.json, { error: /Redis/, variable: 'REDIS_URL' });
});
