-- community_deletion.fence: fence generation + 1, community fenced, request fenced with
-- that generation, checkpoint approved/activate_fence; afterwards every
-- application write and serving lease is refused, stale tokens fail closed,
-- and the executor's next stage verifies against the new generation.
begin;
\ir ../fixtures/fence.sql
select plan(12);

select * from tests.fx_claimed('fence.example', 'executor-1') \gset
select tests.seed_community('bystander.example', 1) as b \gset
select tests.community_fingerprint(:'b') as b_before \gset
select (l).id as lease_id, (l).generation as lease_gen, (l).fence_generation as lease_fence
  from (select community_deletion.acquire_serving_lease(:'community_id', 'push', 'relay-1') as l) x \gset
select community_deletion.release_serving_lease(:'lease_id', 'relay-1', :lease_gen, :lease_fence);

select community_deletion.begin_quiescing(:'request_id', 'executor-1', :generation);
select community_deletion.fence(:'request_id', 'executor-1', :generation) as fence_gen \gset

select is(:fence_gen::bigint, 1::bigint, 'the first fence of a community is generation 1');
select is((select (deletion_state, deletion_fence_generation)::text from public.communities where id = :'community_id'),
  '(fenced,1)', 'the community is fenced at the new generation');
select is((select (stage, fence_generation)::text from community_deletion.requests where id = :'request_id'),
  '(fenced,1)', 'the request is fenced and carries the fence generation');
select is((select detail->>'fence_generation' from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'approved' and unit_key = 'activate_fence' and status = 'completed'),
  '1', 'checkpoint approved/activate_fence records the generation');

set local role community_deletion_app;
select throws_ok(format($$ update public.users set display_name = 'x' where community_id = %L $$, :'community_id'),
  '55000', null, 'the application cannot write the fenced community');
select throws_ok(format($$ select community_deletion.acquire_serving_lease(%L, 'push', 'relay-2') $$, :'community_id'),
  'DL5S1', null, 'no serving-write lease is admitted after the fence');
select lives_ok(format($$ update public.users set display_name = 'bystander edit' where community_id = %L $$, :'b'),
  'a bystander community keeps accepting writes');
reset role;
update public.users set display_name = 'user 1' where community_id = :'b';
select is(tests.community_fingerprint(:'b'), :'b_before', 'the bystander is otherwise untouched');

select throws_ok(format($$ select community_deletion.fence(%L, 'executor-1', %s) $$, :'request_id', :generation),
  'DL4L1', null, 'fencing again is stale: the request left the approved stage');
select lives_ok(format($$ select community_deletion.verify_token(%L, 'executor-1', %s, 'fenced') $$, :'request_id', :generation),
  'the executor''s token verifies at the fenced stage');
select throws_ok(format($$ select community_deletion._verify_lease_and_fence(%L, 'executor-1', %s, 'fenced', 0) $$, :'request_id', :generation),
  'DL4L1', null, 'the pre-fence generation is stale for post-fence stages');
select throws_ok(format($$ select community_deletion.renew_serving_lease(%L, 'relay-1', %s, %s) $$, :'lease_id', :lease_gen, :lease_fence),
  'DL5S1', null, 'a lease of the old generation can never renew after the fence');

select * from finish();
rollback;
