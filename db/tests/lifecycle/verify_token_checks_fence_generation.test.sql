-- After the fence, every token check also requires the request's fence
-- generation to be the community's current one with the community fenced (or
-- tombstoned); an abort's generation bump therefore invalidates old tokens.
begin;
select plan(9);
\ir ../fixtures/lifecycle.sql

select tests.lc_approved('fence-token.example') as rid \gset
select community_id as c from community_deletion.requests where id = :'rid' \gset
select tests.lc_claim(:'rid', 'exec-1') as g \gset
select tests.lc_force_fenced(:'rid', 4) \g /dev/null

select lives_ok(format($$ select community_deletion.verify_token(%L, 'exec-1', %s, 'fenced') $$, :'rid', :g),
  'a fenced token verifies against the community''s fence generation');
select lives_ok(format($$ select community_deletion._verify_lease_and_fence(%L, 'exec-1', %s, 'fenced', 4) $$, :'rid', :g),
  'the fence variant accepts the exact fence generation');
select throws_ok(format($$ select community_deletion._verify_lease_and_fence(%L, 'exec-1', %s, 'fenced', 5) $$, :'rid', :g),
  'DL4L1', null, 'a wrong fence generation is stale');
select throws_ok(format($$ select community_deletion._verify_lease_and_fence(%L, 'exec-1', %s, 'fenced', null) $$, :'rid', :g),
  'DL4L1', null, 'a missing fence generation is stale');

select tests.lc_force(format($$ update public.communities set deletion_fence_generation = 5 where id = %L $$, :'c')) \g /dev/null
select throws_ok(format($$ select community_deletion.verify_token(%L, 'exec-1', %s, 'fenced') $$, :'rid', :g),
  'DL4L1', null, 'a community moved to another generation invalidates the token');
select tests.lc_force(format($$ update public.communities set deletion_fence_generation = 4, deletion_state = 'active' where id = %L $$, :'c')) \g /dev/null
select throws_ok(format($$ select community_deletion.verify_token(%L, 'exec-1', %s, 'fenced') $$, :'rid', :g),
  'DL4L1', null, 'a community that is no longer fenced invalidates the token');
select tests.lc_force(format($$ update public.communities set deletion_state = 'tombstone', deleted_at = now() where id = %L $$, :'c')) \g /dev/null
select lives_ok(format($$ select community_deletion.verify_token(%L, 'exec-1', %s, 'fenced') $$, :'rid', :g),
  'a tombstoned community at the same generation still verifies (the later stages run on a tombstone)');

select lives_ok(format($$ select community_deletion._advance(%L, 'exec-1', %s, 'fenced', 'drained') $$, :'rid', :g),
  'advance keeps the fence generation when none is passed');
select is((select fence_generation from community_deletion.requests where id = :'rid'), 4::bigint,
  'the request keeps fence generation 4');

select * from finish();
rollback;
