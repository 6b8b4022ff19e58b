-- community_deletion.inspect returns the request, its community, its approval, its
-- checkpoints in order, and one state word + one sentence explaining why it is
-- (not) progressing, for every state.
begin;
select plan(22);
\ir ../fixtures/lifecycle.sql

select tests.seed_community('inspect.example', 1) as c \gset
select id as rid from community_deletion.submit('inspect.example', 'alice', 'tenant left') \gset

select is(community_deletion.inspect(:'rid')->>'state', 'waiting_for_inventory', 'submitted: waiting_for_inventory');
select matches(community_deletion.inspect(:'rid')->>'explanation', 'community_deletion.freeze_inventory', 'says what to run next');
select is(community_deletion.inspect(:'rid')->'approval', 'null'::jsonb, 'no approval yet');
select is(community_deletion.inspect(:'rid')->'checkpoints', '[]'::jsonb, 'no checkpoints yet');
select is(community_deletion.inspect(:'rid')->'request'->>'id', :'rid', 'the request row is included');
select is(community_deletion.inspect(:'rid')->'community'->>'deletion_state', 'active', 'the community''s lifecycle columns are included');

select 1 from community_deletion.freeze_inventory(:'rid', tests.lc_storage_summary(:'c'), tests.store_identity()) \g /dev/null
select is(community_deletion.inspect(:'rid')->>'state', 'waiting_for_approval', 'inventoried: waiting_for_approval');
select matches(community_deletion.inspect(:'rid')->>'explanation', 'other than alice', 'names who may not approve');

select 1 from tests.approve(:'rid', 'bob', 'ok', null, interval '10 minutes') \g /dev/null
select is(community_deletion.inspect(:'rid')->>'state', 'grace_period', 'approved with a delay: grace_period');
select is(community_deletion.inspect(:'rid')->'approval'->>'approved_by', 'bob', 'the approval is included');

update community_deletion.requests set next_attempt_at = now() where id = :'rid';
select tests.lc_force(format($$ update community_deletion.approvals set not_before = now() where request_id = %L $$, :'rid')) \g /dev/null
select is(community_deletion.inspect(:'rid')->>'state', 'runnable', 'approved and due: runnable');

select tests.lc_claim(:'rid', 'exec-1') as g \gset
select is(community_deletion.inspect(:'rid')->>'state', 'leased', 'claimed: leased');
select matches(community_deletion.inspect(:'rid')->>'explanation', 'exec-1', 'names the lease holder');

select community_deletion.record_failure(:'rid', 'exec-1', :g, 'approved', 's3:preflight', 'S3 timeout') \g /dev/null
select is(community_deletion.inspect(:'rid')->>'state', 'retry_wait', 'after a transient failure: retry_wait');
select matches(community_deletion.inspect(:'rid')->>'explanation', 'S3 timeout', 'explains the last error');

update community_deletion.requests set next_attempt_at = now(), lease_owner = 'exec-1', lease_until = now() - interval '1 second'
 where id = :'rid';
select matches(community_deletion.inspect(:'rid')->>'explanation', 'expired', 'runnable after an expired lease says so');

select 1 from community_deletion.block_preclaim(:'rid', 'service_setup', 'BUZZ_S3_BUCKET is required') \g /dev/null
select is(community_deletion.inspect(:'rid')->>'state', 'blocked', 'blocked: blocked');
select is(
  (select array_agg(cp->>'unit_key' order by ord) from jsonb_array_elements(community_deletion.inspect(:'rid')->'checkpoints') with ordinality as x(cp, ord)),
  array['s3:preflight', 'pre_claim:service_setup'], 'checkpoints are listed in the order they were recorded');
select 1 from community_deletion.unblock(:'rid', 'carol', 'bucket configured') \g /dev/null

select 1 from community_deletion.abort(:'rid', 'carol', 'no longer needed') \g /dev/null
select is(community_deletion.inspect(:'rid')->>'state', 'aborted', 'aborted: aborted');
select matches(community_deletion.inspect(:'rid')->>'explanation', 'no longer needed', 'gives the abort reason');

select tests.lc_approved('inspect-done.example') as rid2 \gset
select tests.lc_force(format($$ update community_deletion.requests set stage = 'retention_pending', completed_at = now(),
  fence_generation = 1 where id = %L $$, :'rid2')) \g /dev/null
select is(community_deletion.inspect(:'rid2')->>'state', 'completed', 'retention_pending: completed');

select throws_ok(format($$ select community_deletion.inspect(%L) $$, gen_random_uuid()), 'DL1N1', null, 'an unknown request is refused');

select * from finish();
rollback;
