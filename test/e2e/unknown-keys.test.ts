// Storage taxonomy at the edges: a key inside an owned prefix that matches no
// writer shape fails closed — at submit the inventory refuses it (exit 4), and
// if it appears after approval the executor blocks at the fenced stage before
// deleting anything. A key elsewhere in the bucket (`weird/thing`) never
// blocks a deletion; the fleet `sweep` counts it and exits 6.
import t from 'tap';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import {
  approverEnv, checkpoints, deletions, e2eStores, fingerprint, requestRow, seedCommunity, show,
} from '../helpers/e2e.js';

const { db, sql, bucket, redis, env } = await e2eStores(t);
const tag = `unknown-${process.pid}`;
const put = (key: string) => bucket.client.send(new PutObjectCommand({ Bucket: bucket.config.bucket, Key: key, Body: key }));

const early = await seedCommunity(sql, bucket.store, redis, `early-${tag}.example`);
const late = await seedCommunity(sql, bucket.store, redis, `late-${tag}.example`);
const clean = await seedCommunity(sql, bucket.store, redis, `clean-${tag}.example`);
const bystander = await seedCommunity(sql, bucket.store, redis, `bystander-${tag}.example`);
const bystanderBefore = await fingerprint(sql, bucket.store, redis, bystander.id);
const earlyBad = `_meta/${early.id}/not-a-hash.txt`;
const lateBad = `_uploads/${late.id}/not-a-hash.txt`;
const elsewhere = 'weird/thing';

t.test('a malformed key in an owned prefix: submit refuses the inventory (exit 4)', async (t) => {
  await put(earlyBad);
  const submit = await deletions(['submit', '--host', early.host, '--requested-by', 'alice@ops'], env);
  t.equal(submit.code, 4, show(submit));
  t.match(submit.json, { error: /not-a-hash\.txt/ });
  const [req] = await sql<{ id: string; stage: string; inventory_digest: string | null }[]>`
    select id, stage, inventory_digest from community_deletion.requests where community_id = ${early.id}`;
  t.match(req, { stage: 'submitted', inventory_digest: null }, 'no inventory was frozen');

  // Remediation: the operator removes the stray key; the same requester's resubmission continues.
  for await (const v of bucket.store.listVersions(`_meta/${early.id}/`)) {
    if (v.key === earlyBad) await bucket.client.send(new DeleteObjectCommand({ Bucket: bucket.config.bucket, Key: v.key, VersionId: v.version_id }));
  }
  const again = await deletions(['submit', '--host', early.host, '--requested-by', 'alice@ops'], env);
  t.equal(again.code, 0, show(again));
  t.match(again.json, { id: req!.id, stage: 'inventoried' });
});

t.test('a malformed key appearing after approval blocks the executor at fenced, nothing deleted', async (t) => {
  const submit = await deletions(['submit', '--host', late.host, '--requested-by', 'alice@ops'], env);
  t.equal(submit.code, 0, show(submit));
  const id = submit.json.id as string;
  t.equal((await deletions(['approve', id, '--approved-by', 'bob@ops'], approverEnv(env))).code, 0);
  await put(lateBad);
  const before = await fingerprint(sql, bucket.store, redis, late.id);

  const run = await deletions(['run', id], env);
  t.equal(run.code, 1, show(run));
  t.match(run.json, { kind: 'failure_recorded', stage: 'fenced', blocked: true, retryable: false, error: /not-a-hash\.txt/ });
  const row = await requestRow(sql, id);
  t.match(row, { stage: 'fenced', blocked_reason: /not-a-hash\.txt/, lease_owner: null, retry_count: 0, destructive_storage_manifest: null });
  t.match((await checkpoints(sql, id)).filter((c) => c.status === 'failed'), [{ stage: 'fenced', unit_key: 'enumerate_storage', error: /matches no .* writer shape/ }]);
  const after = await fingerprint(sql, bucket.store, redis, late.id);
  t.same({ versions: after.versions, s3: after.s3, keys: after.keys, redis: after.redis }, { versions: before.versions, s3: before.s3, keys: before.keys, redis: before.redis }, 'no object version or Redis key deleted');

  const inspect = await deletions(['inspect', id], env);
  t.match(inspect.json, { state: 'blocked', community: { deletion_state: 'fenced' } }, 'inspect explains the block; the community stays fenced');
  const rerun = await deletions(['run', id], env);
  t.equal(rerun.code, 3, show(rerun));
});

t.test('an unknown key elsewhere in the bucket does not block a deletion', async (t) => {
  await put(elsewhere);
  const submit = await deletions(['submit', '--host', clean.host, '--requested-by', 'alice@ops'], env);
  t.equal(submit.code, 0, show(submit));
  const id = submit.json.id as string;
  t.equal((await deletions(['approve', id, '--approved-by', 'bob@ops'], approverEnv(env))).code, 0);
  const run = await deletions(['run', id], env);
  t.equal(run.code, 0, show(run));
  t.match(run.json, { kind: 'completed' });
  const after = await fingerprint(sql, bucket.store, redis, clean.id);
  t.same({ rows: after.rows, versions: after.versions, keys: after.keys }, { rows: 0, versions: 0, keys: 0 }, 'target absent');
  let kept = 0;
  for await (const e of bucket.store.listWholeBucket()) if (e.key === elsewhere) kept += 1;
  t.equal(kept, 1, 'weird/thing is untouched');
});

t.test('sweep counts the unknown keys and exits 6', async (t) => {
  const sweep = await deletions(['sweep'], env);
  t.equal(sweep.code, 6, show(sweep));
  t.match(sweep.json, { unknown_object_count: 2, truncated: false }, 'weird/thing and the malformed owned key');
  t.same([...sweep.json.unknown_key_sample].sort(), [lateBad, elsewhere].sort(), 'the sample names them');
  t.ok(sweep.json.listed_objects > 2, 'the whole bucket was listed');
  const [rec] = await sql<{ n: number }[]>`select count(*)::int as n from community_deletion.taxonomy_sweeps`;
  t.equal(rec!.n, 1, 'the sweep is recorded');
  t.same(await fingerprint(sql, bucket.store, redis, bystander.id), bystanderBefore, 'bystander byte-identical');
});
