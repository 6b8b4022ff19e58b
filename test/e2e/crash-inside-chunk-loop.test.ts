// Crash inside the chunk loop. With a chunk size of 4 (DELETIONS_CHUNK_SIZE;
// the same code path as the default 10,000, whose boundary is proven in SQL by
// destruction/ten_thousand_and_one_entries_make_two_chunks and in
// test/manifest.test.ts), 9 object versions freeze into three chunks
// (4 + 4 + 1). The executor is SIGKILLed after chunk 0's versions are deleted
// from S3 but before chunk 0 is stamped; while its lease is live nobody can
// claim the request; once the lease has ended a successor claims generation 2,
// re-deletes chunk 0 (the versions are already gone: idempotent), deletes the
// other chunks and completes with zero objects left and the bystander intact.
// Nothing here depends on the machine's speed: the victim's lease is an hour
// long and is ended by the test (expireLease) only after the process is dead.
import t from 'tap';
import {
  checkpoints, cliEnv, deletions, e2eStores, expireLease, fingerprint, hex, killHard, putMany, requestRow, seedCommunity, show, startDeletions, submitAndApprove, victimEnv,
} from '../helpers/e2e.js';

const OBJECTS = 9;
const CHUNK = 4;

const { db, sql, bucket, redis } = await e2eStores(t);
const env = cliEnv(db, bucket, { DELETIONS_CHUNK_SIZE: String(CHUNK) });

const tag = `chunks-${process.pid}`;
const bystander = await seedCommunity(sql, bucket.store, redis, `bystander-${tag}.example`, { keys: 2 });
const [seeded] = await sql<{ id: string }[]>`select tests.seed_community(${`target-${tag}.example`}, 2) as id`;
const targetId = seeded!.id;
await redis.set(`buzz:${targetId}:session:1`, 'x');

const metaPrefix = `_meta/${targetId}/`;
const keys = Array.from({ length: OBJECTS }, (_, i) => `${metaPrefix}${hex(`${tag}:${i}`)}.json`);
await putMany(bucket.client, bucket.config.bucket, keys, (key) => key.slice(-12), 3);
const requestId = await submitAndApprove(sql, bucket.store, `target-${tag}.example`, { chunkSize: CHUNK });
const bystanderBefore = await fingerprint(sql, bucket.store, redis, bystander.id);

const countVersions = async (prefix: string) => {
  let n = 0;
  for await (const _ of bucket.store.listVersions(prefix)) n += 1;
  return n;
};

t.test('killed after chunk 0 is deleted from S3 but before its stamp', async (t) => {
  const victim = startDeletions(['run', requestId, '--executor-id', 'victim'], victimEnv(env), { pauseAt: 'chunk_deleted:0' });
  t.equal(await victim.paused, 'chunk_deleted:0', 'the executor reached the boundary');

  const chunks = await sql<{ chunk_no: number; prefix: string; n: number; stamped: boolean }[]>`
    select chunk_no, prefix, jsonb_array_length(entries) as n, deleted_at is not null as stamped
    from community_deletion.manifest_keys where request_id = ${requestId} order by chunk_no`;
  t.same(chunks, [
    { chunk_no: 0, prefix: metaPrefix, n: 4, stamped: false },
    { chunk_no: 1, prefix: metaPrefix, n: 4, stamped: false },
    { chunk_no: 2, prefix: metaPrefix, n: 1, stamped: false },
  ], 'exactly three chunks (4 + 4 + 1), none stamped');
  const row = await requestRow(sql, requestId);
  t.match(row, { stage: 'drained', lease_owner: 'victim', lease_generation: '1' });
  t.match(row.destructive_storage_manifest, { chunk_size: CHUNK, prefixes: [{ prefix: metaPrefix, object_count: OBJECTS }, { object_count: 0 }, { object_count: 0 }] });
  t.equal(await countVersions(metaPrefix), OBJECTS - CHUNK, 'chunk 0 is gone from S3, chunks 1 and 2 are not');

  const killed = await killHard(victim);
  t.equal(killed.signal, 'SIGKILL', 'killed without any chance to clean up');

  // The dead owner's hour-long lease still holds: a claim gets nothing
  // (probed in a rolled-back transaction so the probe can never take it).
  const probe = await sql
    .begin(async (tx) => {
      const [live] = await tx<{ live: boolean }[]>`select lease_until > now() as live from community_deletion.requests where id = ${requestId}`;
      const claimed = await tx`select * from community_deletion.claim('probe', ${requestId}::uuid, 60)`;
      throw Object.assign(new Error('rollback'), { result: { live: live!.live, claimed: claimed.length } });
    })
    .catch((e: { result?: { live: boolean; claimed: number } }) => e.result);
  t.same(probe, { live: true, claimed: 0 }, "unclaimable while the killed executor's lease is live");
  const cps = await checkpoints(sql, requestId);
  t.notOk(cps.some((c) => c.unit_key.startsWith('chunk:')), 'no chunk checkpoint was written');
});

t.test('a successor completes at generation 2 with zero objects left', async (t) => {
  await expireLease(sql, requestId);
  const run = await deletions(['run', requestId, '--executor-id', 'successor'], env);
  t.equal(run.code, 0, show(run));
  t.match(run.json, { kind: 'completed', request_id: requestId });
  t.equal(run.json.stages[0].stage, 'drained', 'resumed at drained, not from the start');

  const row = await requestRow(sql, requestId);
  t.match(row, { stage: 'retention_pending', lease_owner: null, lease_generation: '2', attempts: 2, retry_count: 0 });
  const chunkCps = (await checkpoints(sql, requestId)).filter((c) => c.unit_key.startsWith('chunk:'));
  t.same(
    chunkCps.map((c) => ({ unit: c.unit_key, status: c.status, attempts: c.attempts, generation: c.lease_generation, entries: c.detail.entries })),
    [
      { unit: 'chunk:0', status: 'completed', attempts: 1, generation: '2', entries: 4 },
      { unit: 'chunk:1', status: 'completed', attempts: 1, generation: '2', entries: 4 },
      { unit: 'chunk:2', status: 'completed', attempts: 1, generation: '2', entries: 1 },
    ],
    'every chunk stamped once, by generation 2',
  );
  // moto acknowledges an exact-version delete of a version that is already
  // gone as deleted (real S3 does too); either way the chunk is accounted for.
  t.equal(chunkCps[0]!.detail.deleted + chunkCps[0]!.detail.already_missing, 4, 'chunk 0 re-deleted idempotently');
  t.same(chunkCps.slice(1).map((c) => c.detail.deleted), [4, 1], 'the successor deleted chunks 1 and 2');
  for (const prefix of [metaPrefix, `_uploads/${targetId}/`, `repos/${targetId}/`]) t.equal(await countVersions(prefix), 0, `${prefix} is empty`);
  const [left] = await sql<{ n: number }[]>`select count(*)::int as n from community_deletion.manifest_keys where request_id = ${requestId}`;
  t.equal(left!.n, 0, 'the key chunks were dropped after verification');
  t.same(await fingerprint(sql, bucket.store, redis, bystander.id), bystanderBefore, 'bystander byte-identical in all three stores');
});
