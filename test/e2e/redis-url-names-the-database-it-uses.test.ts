// REDIS_URL is the Redis store identity a deletion is recorded and checked
// against, so it must name exactly what the engine touches. Through the real
// CLI against real PostgreSQL, Redis and S3:
//  * a database the server does not have (an index ≥ its `databases`
//    setting; ioredis would silently stay in database 0) is refused with exit
//    5 naming the database and the server's limit — by `doctor` (its
//    redis.db check fails instead of reporting the database as selected),
//    `plan`, `submit` (no request created) and `run` (recorded against the
//    request before the claim) — and nothing is deleted from database 0;
//  * a query parameter (`keyPrefix`, `db`), which would change the keys or
//    the database without changing the identity, is refused by name (exit 5);
//  * an IPv6 address (`redis://[::1]:port/n`) is recorded as `[::1]:port`
//    and a deletion through it completes (recorded unbracketed, `::1:port`,
//    SQL refused it with DL1I1 after submit had created the request).
import net from 'node:net';
import t from 'tap';
import {
  REDIS_URL, approverEnv, deletions, e2eStores, fingerprint, requestRow, seedCommunity, show, submitAndApprove,
} from '../helpers/e2e.js';

const { sql, bucket, redis, env } = await e2eStores(t);
const base = REDIS_URL.replace(/\/\d*$/, '');
const [, databases] = (await redis.call('CONFIG', 'GET', 'databases')) as [string, string];
const limit = Number(databases);
const missingDb = `${base}/${limit}`;
const refusal = new RegExp(`database ${limit}\\b.*refuses.*has ${limit} databases \\(0\\.\\.${limit - 1}`);

const tag = `redisdb-${process.pid}`;
const target = await seedCommunity(sql, bucket.store, redis, `target-${tag}.example`, { rows: 1, keys: 1, versions: 1, redisKeys: 3 });
const before = await fingerprint(sql, bucket.store, redis, target.id);
const requestCount = async () => Number((await sql<{ n: string }[]>`
  select count(*) as n from community_deletion.requests where community_id = ${target.id}`)[0]!.n);

type Check = { service: string; check: string; status: string; detail: string };
const checkOf = (json: { checks: Check[] }, key: string) => json.checks.find((c) => `${c.service}.${c.check}` === key);

t.test(`doctor: database ${limit} on a server with ${limit} databases fails redis.db (exit 5) instead of reporting it selected`, async (t) => {
  t.ok(Number.isSafeInteger(limit) && limit > 0, `CONFIG GET databases answered ${databases}`);
  const r = await deletions(['doctor'], { ...env, REDIS_URL: missingDb });
  t.equal(r.code, 5, show(r));
  t.equal(r.json.ok, false);
  t.match(checkOf(r.json, 'redis.reachable'), { status: 'pass' });
  t.match(checkOf(r.json, 'redis.db'), { status: 'fail', detail: refusal });
  t.notMatch(JSON.stringify(r.json), /database \d+ selected/, 'no database is reported as selected');

  const good = await deletions(['doctor'], { ...env, REDIS_URL: `${base}/${limit - 1}` });
  t.match(checkOf(good.json, 'redis.db'), { status: 'pass', detail: new RegExp(`^database ${limit - 1} selected`) }, show(good));
});

t.test('plan and submit refuse it: exit 5 naming REDIS_URL, no request created', async (t) => {
  const plan = await deletions(['plan', '--host', target.host], { ...env, REDIS_URL: missingDb });
  t.equal(plan.code, 5, show(plan));
  t.match(plan.json, { exit_code: 5, variable: 'REDIS_URL', error: refusal });
  const submit = await deletions(['submit', '--host', target.host, '--requested-by', 'alice@ops'], { ...env, REDIS_URL: missingDb });
  t.equal(submit.code, 5, show(submit));
  t.match(submit.json, { exit_code: 5, variable: 'REDIS_URL', error: refusal });
  t.equal(await requestCount(), 0, 'no request was created');
});

t.test('run refuses it before the claim (exit 5, recorded against the request); nothing is deleted', async (t) => {
  const id = await submitAndApprove(sql, bucket.store, target.host);
  const r = await deletions(['run', id, '--executor-id', 'exec-redis-db'], { ...env, REDIS_URL: missingDb });
  t.equal(r.code, 5, show(r));
  t.match(r.json, { exit_code: 5, variable: 'REDIS_URL', error: refusal });
  const row = await requestRow(sql, id);
  t.equal(row.stage, 'approved', 'no stage was run');
  t.match(row, { blocked_reason: refusal }, 'inspect explains it');
  t.same(await fingerprint(sql, bucket.store, redis, target.id), before, 'the community is untouched in every store, Redis database 0 included');
});

t.test('query parameters of REDIS_URL are refused by name: exit 5, nothing touched', async (t) => {
  for (const [query, name] of [['keyPrefix=zz:', 'keyPrefix'], ['db=3', 'db']] as const) {
    const url = `${base}/0?${query}`;
    const doctor = await deletions(['doctor'], { ...env, REDIS_URL: url });
    t.equal(doctor.code, 5, show(doctor));
    t.match(checkOf(doctor.json, 'redis.configured'), { status: 'fail', detail: new RegExp(`"${name}"`) });
    const plan = await deletions(['plan', '--host', target.host], { ...env, REDIS_URL: url });
    t.equal(plan.code, 5, show(plan));
    t.match(plan.json, { variable: 'REDIS_URL', error: new RegExp(`query parameters \\(got "${name}"\\)`) });
    const drain = await deletions(['drain', '--executor-id', `exec-query-${name}`], { ...env, REDIS_URL: url });
    t.equal(drain.code, 5, show(drain));
    t.match(drain.json, { variable: 'REDIS_URL', error: new RegExp(`"${name}"`) });
  }
  t.same(await fingerprint(sql, bucket.store, redis, target.id), before, 'the community is untouched');
});

/**
 * A TCP forwarder listening on the IPv6 loopback to the test Redis (which
 * may listen on 127.0.0.1 only), or null when this machine has no ::1.
 */
async function ipv6Forwarder(t: { teardown(fn: () => unknown): void }): Promise<number | null> {
  const upstream = new URL(REDIS_URL);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const out = net.connect(Number(upstream.port || 6379), upstream.hostname.replace(/^\[|\]$/g, ''));
    for (const s of [client, out]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        out.destroy();
      });
    }
    client.pipe(out).pipe(client);
  });
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(0, '::1', () => resolve(true));
  });
  if (!listening) return null;
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return (server.address() as net.AddressInfo).port;
}

t.test('an IPv6 REDIS_URL is recorded as [::1]:port; submit, approve and run complete through it', async (t) => {
  const port = await ipv6Forwarder(t);
  if (port === null) {
    t.plan(0, 'no IPv6 loopback on this machine');
    return;
  }
  const database = new URL(REDIS_URL).pathname.replace(/^\//, '') || '0';
  const v6 = { ...env, REDIS_URL: `redis://[::1]:${port}/${database}` };
  const c = await seedCommunity(sql, bucket.store, redis, `ipv6-${tag}.example`, { rows: 1, keys: 1, versions: 1, redisKeys: 3 });
  const submit = await deletions(['submit', '--host', c.host, '--requested-by', 'alice@ops'], v6);
  t.equal(submit.code, 0, show(submit));
  t.match(submit.json, { stage: 'inventoried' });
  const id = submit.json.id as string;
  const approve = await deletions(['approve', id, '--approved-by', 'bob@ops'], approverEnv(v6));
  t.equal(approve.code, 0, show(approve));
  const run = await deletions(['run', id, '--executor-id', 'exec-ipv6'], v6);
  t.equal(run.code, 0, show(run));
  t.match(run.json, { kind: 'completed' });
  const inspect = await deletions(['inspect', id], v6);
  t.match(inspect.json?.request, { store_identity: { redis_server: `[::1]:${port}`, redis_db: Number(database) } }, show(inspect));
  t.match(await fingerprint(sql, bucket.store, redis, c.id, { pg: false }), { versions: 0, keys: 0 }, 'deleted through the IPv6 address');
});
