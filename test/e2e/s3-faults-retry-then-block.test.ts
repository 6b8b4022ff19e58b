// Injected S3 failures (503 SlowDown from a proxy in front of the S3 server)
// are transient: each run records a failed checkpoint and a retry with
// exponential backoff (settings: 100 ms base, 200 ms cap) and exits 1; a stage
// advance resets the streak; the 8th consecutive failure at one stage blocks
// the request durably (inspect shows it; run then exits 3). Once the fault is
// gone, unblock + run completes, and nothing was deleted while S3 failed.
import t from 'tap';
import { createTestDatabase } from '../helpers/db.js';
import { createTestBucket } from '../helpers/moto.js';
import { startFaultProxy } from '../helpers/s3-fault-proxy.js';
import { checkpoints, cliEnv, deletions, fingerprint, redisClient, requestRow, seedCommunity, show, sleep, type CliResult, approverEnv } from '../helpers/e2e.js';

const db = await createTestDatabase();
t.teardown(() => db.drop());
const bucket = await createTestBucket(t);
const proxy = await startFaultProxy(bucket.config.endpoint);
t.teardown(() => proxy.close());
const redis = redisClient();
t.teardown(() => redis.disconnect());
const sql = db.sql;
// Through the proxy; one HTTP attempt per S3 call (no SDK-internal retries),
// so the engine's own retry policy is what is observed.
const env = cliEnv(db, { config: { ...bucket.config, endpoint: proxy.endpoint } }, { AWS_MAX_ATTEMPTS: '1' });
const tag = `faults-${process.pid}`;
const target = await seedCommunity(sql, bucket.store, redis, `target-${tag}.example`);
const bystander = await seedCommunity(sql, bucket.store, redis, `bystander-${tag}.example`);
const targetBefore = await fingerprint(sql, bucket.store, redis, target.id);
const bystanderBefore = await fingerprint(sql, bucket.store, redis, bystander.id);
await sql`update community_deletion.settings set retry_base_delay = '100 milliseconds', retry_max_delay = '200 milliseconds'`;

let id = '';

/** `run`, waiting out a retry delay that has not yet passed (exit 3, retry_wait). */
async function runWhenDue(): Promise<CliResult> {
  for (;;) {
    const r = await deletions(['run', id], env);
    if (r.code === 3 && r.json?.state === 'retry_wait') {
      await sleep(50);
      continue;
    }
    return r;
  }
}

/** The delay SQL scheduled after the last failure, in ms. */
async function scheduledDelay(): Promise<number> {
  const row = await requestRow(sql, id);
  return row.next_attempt_at.getTime() - row.last_error_at!.getTime();
}

t.test('submit and approve through the proxy', async (t) => {
  const submitted = await deletions(['submit', '--host', target.host, '--requested-by', 'alice@ops'], env);
  t.equal(submitted.code, 0, show(submitted));
  id = submitted.json.id;
  const approved = await deletions(['approve', id, '--approved-by', 'bob@ops'], approverEnv(env));
  t.equal(approved.code, 0, show(approved));
});

t.test('a throttled version listing fails the preflight transiently (exit 1, retry scheduled)', async (t) => {
  proxy.faults.add('ListObjectVersions');
  const run = await runWhenDue();
  proxy.faults.delete('ListObjectVersions');
  t.equal(run.code, 1, show(run));
  t.match(run.json, { kind: 'failure_recorded', stage: 'approved', retryable: true, blocked: false, error: /SlowDown/ });
  t.equal(proxy.faulted.ListObjectVersions, 1, 'one HTTP attempt');
  const row = await requestRow(sql, id);
  t.match(row, { stage: 'approved', retry_count: 1, retry_stage: 'approved', blocked_at: null, lease_owner: null });
  const delay = await scheduledDelay();
  t.ok(delay >= 100 && delay <= 111, `first retry after 100 ms (+≤10 % jitter), got ${delay} ms`);
  const [c] = await sql<{ deletion_state: string }[]>`select deletion_state from public.communities where id = ${target.id}`;
  t.equal(c!.deletion_state, 'active', 'the failed preflight came before quiescing');
  const failed = (await checkpoints(sql, id)).filter((cp) => cp.status === 'failed');
  t.match(failed, [{ stage: 'approved', unit_key: 'storage_preflight', attempts: 1, detail: { retryable: true, retry_count: 1 } }]);
});

t.test('throttled bulk deletes: progress resets the streak, the 8th consecutive failure blocks', async (t) => {
  proxy.faults.add('DeleteObjects');
  for (let n = 1; n <= 8; n++) {
    const run = await runWhenDue();
    t.equal(run.code, 1, `failure ${n}: exit 1 (${show(run)})`);
    t.match(run.json, { kind: 'failure_recorded', stage: 'drained', retryable: true, blocked: n === 8 }, `failure ${n}`);
    const row = await requestRow(sql, id);
    t.match(row, { stage: 'drained', retry_count: n, retry_stage: 'drained', lease_owner: null }, `failure ${n}: streak ${n} at drained`);
    if (n < 8) {
      t.equal(row.blocked_at, null, `failure ${n}: not blocked`);
      const delay = await scheduledDelay();
      const base = n === 1 ? 100 : 200;
      t.ok(delay >= base && delay <= base * 1.1 + 1, `failure ${n}: retry after ${base} ms (+≤10 %), got ${delay} ms`);
    } else {
      t.not(row.blocked_at, null, 'the 8th consecutive failure blocks durably');
      t.match(row.blocked_reason, /8 consecutive failures at stage drained/);
    }
  }
  t.equal(proxy.faulted.DeleteObjects, 8, 'one throttled DeleteObjects per run');
  const chunkCp = (await checkpoints(sql, id)).filter((c) => c.unit_key === 'chunk:0');
  t.match(chunkCp, [{ stage: 'drained', status: 'failed', attempts: 8, error: /SlowDown/ }]);
  const [stamped] = await sql<{ n: number }[]>`select count(*)::int as n from community_deletion.manifest_keys where request_id = ${id} and deleted_at is not null`;
  t.equal(stamped!.n, 0, 'no chunk stamped deleted');
  const now = await fingerprint(sql, bucket.store, redis, target.id);
  t.same({ versions: now.versions, s3: now.s3 }, { versions: targetBefore.versions, s3: targetBefore.s3 }, 'every target version is still in S3');
});

t.test('inspect shows the block; run is refused (exit 3) while blocked', async (t) => {
  const inspect = await deletions(['inspect', id], env);
  t.equal(inspect.code, 0, show(inspect));
  t.match(inspect.json, { state: 'blocked', explanation: /8 consecutive failures/, request: { stage: 'drained', retry_count: 8 } });
  const run = await deletions(['run', id], env);
  t.equal(run.code, 3, show(run));
  t.match(run.json, { outcome: 'not_runnable', state: 'blocked' });
  t.equal(proxy.faulted.DeleteObjects, 8, 'the refused run never reached S3');
});

t.test('fault cleared, unblock, run: completes', async (t) => {
  proxy.faults.clear();
  const unblocked = await deletions(['unblock', id, '--unblocked-by', 'carol@ops', '--reason', 'S3 throttling is over'], env);
  t.equal(unblocked.code, 0, show(unblocked));
  t.match(unblocked.json, { blocked_at: null, retry_count: 0, stage: 'drained' });
  const run = await deletions(['run', id], env);
  t.equal(run.code, 0, show(run));
  t.match(run.json, { kind: 'completed' });
  t.match(await requestRow(sql, id), { stage: 'retention_pending', retry_count: 0 });
  const after = await fingerprint(sql, bucket.store, redis, target.id);
  t.same({ rows: after.rows, versions: after.versions, keys: after.keys }, { rows: 0, versions: 0, keys: 0 }, 'target absent');
  t.same(await fingerprint(sql, bucket.store, redis, bystander.id), bystanderBefore, 'bystander byte-identical');
});
