// `deletions doctor` through the real CLI against real PostgreSQL, Redis and
// S3: every check passes on a good setup (exit 0); an unversioned bucket is a
// warning (still exit 0); a missing bucket, an unreachable Redis (a closed
// port) or a database at another engine schema fail (exit 5), each named in
// its check; an S3 endpoint that accepts connections and never answers fails
// within the DELETIONS_S3_* timeouts (it hung the doctor), and one answering
// 200 with an HTML page fails the listing check. JSON off a terminal:
// {"ok", "checks": [{service, check, status, detail}]}.
import http from 'node:http';
import net from 'node:net';
import t from 'tap';
import { CreateBucketCommand, DeleteBucketCommand } from '@aws-sdk/client-s3';
import { createTestDatabase } from '../helpers/db.js';
import { createTestBucket } from '../helpers/moto.js';
import { blackhole, cliEnv, deletions, show } from '../helpers/e2e.js';
import { freePort } from '../../src/dev/local-s3.js';

const db = await createTestDatabase();
t.teardown(() => db.drop());
const bucket = await createTestBucket(t);
const env = cliEnv(db, bucket);

type Check = { service: string; check: string; status: string; detail: string };
const statusOf = (json: { checks: Check[] }) => Object.fromEntries(json.checks.map((c) => [`${c.service}.${c.check}`, c.status]));
const detailOf = (json: { checks: Check[] }, key: string) => json.checks.find((c) => `${c.service}.${c.check}` === key)?.detail ?? '';

t.test('all good: every check passes (the write fence may warn when it is the PL/pgSQL fallback), exit 0', async (t) => {
  const r = await deletions(['doctor'], env);
  t.equal(r.code, 0, show(r));
  t.equal(r.json.ok, true);
  const s = statusOf(r.json);
  t.match(s, {
    'postgres.reachable': 'pass', 'postgres.schema_version': 'pass', 'postgres.roles': 'pass', 'postgres.write_fence': /^(pass|warn)$/,
    'postgres.event_triggers': 'pass', 'postgres.catalog': 'pass',
    's3.configured': 'pass', 's3.bucket': 'pass', 's3.versioning': 'pass', 's3.list_versions': 'pass',
    'redis.reachable': 'pass', 'redis.ping': 'pass', 'redis.db': 'pass',
  });
  t.notOk(r.json.checks.some((c: Check) => c.status === 'fail'), 'no check fails');
});

t.test('an unversioned bucket is a warning naming the fix; exit 0', async (t) => {
  const plain = `${bucket.config.bucket}-plain`;
  await bucket.client.send(new CreateBucketCommand({ Bucket: plain }));
  t.teardown(() => bucket.client.send(new DeleteBucketCommand({ Bucket: plain })));
  const r = await deletions(['doctor'], { ...env, BUZZ_S3_BUCKET: plain });
  t.equal(r.code, 0, show(r));
  t.equal(statusOf(r.json)['s3.versioning'], 'warn');
  t.match(detailOf(r.json, 's3.versioning'), /put-bucket-versioning/);
});

t.test('a missing bucket fails: exit 5', async (t) => {
  const r = await deletions(['doctor'], { ...env, BUZZ_S3_BUCKET: `${bucket.config.bucket}-missing` });
  t.equal(r.code, 5, show(r));
  t.equal(r.json.ok, false);
  t.match(statusOf(r.json), { 's3.bucket': 'fail', 's3.versioning': 'skip', 'postgres.schema_version': 'pass', 'redis.ping': 'pass' });
  t.match(detailOf(r.json, 's3.bucket'), /does not exist/);
});

t.test('an unreachable Redis (closed port) fails: exit 5', async (t) => {
  const port = await freePort();
  const r = await deletions(['doctor'], { ...env, REDIS_URL: `redis://127.0.0.1:${port}` });
  t.equal(r.code, 5, show(r));
  t.match(statusOf(r.json), { 'redis.reachable': 'fail', 'redis.ping': 'skip', 's3.bucket': 'pass' });
  t.match(detailOf(r.json, 'redis.reachable'), new RegExp(`127\\.0\\.0\\.1:${port}`));
});

t.test('a database without the engine schema fails the version check: exit 5', async (t) => {
  const empty = await createTestDatabase({ empty: true });
  t.teardown(() => empty.drop());
  const r = await deletions(['doctor'], { ...env, DATABASE_URL: empty.url });
  t.equal(r.code, 5, show(r));
  t.match(statusOf(r.json), { 'postgres.reachable': 'pass', 'postgres.schema_version': 'fail', 'postgres.write_fence': 'skip' });
  t.match(detailOf(r.json, 'postgres.schema_version'), /deletions migrate/);
});

t.test('missing settings fail their service and name the variable: exit 5', async (t) => {
  const r = await deletions(['doctor'], { ...env, REDIS_URL: undefined, BUZZ_S3_ENDPOINT: undefined });
  t.equal(r.code, 5, show(r));
  t.match(statusOf(r.json), { 'redis.configured': 'fail', 's3.configured': 'fail', 'postgres.catalog': 'pass' });
  t.match(detailOf(r.json, 'redis.configured'), /REDIS_URL/);
  t.match(detailOf(r.json, 's3.configured'), /BUZZ_S3_ENDPOINT/);
});


// No wall-clock assertion: it must end (tap's timeout and the child's budget
// are the only clocks) with exit 5, the S3 check failed and the others run.
t.test('an S3 endpoint that accepts connections and never answers fails within the S3 timeouts: exit 5', { timeout: 150_000 }, async (t) => {
  const hole = await blackhole(t);
  const r = await deletions(['doctor'], {
    ...env,
    BUZZ_S3_ENDPOINT: `http://127.0.0.1:${hole.port}`,
    DELETIONS_S3_CONNECT_TIMEOUT_SECONDS: '2',
    DELETIONS_S3_REQUEST_TIMEOUT_SECONDS: '2',
  }, { timeoutMs: 120_000 });
  t.equal(r.signal, null, `it ended by itself: ${show(r)}`);
  t.equal(r.code, 5, show(r));
  t.equal(r.json?.ok, false);
  t.match(statusOf(r.json), { 's3.bucket': 'fail', 's3.versioning': 'skip', 's3.list_versions': 'skip', 'postgres.catalog': 'pass', 'redis.ping': 'pass' });
  t.match(detailOf(r.json, 's3.bucket'), /not reachable/);
  t.ok(hole.connections() > 0, 'the doctor did reach the silent endpoint');
});

t.test('an S3 endpoint answering 200 with an HTML page fails the listing check: exit 5', async (t) => {
  const page = '<html><body><h1>Service temporarily under maintenance</h1></body></html>';
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(page) });
      res.end(req.method === 'HEAD' ? undefined : page);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const r = await deletions(['doctor'], { ...env, BUZZ_S3_ENDPOINT: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` });
  t.equal(r.code, 5, show(r));
  t.equal(statusOf(r.json)['s3.list_versions'], 'fail');
  t.match(detailOf(r.json, 's3.list_versions'), /malformed_listing.*ListVersionsResult/);
});
