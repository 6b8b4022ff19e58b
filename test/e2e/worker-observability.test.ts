// A worker an operator can watch: with --log-format json every stderr line is
// a JSON object (start with a secret-free configuration summary, claims,
// stage steps, failures, idle heartbeats); --metrics-port serves Prometheus
// metrics whose values match what happened (requests by state from SQL,
// claims, completions, stage durations, failures, retries, blocks, last
// heartbeat); its final output counts what it did. One request completes;
// another, whose community lock a foreign session holds, fails twice
// (transient, lock_timeout) and is blocked at the second failure.
import t from 'tap';
import postgres from 'postgres';
import {
  cliEnv, e2eStores, requestRow, seedCommunity, show, startDeletions, submitAndApprove, waitFor,
} from '../helpers/e2e.js';

const { db, sql, bucket, redis } = await e2eStores(t);
const tag = `obs-${process.pid}`;
const secret = `sekrit-${process.pid}-${Date.now()}`;
const env = cliEnv(db, bucket, { BUZZ_S3_SECRET_KEY: secret });
const good = await seedCommunity(sql, bucket.store, redis, `good-${tag}.example`);
const locked = await seedCommunity(sql, bucket.store, redis, `locked-${tag}.example`);
const goodId = await submitAndApprove(sql, bucket.store, good.host);
const lockedId = await submitAndApprove(sql, bucket.store, locked.host);
await sql`update community_deletion.settings
             set lock_timeout = interval '300 milliseconds', max_consecutive_failures = 2,
                 retry_base_delay = interval '100 milliseconds', retry_max_delay = interval '100 milliseconds'`;

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`unparseable metrics line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

t.test('JSON logs, /metrics and the final summary of a worker', async (t) => {
  const mallory = postgres(db.url, { max: 1, onnotice: () => {}, connection: { application_name: 'mallory-psql' } });
  t.teardown(() => mallory.end({ timeout: 5 }));
  await mallory`select pg_advisory_lock(community_deletion._community_lock_key(${locked.id}::uuid))`;

  const worker = startDeletions([
    'worker', '--executor-id', 'obs-worker', '--log-format', 'json', '--metrics-port', '0',
    '--idle-min-seconds', '1', '--idle-max-seconds', '1', '--idle-log-seconds', '1',
  ], env);
  const records = (): Record<string, any>[] =>
    worker.stderr().split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, any>);
  await waitFor(async () => {
    const r = records();
    return r.some((e) => e.event === 'failure' && e.blocked === true) && r.some((e) => e.event === 'idle')
      && r.some((e) => e.event === 'completed' && e.request_id === goodId);
  }, 'the worker to complete one request, block the other and go idle');
  t.match(await requestRow(sql, goodId), { stage: 'retention_pending' });
  t.match(await requestRow(sql, lockedId), { stage: 'approved', retry_count: 2 });
  t.ok((await requestRow(sql, lockedId)).blocked_at, 'the locked request is blocked');

  const lines = worker.stderr().split('\n').filter((l) => l.trim() !== '');
  t.ok(lines.length > 0);
  for (const line of lines) t.doesNotThrow(() => JSON.parse(line), `a JSON line: ${line.slice(0, 80)}`);
  const all = records();
  for (const r of all) t.match(r, { level: String, time: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, msg: String }, 'level, ISO time and msg');
  const start = all.find((r) => r.event === 'start');
  t.match(start, {
    mode: 'worker', executor_id: 'obs-worker', schema_version: Number,
    database: new RegExp(`database "${db.name}" on 127.0.0.1:5432`),
    s3: { bucket: bucket.config.bucket, endpoint: bucket.config.endpoint, credentials: /static/ },
    redis: String, timeouts_ms: { s3_request: 60_000, redis_command: 30_000, pg_connect: 10_000 },
    metrics: /^http:\/\/127\.0\.0\.1:\d+\/metrics$/,
  }, 'start: a configuration summary');
  t.notOk(worker.stderr().includes(secret), 'no secret in the logs');
  t.same(all.filter((r) => r.event === 'claim').map((r) => r.request_id), [goodId, lockedId, lockedId], 'one claim event per claim');
  t.ok(all.filter((r) => r.event === 'idle').every((r) => typeof r.idle_seconds === 'number'), 'idle heartbeats');

  const metricsUrl = start!.metrics as string;
  const response = await fetch(metricsUrl);
  t.equal(response.status, 200);
  t.match(response.headers.get('content-type'), /text\/plain/);
  const text = await response.text();
  const samples = parseMetrics(text);
  t.equal(value(samples, 'deletions_requests', { state: 'completed' }), 1, 'requests by state (from SQL): one completed');
  t.equal(value(samples, 'deletions_requests', { state: 'blocked' }), 1, 'and one blocked');
  t.equal(value(samples, 'deletions_claims_total', { executor_id: 'obs-worker', mode: 'worker' }), 3, 'three claims');
  t.equal(value(samples, 'deletions_completed_total'), 1);
  t.equal(value(samples, 'deletions_failures_total', { stage: 'approved', kind: 'transient' }), 2, 'two transient failures at approved');
  t.equal(value(samples, 'deletions_retries_total', { stage: 'approved' }), 1, 'the first was retried');
  t.equal(value(samples, 'deletions_blocks_total', { stage: 'approved' }), 1, 'the second blocked');
  for (const stage of ['approved', 'fenced', 'drained', 'bindings_removed', 'postgres_purged', 'cache_purged', 'logically_verified']) {
    t.equal(value(samples, 'deletions_stage_duration_seconds_count', { stage }), 1, `one ${stage} step timed`);
  }
  const beat = value(samples, 'deletions_last_heartbeat_timestamp_seconds');
  t.ok(beat !== undefined && beat > Date.now() / 1000 - 3600 && beat <= Date.now() / 1000 + 60, 'last heartbeat is a recent unix time');
  t.equal((await fetch(metricsUrl.replace('/metrics', '/other'))).status, 404, 'only /metrics is served');

  process.kill(worker.pid, 'SIGTERM');
  const result = await worker.done;
  t.equal(result.code, 143, show(result));
  t.same(result.json, {
    executor_id: 'obs-worker', mode: 'worker', claimed: 3, completed: 1, failed: 2, blocked: 1, stopped: 0, lease_lost: 0, interrupted_by: 'SIGTERM',
  }, 'the final output: counts');
  t.match(records().find((r) => r.event === 'summary'), { claimed: 3, completed: 1, failed: 2, blocked: 1 }, 'and a summary log record');
});

t.test('text logs: one readable line per record', async (t) => {
  const worker = startDeletions(['worker', '--executor-id', 'text-worker', '--log-format', 'text', '--idle-log-seconds', '1'], env);
  await waitFor(async () => / INFO idle: nothing claimable /.test(worker.stderr()), 'an idle line');
  process.kill(worker.pid, 'SIGTERM');
  const result = await worker.done;
  t.equal(result.code, 143, show(result));
  t.match(result.stderr, /^\d{4}-\d\d-\d\dT[\d:.]+Z INFO worker text-worker started .*event=start/m);
  t.notOk(result.stderr.includes(secret));
});

t.test('a bad --metrics-port is a usage error', async (t) => {
  const r = await startDeletions(['worker', '--metrics-port', '70000'], env).done;
  t.equal(r.code, 2, show(r));
});
