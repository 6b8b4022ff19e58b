// Crashes during the batched PostgreSQL purge. With settings.purge_batch_rows
// = 4 (the same code path as the default), the target's rows take many
// batches, each its own transaction with per-table checkpoints:
//   1. the executor is SIGKILLed between two batches (after batch 1
//      committed): the rows gone equal the checkpoints' running totals;
//   2. a successor is SIGKILLed INSIDE a batch — its DELETE waits on a row
//      lock the test holds, so the batch is provably in flight — and its
//      orphaned server session is ended as the server does when it notices
//      the client is gone: the batch rolls back whole, and the totals still
//      equal the rows gone;
//   3. a third executor resumes from the checkpoints and completes; the
//      tombstone checkpoint's totals equal the rows the target had, and the
//      bystander is byte-identical in all three stores.
// Nothing depends on the machine's speed: leases are an hour long and ended
// by the test (expireLease), the in-batch crash is placed with a lock, and
// settings.lock_timeout is raised so the held lock cannot time out first.
import t from 'tap';
import {
  checkpoints, deletions, e2eStores, expireLease, fingerprint, killHard, requestRow, seedCommunity, show, startDeletions, submitAndApprove, victimEnv, waitFor,
} from '../helpers/e2e.js';

const BATCH = 4;

const { db, sql, bucket, redis, env } = await e2eStores(t);

const tag = `purge-${process.pid}`;
const target = await seedCommunity(sql, bucket.store, redis, `target-${tag}.example`, { rows: 3, keys: 1 });
const bystander = await seedCommunity(sql, bucket.store, redis, `bystander-${tag}.example`, { rows: 3, keys: 1 });
await sql`update community_deletion.settings set purge_batch_rows = ${BATCH}, lock_timeout = interval '1 hour'`;
const requestId = await submitAndApprove(sql, bucket.store, target.host);
const bystanderBefore = await fingerprint(sql, bucket.store, redis, bystander.id);
const [counted] = await sql<{ rows: number }[]>`select sum(row_count)::int as rows from tests.scoped_row_counts(${target.id})`;
const targetRows = counted!.rows;

/** Scoped rows of the target still present, and the rows the purge checkpoints say are gone. */
async function purgeState(): Promise<{ remaining: number; checkpointed: number }> {
  const [row] = await sql<{ remaining: number; checkpointed: number }[]>`
    select (select coalesce(sum(row_count), 0)::int from tests.scoped_row_counts(${target.id})) as remaining,
           (select coalesce(sum((detail ->> 'rows')::bigint), 0)::int from community_deletion.checkpoints
             where request_id = ${requestId} and stage = 'bindings_removed' and unit_key like 'purge:%') as checkpointed`;
  return row!;
}

t.test('killed between two purge batches', async (t) => {
  t.ok(targetRows > 6 * BATCH, `the target's ${targetRows} rows take many batches of ${BATCH}`);
  const victim = startDeletions(['run', requestId, '--executor-id', 'victim'], victimEnv(env), { pauseAt: 'purge_batch:1' });
  t.equal(await victim.paused, 'purge_batch:1', 'paused after batch 1 committed');
  const killed = await killHard(victim);
  t.equal(killed.signal, 'SIGKILL');

  const row = await requestRow(sql, requestId);
  t.match(row, { stage: 'bindings_removed', lease_owner: 'victim', lease_generation: '1' });
  const state = await purgeState();
  t.ok(state.remaining > 0 && state.remaining < targetRows, `part of the rows are gone (${targetRows - state.remaining} of ${targetRows})`);
  t.equal(targetRows - state.remaining, state.checkpointed, 'the checkpoints count exactly the rows gone');
  const [community] = await sql<{ state: string }[]>`select deletion_state as state from public.communities where id = ${target.id}`;
  t.equal(community!.state, 'fenced', 'the community is still fenced, not yet a tombstone');
});

t.test('killed inside a batch: the batch rolls back whole', async (t) => {
  await expireLease(sql, requestId);
  // Hold a row of the last table in purge order, so a later batch of the
  // successor blocks on it mid-transaction.
  const [last] = await sql<{ schema_name: string; table_name: string }[]>`
    select schema_name, table_name from community_deletion.registered_tables where kind = 'scoped' order by purge_order desc limit 1`;
  const holder = await sql.reserve();
  t.teardown(() => holder.release());
  await holder`begin`;
  const held = await holder.unsafe(`select 1 from ${last!.schema_name}.${last!.table_name} where community_id = $1 limit 1 for update`, [target.id]);
  t.equal(held.length, 1, `a ${last!.table_name} row of the target is locked`);

  const successor = startDeletions(['run', requestId, '--executor-id', 'successor'], victimEnv(env));
  let backend = 0;
  await waitFor(async () => {
    const [w] = await sql<{ pid: number }[]>`
      select pid from pg_stat_activity
       where datname = current_database() and application_name = 'deletions-executor' and wait_event_type = 'Lock'`;
    backend = w?.pid ?? 0;
    return backend !== 0;
  }, "the successor's batch to wait on the held row");
  const before = await purgeState();
  t.ok(before.remaining > 0, 'rows remain while the batch waits');

  const killed = await killHard(successor);
  t.equal(killed.signal, 'SIGKILL', 'the successor is killed mid-batch');
  // The server ends a session whose client is gone once it notices; do it now.
  await sql`select pg_terminate_backend(${backend})`;
  await waitFor(async () => (await sql`select 1 from pg_stat_activity where pid = ${backend}`).length === 0, 'the orphaned session to end');
  await holder`rollback`;

  const after = await purgeState();
  t.equal(targetRows - after.remaining, after.checkpointed, 'the checkpoints still count exactly the rows gone');
  t.same(after, before, 'nothing of the interrupted batch committed');
  const row = await requestRow(sql, requestId);
  t.match(row, { stage: 'bindings_removed', lease_owner: 'successor', lease_generation: '2' });
});

t.test('a third executor resumes from the checkpoints and completes', async (t) => {
  await expireLease(sql, requestId);
  const run = await deletions(['run', requestId, '--executor-id', 'finisher'], env);
  t.equal(run.code, 0, show(run));
  t.match(run.json, { kind: 'completed', request_id: requestId });
  t.equal(run.json.stages[0].stage, 'bindings_removed', 'resumed in the purge, not from the start');

  const row = await requestRow(sql, requestId);
  t.match(row, { stage: 'retention_pending', lease_generation: '3' });
  const cps = await checkpoints(sql, requestId);
  const committed = cps.find((c) => c.unit_key === 'postgres_tombstone_committed');
  const deleted = Object.values(committed?.detail.deleted ?? {}).reduce((n: number, v) => n + Number(v), 0);
  t.equal(deleted, targetRows, 'the totals over every batch of three executors equal the rows the target had');
  const purged = cps.filter((c) => c.unit_key.startsWith('purge:'));
  t.equal(purged.length, 28, 'one checkpoint per scoped table');
  t.ok(purged.every((c) => c.status === 'completed'), 'all completed');
  t.ok(new Set(purged.map((c) => c.lease_generation)).size > 1, 'written by more than one executor generation');

  const after = await fingerprint(sql, bucket.store, redis, target.id);
  t.same([after.rows, after.versions, after.keys], [0, 0, 0], 'the target is gone from all three stores');
  t.same(await fingerprint(sql, bucket.store, redis, bystander.id), bystanderBefore, 'the bystander is byte-identical');
});
