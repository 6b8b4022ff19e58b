// A stalled PostgreSQL cannot hang the executor. A server or network path
// that stops answering (the connection stays open, nothing comes back) is
// beyond every server-side timeout — statement_timeout runs on the server,
// which never sees the call — so the executor bounds each SQL call itself:
//   * everything stalls (heartbeats too): no heartbeat gets through, the
//     lease would have expired on the server, and the call in flight is
//     abandoned at that local deadline;
//   * only the executor's own connections stall while its heartbeat still
//     gets through (the lease stays live): the call is abandoned after
//     statement_timeout + 10 s and the executor stops heartbeating, so the
//     lease can expire for a successor.
// Either way the run ends by itself, lease_lost (exit 3), and a successor
// completes from the checkpoints. The stalls come from a TCP proxy in front
// of PostgreSQL that swallows the traffic of the chosen connections; the
// executor is paused at a step boundary (test/helpers/pausing-cli.ts) while
// the proxy stalls, then let go into its next SQL call. Nothing depends on the
// machine's speed: each run is waited for with a wide budget, and the
// successor claims only after the test ended the lease.
import t, { type Test } from 'tap';
import {
  deletions, e2eStores, expireLease, fingerprint, requestRow, seedCommunity, show, startDeletions, submitAndApprove, type Env,
} from '../helpers/e2e.js';
import { startStallProxy } from '../helpers/pg-stall-proxy.js';

const { db, sql, bucket, redis, env } = await e2eStores(t);
const tag = `stall-${process.pid}`;
const bystander = await seedCommunity(sql, bucket.store, redis, `bystander-${tag}.example`);
const bystanderBefore = await fingerprint(sql, bucket.store, redis, bystander.id);

/**
 * Runs a request through the proxy to the step boundary after `fenced`,
 * stalls the chosen connections, lets the executor go on and waits (a wide
 * budget: a hang is a failure, not a timeout of ours) for it to end.
 */
async function stalledRun(t: Test, name: string, extra: Env, stalls: (app: string | null) => boolean) {
  const target = await seedCommunity(sql, bucket.store, redis, `${name}-${tag}.example`);
  const id = await submitAndApprove(sql, bucket.store, target.host);
  const proxy = await startStallProxy(t, db.url);
  const run = startDeletions(['run', id, '--executor-id', `stalled-${name}`], { ...env, DATABASE_URL: proxy.via(db.url), ...extra },
    { pauseAt: 'after:fenced', timeoutMs: 300_000 });
  t.equal(await run.paused, 'after:fenced', 'the executor reached the boundary through the proxy');
  proxy.stall(stalls);
  t.ok(proxy.connections().some((c) => c.applicationName === 'deletions-executor' && c.stalled), 'the executor\'s connections are stalled');
  process.kill(run.pid, 'SIGUSR2');
  const result = await run.done;
  return { id, target, result, proxy };
}

/** The request is where the stalled executor left it; a successor (direct connection) completes it once the lease ended. */
async function successorCompletes(t: Test, id: string) {
  t.match(await requestRow(sql, id), { stage: 'drained', completed_at: null }, 'nothing past the boundary happened');
  await expireLease(sql, id);
  const successor = await deletions(['run', id, '--executor-id', 'successor'], env);
  t.equal(successor.code, 0, show(successor));
  t.match(await requestRow(sql, id), { stage: 'retention_pending', lease_generation: '2' }, 'completed at the next lease generation');
}

t.test('everything stalls: the lease deadline abandons the call in flight', async (t) => {
  // A 20 s lease renewed every 2 s: the heartbeats stall with the rest, and
  // 20 s after the last one got through the executor stops waiting.
  const { id, result } = await stalledRun(t, 'all',
    { DELETIONS_LEASE_SECONDS: '20', DELETIONS_HEARTBEAT_SECONDS: '2' }, () => true);
  t.equal(result.code, 3, show(result));
  t.match(result.json, { kind: 'lease_lost', request_id: id });
  t.match(result.json.error, /no heartbeat got through before the 20 s lease/, 'the local lease deadline ended it');
  await successorCompletes(t, id);
});

t.test('only the executor\'s connections stall: statement_timeout + 10 s, then the lease is given up', async (t) => {
  // An hour-long lease whose heartbeat keeps getting through: only the
  // client-side bound on the call (statement_timeout 20 s + 10 s) ends it.
  const { id, result } = await stalledRun(t, 'work',
    { DELETIONS_LEASE_SECONDS: '3600', DELETIONS_HEARTBEAT_SECONDS: '2', DELETIONS_PG_STATEMENT_TIMEOUT_SECONDS: '20' },
    (app) => app === 'deletions-executor');
  t.equal(result.code, 3, show(result));
  t.match(result.json, { kind: 'lease_lost', request_id: id });
  t.match(result.json.error, /PostgreSQL did not answer \w+ within 30 s/, 'the client-side bound ended it');
  await successorCompletes(t, id);
});

t.test('an operator command whose call is never answered ends by itself: exit 5 after statement_timeout + 10 s', async (t) => {
  const target = await seedCommunity(sql, bucket.store, redis, `inspect-${tag}.example`);
  const id = await submitAndApprove(sql, bucket.store, target.host);
  const proxy = await startStallProxy(t, db.url);
  // The connection is up and the schema-version gate answered; the inspect
  // call itself is swallowed.
  proxy.stallOnText('community_deletion.inspect(');
  const inspected = await deletions(['inspect', id], { ...env, DATABASE_URL: proxy.via(db.url), DELETIONS_PG_STATEMENT_TIMEOUT_SECONDS: '5' },
    { timeoutMs: 300_000 });
  t.equal(inspected.code, 5, show(inspected));
  t.match(inspected.json, { error: /PostgreSQL did not answer inspect within 15 s/, exit_code: 5 });
  t.ok(proxy.connections().some((c) => c.stalled), 'the inspect call was stalled');
  const direct = await deletions(['inspect', id], env);
  t.equal(direct.code, 0, `the same command answers without the stall: ${show(direct)}`);
});

t.test('run, outside the executor: explaining a request it could not claim is bounded the same way (exit 5)', async (t) => {
  const target = await seedCommunity(sql, bucket.store, redis, `unclaimable-${tag}.example`);
  const [submitted] = await sql<{ id: string }[]>`select id from community_deletion.submit(${target.host}, 'alice', 'not approved yet')`;
  const proxy = await startStallProxy(t, db.url);
  proxy.stallOnText('community_deletion.inspect(');
  const r = await deletions(['run', submitted!.id], { ...env, DATABASE_URL: proxy.via(db.url), DELETIONS_PG_STATEMENT_TIMEOUT_SECONDS: '5' },
    { timeoutMs: 300_000 });
  t.equal(r.code, 5, show(r));
  t.match(r.json, { error: /PostgreSQL did not answer inspect within 15 s/ });
});

t.test('doctor: a check whose call is never answered fails by itself, the others still report', async (t) => {
  const proxy = await startStallProxy(t, db.url);
  proxy.stallOnText('community_deletion.validate_catalog(');
  const r = await deletions(['doctor'], { ...env, DATABASE_URL: proxy.via(db.url), DELETIONS_PG_STATEMENT_TIMEOUT_SECONDS: '5' },
    { timeoutMs: 300_000 });
  t.equal(r.code, 5, show(r));
  const checks = (r.json?.checks ?? []) as { service: string; check: string; status: string; detail: string }[];
  t.match(checks.find((c) => c.service === 'postgres' && c.check === 'catalog'),
    { status: 'fail', detail: /PostgreSQL did not answer validateCatalog within 15 s/ });
  t.match(checks.find((c) => c.service === 'postgres' && c.check === 'reachable'), { status: 'pass' }, 'the connection itself was fine');
});

t.test('the bystander is untouched', async (t) => {
  t.same(await fingerprint(sql, bucket.store, redis, bystander.id), bystanderBefore);
});
