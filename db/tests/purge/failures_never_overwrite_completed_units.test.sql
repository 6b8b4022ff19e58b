-- A completed checkpoint is evidence (a purge table's running total, a
-- frozen manifest): record_failure and block, whose unit_key the executor
-- chooses, never overwrite it. A failure named after a completed unit is
-- recorded beside it, on 'failure:<unit>', and the totals finish_postgres_purge
-- reports stay what was deleted. Before, a failure on 'purge:users' reset its
-- total to 0 in the final report.
begin;
\ir ../fixtures/destruction.sql
select plan(6);

select * from tests.dx_fenced_request('failure-units.example', 2) \gset
select tests.dx_to_bindings_removed(:'request_id', :'owner', :'generation', :'fence_generation', :'community_id');
select tests.dx_purge_until_done(:'request_id', :'owner', :'generation', :'fence_generation');
select (detail ->> 'rows')::int as users_rows from community_deletion.checkpoints
 where request_id = :'request_id' and stage = 'bindings_removed' and unit_key = 'purge:users' \gset

select (detail ->> 'rows')::int as events_rows from community_deletion.checkpoints
 where request_id = :'request_id' and stage = 'bindings_removed' and unit_key = 'purge:events' \gset

-- block, naming a completed unit.
select community_deletion.block(:'request_id', :'owner', :generation, 'bindings_removed', 'purge:events', 'y') \g /dev/null
select is((select (status, (detail ->> 'rows')::int)::text from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'bindings_removed' and unit_key = 'purge:events'),
  format('(completed,%s)', :events_rows), 'block naming a completed purge unit leaves it completed, with its total');
select is((select status from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'bindings_removed' and unit_key = 'failure:purge:events'),
  'failed', 'the block''s failure is recorded beside it');
select community_deletion.unblock(:'request_id', 'carol@ops', 'remediated') \g /dev/null

-- record_failure, naming another.
select lease_generation as gen2 from community_deletion.claim('executor-2', :'request_id', 3600) \gset
select community_deletion.record_failure(:'request_id', 'executor-2', :gen2, 'bindings_removed', 'purge:users', 'x') \g /dev/null
select is((select (status, (detail ->> 'rows')::int)::text from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'bindings_removed' and unit_key = 'purge:users'),
  format('(completed,%s)', :users_rows), 'record_failure naming a completed purge unit leaves it completed, with its total');
select is((select status from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'bindings_removed' and unit_key = 'failure:purge:users'),
  'failed', 'the failure is recorded beside it');

-- The next executor finishes: the totals are what was deleted.
update community_deletion.requests set next_attempt_at = now() - interval '1 second' where id = :'request_id';
select lease_generation as gen3 from community_deletion.claim('executor-3', :'request_id', 3600) \gset
select is((community_deletion.finish_postgres_purge(:'request_id', 'executor-3', :gen3, :fence_generation) -> 'deleted' ->> 'users')::int,
  :users_rows, 'finish_postgres_purge reports the users it deleted, not 0');
select is((select sum(row_count)::int from tests.scoped_row_counts(:'community_id')), 0, 'and every row is gone');

select * from finish();
rollback;
