-- A purge batch's transaction commits without waiting for its WAL flush:
-- purge_postgres_batch sets synchronous_commit off for its own transaction
-- (set_config, local) and nothing longer — a refused batch sets nothing, the
-- setting goes with the transaction (or savepoint) that called it. The
-- transaction that tombstones the community (finish_postgres_purge, or
-- purge_postgres in one go) waits for its flush: off — set by batches run
-- earlier in the same transaction, or the session's own — is raised to on
-- for that transaction; a stricter setting (remote_apply) is kept. A batch a
-- server crash loses is one that never ran: its checkpoint goes with its
-- rows (purge_runs_in_bounded_resumable_batches: a batch that does not
-- commit leaves rows and checkpoints as they were); a tombstone a client saw
-- committed is on disk.
begin;
\ir ../fixtures/destruction.sql
select plan(17);

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

-- The one-transaction purge waits for its flush, even in a session that
-- commits asynchronously.
savepoint whole;
set local synchronous_commit = off;
select lives_ok(format('select community_deletion.purge_postgres(%s)', :'token'),
  'purge_postgres removes the community in one transaction');
select is(current_setting('synchronous_commit'), 'on', 'which commits synchronously even where the session had it off');
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
savepoint finish;
select lives_ok(format('select community_deletion.finish_postgres_purge(%s)', :'token'),
  'finish_postgres_purge proves the community gone and tombstones it');
select is(current_setting('synchronous_commit'), 'on', 'and its transaction waits for its flush, though the batches before it in the same transaction set it off');
select is((select stage from community_deletion.requests where id = :'request_id'), 'postgres_purged', 'the stage advanced');
rollback to savepoint finish;

-- A stricter setting is kept.
set local synchronous_commit = remote_apply;
select lives_ok(format('select community_deletion.finish_postgres_purge(%s)', :'token'),
  'finish_postgres_purge in a transaction set to remote_apply');
select is(current_setting('synchronous_commit'), 'remote_apply', 'keeps remote_apply');

-- A refused final step (replayed: the request is at postgres_purged) sets nothing.
set local synchronous_commit = off;
select throws_ok(format('select community_deletion.finish_postgres_purge(%s)', :'token'),
  'DL4L1', null, 'a replayed final step is refused');
select is(current_setting('synchronous_commit'), 'off', 'and changes no setting');

select * from finish();
rollback;
