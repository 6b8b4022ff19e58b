-- A purge batch's transaction commits without waiting for its WAL flush:
-- purge_postgres_batch sets synchronous_commit off for its own transaction
-- (set_config, local) and nothing longer — a refused batch sets nothing, the
-- setting goes with the transaction (or savepoint) that called it — while
-- the transactions that tombstone the community (finish_postgres_purge) or
-- purge it in one go (purge_postgres) commit as the session does. A batch a
-- server crash loses is one that never ran: its checkpoint goes with its
-- rows (purge_runs_in_bounded_resumable_batches: a batch that does not
-- commit leaves rows and checkpoints as they were).
begin;
\ir ../fixtures/destruction.sql
select plan(12);

select * from tests.dx_fenced_request('target.example', 3) \gset
select tests.dx_to_bindings_removed(:'request_id', :'owner', :'generation', :'fence_generation', :'community_id');
select format('%L, %L, %s, %s', :'request_id', :'owner', :'generation', :'fence_generation') as token \gset
update community_deletion.settings set purge_batch_rows = 7, purge_batch_target = null;

select is(current_setting('synchronous_commit'), 'on', 'the session commits synchronously (the server default)');

-- A refused batch (a stale fence generation) changes no setting.
select throws_ok(format('select community_deletion.purge_postgres_batch(%L, %L, %s, %s)',
                        :'request_id', :'owner', :'generation', :'fence_generation'::bigint + 1),
  'DL4L1', null, 'a batch with a stale fence generation is refused');
select is(current_setting('synchronous_commit'), 'on', 'and leaves the commit synchronous');

-- The one-transaction purge commits as the session does.
savepoint whole;
select lives_ok(format('select community_deletion.purge_postgres(%s)', :'token'),
  'purge_postgres removes the community in one transaction');
select is(current_setting('synchronous_commit'), 'on', 'which commits synchronously');
rollback to savepoint whole;

-- A batch: its transaction commits without waiting for the flush.
savepoint one_batch;
select is((community_deletion.purge_postgres_batch(:'request_id', :'owner', :'generation', :'fence_generation') ->> 'done')::boolean,
  false, 'a first batch of 7 rows of cost');
select is(current_setting('synchronous_commit'), 'off', 'after a batch its transaction commits without waiting for its WAL flush');
rollback to savepoint one_batch;
select is(current_setting('synchronous_commit'), 'on', 'transaction-local: rolled back with the savepoint that called it');

-- Every batch to done, then the final transaction: it sets nothing.
select is((tests.dx_purge_until_done(:'request_id', :'owner', :'generation', :'fence_generation') ->> 'done')::boolean, true,
  'every batch to done');
select is(current_setting('synchronous_commit'), 'off', 'the batches ran in this transaction');
set local synchronous_commit = on;
select lives_ok(format('select community_deletion.finish_postgres_purge(%s)', :'token'),
  'finish_postgres_purge proves the community gone and tombstones it');
select is(current_setting('synchronous_commit'), 'on', 'and commits as the session does (synchronously here)');

select * from finish();
rollback;
