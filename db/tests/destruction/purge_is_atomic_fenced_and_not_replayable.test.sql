-- community_deletion.purge_postgres runs only under a current lease + fence token at
-- bindings_removed, commits the row deletion and the tombstone together (a
-- community no longer fenced at the token's generation purges nothing), is
-- refused on replay, and scopes the read-state opt-in to itself.
begin;
\ir ../fixtures/destruction.sql
select plan(16);

select tests.seed_community('bystander.example', 2) as bystander \gset
select * from tests.dx_fenced_request('target.example', 2) \gset
select tests.dx_to_bindings_removed(:'request_id', :'owner', :'generation', :'fence_generation', :'community_id');
select tests.community_fingerprint(:'bystander') as bystander_before \gset
select sum(row_count) as target_rows from tests.scoped_row_counts(:'community_id') \gset
select format('%L, %L, %s, %s', :'request_id', :'owner', :'generation', :'fence_generation') as token \gset

select throws_ok(format($$ select community_deletion.purge_postgres(%L, %L, %s, %s) $$,
  :'request_id', :'owner', :'generation', :'fence_generation'::bigint + 1),
  'DL4L1', null, 'a wrong fence generation purges nothing');
select throws_ok(format($$ select community_deletion.purge_postgres(%L, %L, %s, %s) $$,
  :'request_id', :'owner', :'generation'::bigint - 1, :'fence_generation'),
  'DL4L1', null, 'an older lease generation purges nothing');
select throws_ok(format($$ select community_deletion.purge_postgres(%L, %L, %s, %s) $$,
  :'request_id', 'executor-2', :'generation', :'fence_generation'),
  'DL4L1', null, 'another owner purges nothing');

update community_deletion.requests set lease_until = now() - interval '1 second' where id = :'request_id';
select throws_ok(format($$ select community_deletion.purge_postgres(%s) $$, :'token'),
  'DL4L1', null, 'an expired lease purges nothing');
update community_deletion.requests set lease_until = now() + interval '1 hour' where id = :'request_id';

-- The tombstone is written only if the community is still fenced at the
-- token's generation; otherwise the whole purge rolls back.
set local session_replication_role = replica;
update public.communities set deletion_state = 'tombstone', deleted_at = now() where id = :'community_id';
set local session_replication_role = origin;
select throws_ok(format($$ select community_deletion.purge_postgres(%s) $$, :'token'),
  'DL4L1', null, 'a community that is no longer fenced is not tombstoned again');
select is((select sum(row_count) from tests.scoped_row_counts(:'community_id')), :'target_rows'::numeric,
  'the refused purge deleted no row (rows and tombstone commit together)');
select is((select count(*)::int from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'bindings_removed'), 0,
  'the refused purge left no checkpoint');
set local session_replication_role = replica;
update public.communities set deletion_state = 'fenced', deleted_at = null where id = :'community_id';
set local session_replication_role = origin;

select is((select stage from community_deletion.requests where id = :'request_id'), 'bindings_removed',
  'after every refusal the request is still at bindings_removed');

select lives_ok(format($$ select community_deletion.purge_postgres(%s) $$, :'token'), 'the current token purges');
select is((select sum(row_count)::int from tests.scoped_row_counts(:'community_id')), 0, 'every target row is gone');
select is(current_setting('community_deletion.read_state_hard_delete', true), 'off',
  'the read-state opt-in does not outlive the purge call');
select throws_ok(format($$ delete from public.events where community_id = %L and kind = 30078 $$, :'bystander'),
  'DL8G1', null, 'so a later delete in the same transaction is still guarded');
select throws_ok(format($$ select community_deletion.purge_postgres(%s) $$, :'token'),
  'DL4L1', null, 'a replay with the same token is refused');
select is((select count(*)::int from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'bindings_removed' and unit_key like 'clear_provenance:%'), 2,
  'provenance nulling is checkpointed per provenance table');
select is((select detail -> 'deleted' ->> 'events' from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'bindings_removed' and unit_key = 'postgres_tombstone_committed'),
  '3', 'the tombstone checkpoint records per-table counts (events: 2 plus the read-state row)');
select is(tests.community_fingerprint(:'bystander'), :'bystander_before', 'the bystander is byte-identical');

select * from finish();
rollback;
