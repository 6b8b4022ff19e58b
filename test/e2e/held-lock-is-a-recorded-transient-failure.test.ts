// A session that holds the community's advisory lock (any login may take it)
// cannot make the executor wait forever: the quiesce step gives up after
// settings.lock_timeout, the failure is recorded against the request as
// transient (55P03) with the holder's pid, role and application named in the
// checkpoint, the run exits 1, and once the lock is gone the next run
// completes.
import t from 'tap';
import postgres from 'postgres';
import {
  checkpoints, cliEnv, deletions, e2eStores, requestRow, seedCommunity, show, submitAndApprove,
} from '../helpers/e2e.js';

const { db, sql, bucket, redis } = await e2eStores(t);
const target = await seedCommunity(sql, bucket.store, redis, `locked-${process.pid}.example`);
const id = await submitAndApprove(sql, bucket.store, target.host);
await sql`update community_deletion.settings set lock_timeout = interval '300 milliseconds'`;

t.test('a held community lock is a transient failure that names its holder', async (t) => {
  const mallory = postgres(db.url, { max: 1, onnotice: () => {}, connection: { application_name: 'mallory-psql' } });
  t.teardown(() => mallory.end({ timeout: 5 }));
  const [held] = await mallory<{ pid: number }[]>`
    select pg_backend_pid() as pid, pg_advisory_lock(community_deletion._community_lock_key(${target.id}::uuid))`;

  const run = await deletions(['run', id, '--executor-id', 'exec-1'], cliEnv(db, bucket));
  t.equal(run.code, 1, show(run));
  t.match(run.json, { kind: 'failure_recorded', stage: 'approved', retryable: true, blocked: false });
  const row = await requestRow(sql, id);
  t.match(row, { stage: 'approved', retry_count: 1, blocked_at: null, lease_owner: null });
  const failed = (await checkpoints(sql, id)).filter((c) => c.status === 'failed');
  t.equal(failed.length, 1, 'one failed checkpoint');
  t.match(failed[0]!.error, /55P03/, 'classified by its SQLSTATE');
  t.match(failed[0]!.error, new RegExp(`held by pid ${held!.pid} \\(role postgres, application mallory-psql\\)`), 'naming the holder');

  await mallory`select pg_advisory_unlock_all()`;
  await sql`update community_deletion.requests set next_attempt_at = now() where id = ${id}`;
  const again = await deletions(['run', id, '--executor-id', 'exec-2'], cliEnv(db, bucket));
  t.equal(again.code, 0, show(again));
  t.match(await requestRow(sql, id), { stage: 'retention_pending', retry_count: 0 });
});
