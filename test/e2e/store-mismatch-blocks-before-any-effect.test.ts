// A request is bound to the stores it was inventoried against (S3 endpoint +
// bucket, Redis server + database, recorded by `submit`). A `run` configured
// for other stores — a mistyped BUZZ_S3_BUCKET, another REDIS_URL database —
// is blocked with store_mismatch (DL4S1) before any effect: exit 1 (a failure
// recorded against the request), the block reason names both identities and
// the remedy, nothing is deleted from the real stores, the community is not
// tombstoned. The same stores spelled differently (case, trailing slash,
// explicit default database) are not a mismatch; after `unblock` a run with
// the recorded stores completes. Also: `approve --digest` binds the digest the
// approver reviewed (a wrong one is refused, exit 4, DL3A2).
import t from 'tap';
import { createTestDatabase } from '../helpers/db.js';
import { createTestBucket } from '../helpers/moto.js';
import {
  REDIS_URL, approverEnv, checkpoints, cliEnv, deletions, expireLease, fingerprint, killHard, redisClient, requestRow, seedCommunity, show,
  startDeletions, victimEnv,
} from '../helpers/e2e.js';

const db = await createTestDatabase();
t.teardown(() => db.drop());
const bucketA = await createTestBucket(t);
const bucketB = await createTestBucket(t);
const redis = redisClient();
t.teardown(() => redis.disconnect());
const sql = db.sql;
const env = cliEnv(db, bucketA);
const tag = `stores-${process.pid}`;
const first = await seedCommunity(sql, bucketA.store, redis, `first-${tag}.example`, { rows: 1, keys: 2, versions: 2, redisKeys: 3 });
const second = await seedCommunity(sql, bucketA.store, redis, `second-${tag}.example`, { rows: 1, keys: 2, versions: 2, redisKeys: 3 });
const bystander = await seedCommunity(sql, bucketA.store, redis, `bystander-${tag}.example`, { rows: 1, keys: 2, versions: 2, redisKeys: 3 });
const bystanderBefore = await fingerprint(sql, bucketA.store, redis, bystander.id);

/** REDIS_URL with another database number (the seeded keys live in database 0). */
const otherDatabase = `${REDIS_URL.replace(/\/\d*$/, '')}/1`;

async function submitAndApproveViaCli(host: string): Promise<{ id: string; digest: string }> {
  const submitted = await deletions(['submit', '--host', host, '--requested-by', 'alice@ops'], env);
  if (submitted.code !== 0) throw new Error(show(submitted));
  const id = submitted.json.id as string;
  const digest = submitted.json.inventory_digest as string;
  const approved = await deletions(['approve', id, '--approved-by', 'bob@ops', '--digest', digest.slice(0, 12)], approverEnv(env));
  if (approved.code !== 0) throw new Error(show(approved));
  return { id, digest };
}

t.test('submit records the stores; approve --digest refuses a digest that is not the frozen one', async (t) => {
  const submitted = await deletions(['submit', '--host', first.host, '--requested-by', 'alice@ops'], env);
  t.equal(submitted.code, 0, show(submitted));
  t.match(submitted.json, {
    stage: 'inventoried',
    store_identity: { s3_bucket: bucketA.config.bucket, redis_db: 0, redis_server: /^[^@]+:\d+$/, s3_endpoint: /^https?:\/\// },
  });
  const id = submitted.json.id as string;
  const digest = submitted.json.inventory_digest as string;
  const wrong = (digest[0] === '0' ? '1' : '0') + digest.slice(1, 12);
  const refused = await deletions(['approve', id, '--approved-by', 'bob@ops', '--digest', wrong], approverEnv(env));
  t.equal(refused.code, 4, show(refused));
  t.match(refused.json, { sqlstate: 'DL3A2', error: new RegExp(digest) });
  const tooShort = await deletions(['approve', id, '--approved-by', 'bob@ops', '--digest', digest.slice(0, 7)], approverEnv(env));
  t.equal(tooShort.code, 2, show(tooShort));
  t.match(tooShort.json, { sqlstate: 'DL1I1' });
  t.equal((await requestRow(sql, id)).stage, 'inventoried', 'still unapproved');
  const approved = await deletions(['approve', id, '--approved-by', 'bob@ops', '--digest', digest.slice(0, 12).toUpperCase()], approverEnv(env));
  t.equal(approved.code, 0, show(approved));
  t.match(approved.json, { id, stage: 'approved' });
});

t.test('run with another bucket: blocked (store_mismatch) at the claim, before any effect', async (t) => {
  const [row] = await sql<{ id: string }[]>`select id from community_deletion.requests where community_id = ${first.id}`;
  const id = row!.id;
  const before = await fingerprint(sql, bucketA.store, redis, first.id);
  const run = await deletions(['run', id], { ...env, BUZZ_S3_BUCKET: bucketB.config.bucket });
  t.equal(run.code, 1, show(run));
  t.match(run.json, { kind: 'failure_recorded', blocked: true, retryable: false, error: /DL4S1/ });
  const inspect = await deletions(['inspect', id], env);
  t.equal(inspect.code, 0, show(inspect));
  t.match(inspect.json, {
    state: 'blocked',
    request: { stage: 'approved', blocked_reason: /store mismatch/ },
    community: { deletion_state: 'active', deleted_at: null },
  });
  const reason = inspect.json.request.blocked_reason as string;
  t.ok(reason.includes(`bucket ${bucketA.config.bucket}`) && reason.includes(`bucket ${bucketB.config.bucket}`), `names both buckets: ${reason}`);
  t.match(reason, /s3_bucket/, 'names what differs');
  t.ok(reason.includes(`deletions unblock ${id}`), 'says what to do');
  const failed = (await checkpoints(sql, id)).filter((c) => c.status === 'failed');
  t.match(failed, [{ stage: 'approved', unit_key: 'verify_store_identity', error: /DL4S1/ }]);
  t.same(await fingerprint(sql, bucketA.store, redis, first.id), before, 'nothing of the community was touched in any store');
  t.equal((await requestRow(sql, id)).lease_owner, null, 'the lease was released by the block');
});

t.test('after unblock, the same stores spelled differently run to completion', async (t) => {
  const [row] = await sql<{ id: string }[]>`select id from community_deletion.requests where community_id = ${first.id}`;
  const id = row!.id;
  const unblocked = await deletions(['unblock', id, '--unblocked-by', 'carol@ops', '--reason', 'BUZZ_S3_BUCKET fixed'], env);
  t.equal(unblocked.code, 0, show(unblocked));
  const endpoint = new URL(bucketA.config.endpoint);
  const respelled = {
    ...env,
    BUZZ_S3_ENDPOINT: `${endpoint.protocol.toUpperCase()}//${endpoint.host.toUpperCase()}/`,
    REDIS_URL: `${REDIS_URL.replace(/\/\d*$/, '')}/0`,
  };
  const run = await deletions(['run', id], respelled);
  t.equal(run.code, 0, show(run));
  t.match(run.json, { kind: 'completed' });
  const after = await fingerprint(sql, bucketA.store, redis, first.id, { pg: false });
  t.match(after, { versions: 0, keys: 0 }, 'deleted from the recorded stores');
});

t.test('run with another Redis database after the fence: blocked before the deletes, nothing deleted, not tombstoned', async (t) => {
  const { id } = await submitAndApproveViaCli(second.host);
  // A first executor fences the community and freezes the destructive
  // manifest with the right stores, then dies before deleting anything.
  const victim = startDeletions(['run', id, '--executor-id', 'victim'], victimEnv(env), { pauseAt: 'after:fenced' });
  t.equal(await victim.paused, 'after:fenced');
  await killHard(victim);
  t.equal((await requestRow(sql, id)).stage, 'drained', 'the next step would delete object versions');
  await expireLease(sql, id);
  const before = await fingerprint(sql, bucketA.store, redis, second.id);
  t.ok(before.versions > 0 && before.keys > 0 && before.rows > 0, 'the community still has objects, keys and rows');

  const run = await deletions(['run', id], { ...env, REDIS_URL: otherDatabase });
  t.equal(run.code, 1, show(run));
  t.match(run.json, { kind: 'failure_recorded', blocked: true, stage: 'drained', error: /DL4S1/ });
  const row = await requestRow(sql, id);
  t.match(row, { stage: 'drained', blocked_reason: /database 0.*database 1/ });
  t.match(row.blocked_reason, /redis_db/);
  t.same(await fingerprint(sql, bucketA.store, redis, second.id), before, 'no object version, key or row deleted');
  const [community] = await sql<{ deletion_state: string; deleted_at: Date | null }[]>`
    select deletion_state, deleted_at from public.communities where id = ${second.id}`;
  t.same(community, { deletion_state: 'fenced', deleted_at: null }, 'not tombstoned');

  const unblocked = await deletions(['unblock', id, '--unblocked-by', 'carol@ops', '--reason', 'REDIS_URL database fixed'], env);
  t.equal(unblocked.code, 0, show(unblocked));
  const rerun = await deletions(['run', id], env);
  t.equal(rerun.code, 0, show(rerun));
  t.match(rerun.json, { kind: 'completed' });
  const inspect = await deletions(['inspect', id], env);
  t.equal(inspect.code, 0, show(inspect));
  t.match(inspect.json.request, {
    store_identity: { s3_bucket: bucketA.config.bucket, redis_db: 0 },
    destructive_difference: { changed: false, tables: Array, prefixes: [{ appeared: 0, vanished: 0, content_changed: false }, {}, {}] },
  }, 'inspect --json shows the stores and what changed since approval (nothing)');
});

t.test('the bystander is byte-identical', async (t) => {
  t.same(await fingerprint(sql, bucketA.store, redis, bystander.id), bystanderBefore);
});
