// SIGTERM stops a `worker` cleanly: holding a claim, it releases the lease
// without recording a failure (no failed checkpoint, no retry, no block) and
// exits 143 (128 + SIGTERM: interrupted, never 0), so another executor can claim at once rather than waiting for the
// lease to expire; idle, it exits at once instead of finishing its backoff
// (an hour long here, so waiting it out would fail the test on any machine).
import t from 'tap';
import {
  checkpoints, deletions, e2eStores, fingerprint, requestRow, seedCommunity, show, startDeletions, submitAndApprove, waitFor,
} from '../helpers/e2e.js';

const { db, sql, bucket, redis, env } = await e2eStores(t);
const tag = `sigterm-${process.pid}`;
const target = await seedCommunity(sql, bucket.store, redis, `target-${tag}.example`);
const bystander = await seedCommunity(sql, bucket.store, redis, `bystander-${tag}.example`);
const id = await submitAndApprove(sql, bucket.store, target.host);
const bystanderBefore = await fingerprint(sql, bucket.store, redis, bystander.id);

t.test('SIGTERM while holding a claim: lease released, no failure recorded, exit 143', async (t) => {
  // Default 60 s lease: only a real release lets the next run claim at once.
  const worker = startDeletions(['worker', '--executor-id', 'worker-1'], { ...env, DELETIONS_HEARTBEAT_SECONDS: '1' }, { pauseAt: 'after:fenced' });
  t.equal(await worker.paused, 'after:fenced');
  // The worker's liveness row appears with its first heartbeat.
  await waitFor(async () => {
    const rows = await sql`select 1 from community_deletion.executor_heartbeats where executor_id = 'worker-1' and request_id = ${id}`;
    return rows.length === 1;
  }, 'a heartbeat of worker-1');
  t.match(await requestRow(sql, id), { stage: 'drained', lease_owner: 'worker-1', lease_generation: '1' }, 'the worker holds the lease');

  // Paused, the worker would wait forever: only the SIGTERM handler ends it.
  process.kill(worker.pid, 'SIGTERM');
  const result = await worker.done;
  t.equal(result.code, 143, show(result));
  t.same(result.json, {
    executor_id: 'worker-1', mode: 'worker', claimed: 1, completed: 0, failed: 0, blocked: 0, stopped: 1, lease_lost: 0, interrupted_by: 'SIGTERM',
  }, 'the final output counts what the worker did, not every outcome');
  t.match(result.stderr, /SIGTERM received/);

  const row = await requestRow(sql, id);
  t.match(row, { stage: 'drained', lease_owner: null, lease_until: null, blocked_at: null, retry_count: 0, last_error: null, lease_generation: '1' });
  t.same((await checkpoints(sql, id)).filter((c) => c.status === 'failed'), [], 'no failed checkpoint');
  const [hb] = await sql<{ stopped: boolean; draining: boolean }[]>`
    select stopped_at is not null as stopped, draining from community_deletion.executor_heartbeats where executor_id = 'worker-1'`;
  t.same(hb, { stopped: true, draining: true }, 'the liveness row says stopped');

  const run = await deletions(['run', id], env);
  t.equal(run.code, 0, `claimable immediately after the release (${show(run)})`);
  t.match(run.json, { kind: 'completed' });
  t.match(await requestRow(sql, id), { stage: 'retention_pending', lease_generation: '2', retry_count: 0 });
  const after = await fingerprint(sql, bucket.store, redis, target.id);
  t.same({ rows: after.rows, versions: after.versions, keys: after.keys }, { rows: 0, versions: 0, keys: 0 }, 'target absent');
  t.same(await fingerprint(sql, bucket.store, redis, bystander.id), bystanderBefore, 'bystander byte-identical');
});

t.test('SIGTERM while idle: exits at once (143), not after its poll backoff', async (t) => {
  // After its first empty poll the worker sleeps an hour: only an
  // interruptible sleep lets it exit before the test's own time budget.
  const worker = startDeletions(['worker', '--executor-id', 'worker-idle', '--idle-min-seconds', '3600', '--idle-max-seconds', '3600'], env);
  await waitFor(async () => {
    const rows = await sql`
      select 1 from pg_stat_activity
      where datname = current_database() and application_name = 'deletions-executor'
        and state = 'idle' and query ilike '%community_deletion.claim%'`;
    return rows.length > 0;
  }, 'the idle worker to poll once');
  process.kill(worker.pid, 'SIGTERM');
  const result = await worker.done;
  t.equal(result.code, 143, show(result));
  t.equal(result.signal, null, 'it exited by itself (the harness did not kill it)');
  t.match(result.json, { executor_id: 'worker-idle', claimed: 0, completed: 0, interrupted_by: 'SIGTERM' });
  t.notOk('outcomes' in result.json, 'a worker does not list outcomes');
});

t.test('SIGINT while idle: exits 130', async (t) => {
  const worker = startDeletions(['worker', '--executor-id', 'worker-int', '--idle-min-seconds', '3600', '--idle-max-seconds', '3600', '--log-format', 'json'], env);
  await waitFor(async () => /"event":"idle"/.test(worker.stderr()), 'the idle worker to log its first idle poll');
  process.kill(worker.pid, 'SIGINT');
  const result = await worker.done;
  t.equal(result.code, 130, show(result));
  t.match(result.json, { executor_id: 'worker-int', interrupted_by: 'SIGINT' });
});

t.test('worker refuses idle intervals that make no sense', async (t) => {
  const result = await deletions(['worker', '--idle-min-seconds', '10', '--idle-max-seconds', '5'], env);
  t.equal(result.code, 2, show(result));
});
