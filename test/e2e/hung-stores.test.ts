// No hangs: a store that accepts connections and never answers, or one that
// is not there, cannot make `run` hang holding its lease. Each S3 request,
// Redis command and PostgreSQL connect has a timeout (DELETIONS_*_TIMEOUT_SECONDS,
// set to 2 s here); a timeout is a transient failure recorded on the normal
// retry path (exit 1, lease released); an unreachable database is exit 5
// naming it; SIGTERM during a hung S3 request (whose own timeout is an hour
// here, so only the abort can end it) exits 143 with the lease released.
// Assertions are on outcomes, never on elapsed time: tap's timeout is the
// only clock.
import net from 'node:net';
import t, { type Test } from 'tap';
import {
  checkpoints, cliEnv, deletions, e2eStores, requestRow, seedCommunity, show, startDeletions, submitAndApprove, waitFor,
  blackhole,
} from '../helpers/e2e.js';


/** A loopback port nothing listens on (bound once, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const { db, sql, bucket, redis } = await e2eStores(t);
const tag = `hung-${process.pid}`;
const fast = {
  DELETIONS_S3_CONNECT_TIMEOUT_SECONDS: '2', DELETIONS_S3_REQUEST_TIMEOUT_SECONDS: '2',
  DELETIONS_REDIS_CONNECT_TIMEOUT_SECONDS: '2', DELETIONS_REDIS_COMMAND_TIMEOUT_SECONDS: '2', DELETIONS_PG_CONNECT_TIMEOUT_SECONDS: '2',
};
const env = cliEnv(db, bucket, fast);

/** Listed from the real stores, recorded against the ones the run will use (the stalled one). */
async function approvedRequest(name: string, stores: { s3Endpoint?: string; redisUrl?: string } = {}): Promise<string> {
  const c = await seedCommunity(sql, bucket.store, redis, `${name}-${tag}.example`);
  return submitAndApprove(sql, bucket.store, c.host, stores);
}

async function assertReleasedWithTransientFailure(t: Test, id: string, stage: string, error: RegExp): Promise<void> {
  const row = await requestRow(sql, id);
  t.match(row, { stage, lease_owner: null, lease_until: null, retry_count: 1, blocked_at: null }, 'lease released, one retry scheduled');
  const failed = (await checkpoints(sql, id)).filter((c) => c.status === 'failed');
  t.equal(failed.length, 1, 'one failed checkpoint');
  t.match(failed[0]?.error, error);
}

t.test('an S3 endpoint that never answers: a recorded transient failure, exit 1', async (t) => {
  const hole = await blackhole(t);
  const id = await approvedRequest('s3', { s3Endpoint: `http://127.0.0.1:${hole.port}` });
  const r = await deletions(['run', id, '--executor-id', 'exec-s3'], { ...env, BUZZ_S3_ENDPOINT: `http://127.0.0.1:${hole.port}` });
  t.equal(r.code, 1, show(r));
  t.match(r.json, { kind: 'failure_recorded', stage: 'approved', retryable: true, blocked: false });
  t.ok(hole.connections() > 0, 'the executor did reach the silent endpoint');
  await assertReleasedWithTransientFailure(t, id, 'approved', /ETIMEDOUT|TimeoutError/);
});

t.test('a Redis that accepts connections and never answers: a recorded transient failure, exit 1', async (t) => {
  const hole = await blackhole(t);
  const id = await approvedRequest('redis-silent', { redisUrl: `redis://127.0.0.1:${hole.port}` });
  const r = await deletions(['run', id, '--executor-id', 'exec-redis-silent'], { ...env, REDIS_URL: `redis://127.0.0.1:${hole.port}` });
  t.equal(r.code, 1, show(r));
  t.match(r.json, { kind: 'failure_recorded', stage: 'fenced', retryable: true, blocked: false });
  await assertReleasedWithTransientFailure(t, id, 'fenced', /command_timeout|connection_unavailable|aborted_while_reconnecting/);
});

t.test('a stopped Redis (nothing listening): a recorded transient failure, exit 1', async (t) => {
  const port = await closedPort();
  const id = await approvedRequest('redis-stopped', { redisUrl: `redis://127.0.0.1:${port}` });
  const r = await deletions(['run', id, '--executor-id', 'exec-redis-stopped', '--log-format', 'json'], { ...env, REDIS_URL: `redis://127.0.0.1:${port}` });
  t.equal(r.code, 1, show(r));
  t.notMatch(r.stderr, /Unhandled error event/, 'connection errors surface as the command failure only');
  t.match(r.json, { kind: 'failure_recorded', stage: 'fenced', retryable: true, blocked: false });
  await assertReleasedWithTransientFailure(t, id, 'fenced', /ECONNREFUSED|aborted_while_reconnecting|command_timeout|connection_unavailable/);
});

t.test('a blackholed DATABASE_URL: exit 5 naming the database, for the executor and the operator commands', async (t) => {
  const hole = await blackhole(t);
  const url = `postgres://postgres@127.0.0.1:${hole.port}/blackholed_db`;
  for (const args of [['run', '00000000-0000-4000-8000-000000000000'], ['worker'], ['list']]) {
    const r = await deletions(args, { ...env, DATABASE_URL: url });
    t.equal(r.code, 5, `${args[0]}: ${show(r)}`);
    t.match(r.stderr, /database "blackholed_db" on 127\.0\.0\.1:\d+ \(DATABASE_URL\): no answer within 2 s/, `${args[0]}: names the database`);
    t.notMatch(r.stderr, /\n\s+at /, `${args[0]}: no stack trace`);
  }
  t.ok(hole.connections() > 0);
});

t.test('a database that does not exist: exit 5 saying so', async (t) => {
  const r = await deletions(['list'], { ...env, DATABASE_URL: `postgres://postgres@127.0.0.1:5432/no_such_db_${process.pid}` });
  t.equal(r.code, 5, show(r));
  t.match(r.stderr, /database "no_such_db_\d+" on 127\.0\.0\.1:5432 \(DATABASE_URL\): the database does not exist/);
});

t.test('SIGTERM during a hung S3 request: exit 143, lease released, nothing recorded', async (t) => {
  const hole = await blackhole(t);
  const id = await approvedRequest('sigterm', { s3Endpoint: `http://127.0.0.1:${hole.port}` });
  const run = startDeletions(['run', id, '--executor-id', 'exec-term', '--log-format', 'json'], {
    ...env, BUZZ_S3_ENDPOINT: `http://127.0.0.1:${hole.port}`, DELETIONS_S3_REQUEST_TIMEOUT_SECONDS: '3600',
  });
  await waitFor(async () => hole.connections() > 0, 'the executor to send its S3 request');
  t.match(await requestRow(sql, id), { lease_owner: 'exec-term' }, 'it holds the lease while the request hangs');
  process.kill(run.pid, 'SIGTERM');
  const r = await run.done;
  t.equal(r.code, 143, show(r));
  t.equal(r.signal, null, 'it exited by itself');
  t.match(r.json, { kind: 'stopped', request_id: id, stage: 'approved' });
  for (const line of r.stderr.split('\n').filter((l) => l.trim() !== '')) t.doesNotThrow(() => JSON.parse(line), `a JSON log line: ${line.slice(0, 60)}`);
  t.match(await requestRow(sql, id), { stage: 'approved', lease_owner: null, lease_until: null, retry_count: 0, blocked_at: null, last_error: null });
  t.same((await checkpoints(sql, id)).filter((c) => c.status === 'failed'), [], 'no failure recorded');
});
