-- Quiesce captures the community's archived_at as it was BEFORE the deletion
-- (so abort can restore it, not simply NULL it), exactly once, then marks the
-- community archived and quiescing. Checkpoint approved/quiesce_serving_writes.
begin;
\ir ../fixtures/fence.sql
select plan(9);

-- A never-archived community.
select * from tests.fx_claimed('fresh.example', 'executor-1') \gset fresh_
select community_deletion.begin_quiescing(:'fresh_request_id', 'executor-1', :fresh_generation);
select is((select (pre_quiesce_archived_at is null and quiescing_started_at is not null)
             from community_deletion.requests where id = :'fresh_request_id'), true,
  'a never-archived community records a NULL pre-quiesce archived_at and the quiesce start');
select is((select (deletion_state, archived_at is not null)::text from public.communities where id = :'fresh_community_id'),
  '(quiescing,t)', 'the community is quiescing and archived');
select community_deletion.begin_quiescing(:'fresh_request_id', 'executor-1', :fresh_generation);
select is((select pre_quiesce_archived_at from community_deletion.requests where id = :'fresh_request_id'), null,
  'a repeated quiesce does not recapture (the community is archived by now)');

-- A community archived long before the deletion.
select tests.seed_community('old.example', 1) as old_c \gset
update public.communities set archived_at = '2020-01-02 03:04:05+00' where id = :'old_c';
select r.id as old_request from community_deletion.submit('old.example', 'alice', 'archived') r \gset
select community_deletion.freeze_inventory(:'old_request', tests.lc_storage_summary(:'old_c'), tests.store_identity()) is not null;
select tests.approve(:'old_request', 'bob') is not null;
select lease_generation as old_generation from community_deletion.claim('executor-2', :'old_request', 3600) \gset
select community_deletion.begin_quiescing(:'old_request', 'executor-2', :old_generation);
select is((select pre_quiesce_archived_at from community_deletion.requests where id = :'old_request'),
  '2020-01-02 03:04:05+00'::timestamptz, 'an archived community records its original archived_at');
select is((select archived_at from public.communities where id = :'old_c'),
  '2020-01-02 03:04:05+00'::timestamptz, 'quiesce keeps an existing archived_at');

select is((select status from community_deletion.checkpoints
            where request_id = :'old_request' and stage = 'approved' and unit_key = 'quiesce_serving_writes'),
  'completed', 'quiesce records checkpoint approved/quiesce_serving_writes');
select is((select stage from community_deletion.requests where id = :'old_request'), 'approved',
  'the request stays approved until the fence');

select throws_ok(format($$ select community_deletion.acquire_serving_lease(%L, 'upload', 'srv') $$, :'old_c'),
  'DL5S1', null, 'a quiescing community admits no new serving-write lease');
select throws_ok(format($$ update public.communities set archived_at = null where id = %L $$, :'old_c'),
  'DL8T1', null, 'nobody but the engine may change a quiescing community''s archived_at');

select * from finish();
rollback;
