// Crash inside the chunk loop: 10,001 object versions freeze into exactly two
// chunks (10,000 + 1). The executor is SIGKILLed after chunk 0's versions are
// deleted from S3 but before chunk 0 is stamped; while its lease is live
// nobody can claim the request; after expiry a successor claims generation 2,
// re-deletes chunk 0 (the versions are already gone: idempotent), deletes
// chunk 1 and completes with zero objects left and the bystander intact.
import t from 'tap';
import { buildStorageSummary, compareEntries, PrefixDigest, type SizedEntry } from '../../src/manifest.js';
import { createTestDatabase } from '../helpers/db.js';
import { createTestBucket } from '../helpers/moto.js';
import {
  checkpoints, cliEnv, fingerprint, hex, killHard, putMany, redisClient, requestRow, seedCommunity, show, startDeletions, deletions,
  waitLeaseExpired,
} from '../helpers/e2e.js';

const OBJECTS = 10_001;
const CHUNK = 10_000;

const db = await createTestDatabase();
t.teardown(() => db.drop());
const bucket = await createTestBucket(t);
const redis = redisClient();
t.teardown(() => redis.disconnect());
const sql = db.sql;
const env = cliEnv(db, bucket);

const tag = `chunks-${process.pid}`;
const bystander = await seedCommunity(sql, bucket.store, redis, `bystander-${tag}.example`, { keys: 2 });
const [seeded] = await sql<{ id: string }[]>`select tests.seed_community(${`target-${tag}.example`}, 2) as id`;
const targetId = seeded!.id;
await redis.set(`buzz:${targetId}:session:1`, 'x');

// 10,001 one-version objects under _meta/<c>/ (moto: a few ms per PutObject).
const metaPrefix = `_meta/${targetId}/`;
const keys = Array.from({ length: OBJECTS }, (_, i) => `${metaPrefix}${hex(`${tag}:${i}`)}.json`);
const versions = await putMany(bucket.client, bucket.config.bucket, keys, (key) => key.slice(-12), 6);

// The inventory the CLI's submit would freeze, computed from the PutObject
// responses (listing 10,001 versions on moto twice would double the test's
// time; the executor's own post-fence enumeration is what is under test).
const entries: SizedEntry[] = keys.map((key) => ({ key, version_id: versions.get(key)!, kind: 'object', size: 12 }));
entries.sort(compareEntries);
const summaries = [metaPrefix, `_uploads/${targetId}/`, `repos/${targetId}/`].map((prefix) => {
  const digest = new PrefixDigest(prefix, { chunkSize: CHUNK });
  if (prefix === metaPrefix) for (const e of entries) digest.add(e);
  return digest.finish().summary;
});
const summary = buildStorageSummary({ chunkSize: CHUNK, expectedPrefixes: summaries.map((s) => s.prefix), prefixes: summaries });
const [submitted] = await sql<{ id: string }[]>`select id from public.deletion_submit(${`target-${tag}.example`}, 'alice@ops', 'e2e')`;
const requestId = submitted!.id;
await sql`select 1 from public.deletion_freeze_inventory(${requestId}::uuid, ${sql.json(JSON.parse(JSON.stringify(summary)))})`;
await sql`select 1 from public.deletion_approve(${requestId}::uuid, 'bob@ops')`;
const bystanderBefore = await fingerprint(sql, bucket.store, redis, bystander.id);

const countVersions = async (prefix: string) => {
  let n = 0;
  for await (const _ of bucket.store.listVersions(prefix)) n += 1;
  return n;
};

t.test('killed after chunk 0 is deleted from S3 but before its stamp', async (t) => {
  const victim = startDeletions(['run', requestId, '--executor-id', 'victim'], {
    ...env,
    DELETIONS_LEASE_SECONDS: '3',
    DELETIONS_HEARTBEAT_SECONDS: '1',
    DELETIONS_TEST_PAUSE_AT: 'chunk_deleted:0',
  });
  t.equal(await victim.paused, 'chunk_deleted:0', 'the executor reached the boundary');

  const chunks = await sql<{ chunk_no: number; prefix: string; n: number; stamped: boolean }[]>`
    select chunk_no, prefix, jsonb_array_length(entries) as n, deleted_at is not null as stamped
    from public.community_deletion_manifest_keys where request_id = ${requestId} order by chunk_no`;
  t.same(chunks, [
    { chunk_no: 0, prefix: metaPrefix, n: 10_000, stamped: false },
    { chunk_no: 1, prefix: metaPrefix, n: 1, stamped: false },
  ], 'exactly two chunks (10,000 + 1), neither stamped');
  const row = await requestRow(sql, requestId);
  t.match(row, { stage: 'drained', lease_owner: 'victim', lease_generation: '1' });
  t.match(row.destructive_storage_manifest, { chunk_size: CHUNK, prefixes: [{ prefix: metaPrefix, object_count: OBJECTS }, { object_count: 0 }, { object_count: 0 }] });
  t.equal(await countVersions(metaPrefix), 1, 'chunk 0 is gone from S3, chunk 1 (one version) is not');

  const killed = await killHard(victim);
  t.equal(killed.signal, 'SIGKILL', 'killed without any chance to clean up');

  // The dead owner's lease still holds: a claim gets nothing (probed in a
  // rolled-back transaction so a late probe could never steal generation 2).
  const probe = await sql
    .begin(async (tx) => {
      const [live] = await tx<{ live: boolean }[]>`select lease_until > now() as live from public.community_deletion_requests where id = ${requestId}`;
      const claimed = await tx`select * from public.deletion_claim('probe', ${requestId}::uuid, 60)`;
      throw Object.assign(new Error('rollback'), { result: { live: live!.live, claimed: claimed.length } });
    })
    .catch((e: { result?: { live: boolean; claimed: number } }) => e.result);
  if (probe?.live) t.equal(probe.claimed, 0, 'unclaimable while the killed executor\'s lease is live');
  else t.comment('lease had already expired when probed (slow machine); claim probe skipped');
  const cps = await checkpoints(sql, requestId);
  t.notOk(cps.some((c) => c.unit_key.startsWith('chunk:')), 'no chunk checkpoint was written');
});

t.test('a successor completes at generation 2 with zero objects left', async (t) => {
  await waitLeaseExpired(sql, requestId);
  const run = await deletions(['run', requestId, '--executor-id', 'successor'], env);
  t.equal(run.code, 0, show(run));
  t.match(run.json, { kind: 'completed', requestId });
  t.equal(run.json.stages[0].stage, 'drained', 'resumed at drained, not from the start');

  const row = await requestRow(sql, requestId);
  t.match(row, { stage: 'retention_pending', lease_owner: null, lease_generation: '2', attempts: 2, retry_count: 0 });
  const chunkCps = (await checkpoints(sql, requestId)).filter((c) => c.unit_key.startsWith('chunk:'));
  t.same(
    chunkCps.map((c) => ({ unit: c.unit_key, status: c.status, attempts: c.attempts, generation: c.lease_generation, entries: c.detail.entries })),
    [
      { unit: 'chunk:0', status: 'completed', attempts: 1, generation: '2', entries: 10_000 },
      { unit: 'chunk:1', status: 'completed', attempts: 1, generation: '2', entries: 1 },
    ],
    'both chunks stamped once, by generation 2',
  );
  t.equal(chunkCps[0]!.detail.deleted + chunkCps[0]!.detail.already_missing, 10_000, 'chunk 0 re-deleted idempotently');
  t.equal(chunkCps[0]!.detail.requests, 10, 'in ten bulk requests of at most 1,000');
  for (const prefix of [metaPrefix, `_uploads/${targetId}/`, `repos/${targetId}/`]) t.equal(await countVersions(prefix), 0, `${prefix} is empty`);
  const [left] = await sql<{ n: number }[]>`select count(*)::int as n from public.community_deletion_manifest_keys where request_id = ${requestId}`;
  t.equal(left!.n, 0, 'the key chunks were dropped after verification');
  t.same(await fingerprint(sql, bucket.store, redis, bystander.id), bystanderBefore, 'bystander byte-identical in all three stores');
});
