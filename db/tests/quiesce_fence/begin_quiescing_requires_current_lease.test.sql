-- community_deletion.begin_quiescing and community_deletion.fence act only for the current,
-- unexpired lease of an approved request (stale_lease DL4L1 otherwise), and
-- change nothing when they refuse.
begin;
\ir ../fixtures/fence.sql
select plan(9);

select * from tests.fx_claimed('lease.example', 'executor-1') \gset

select throws_ok(format($$ select community_deletion.begin_quiescing(%L, 'executor-1', %s) $$, :'request_id', :generation - 1),
  'DL4L1', null, 'an older lease generation is stale');
select throws_ok(format($$ select community_deletion.begin_quiescing(%L, 'intruder', %s) $$, :'request_id', :generation),
  'DL4L1', null, 'another owner is stale');
select throws_ok(format($$ select community_deletion.fence(%L, 'executor-1', %s) $$, :'request_id', :generation + 1),
  'DL4L1', null, 'a newer (unknown) generation is stale for the fence too');
select throws_ok(format($$ select community_deletion.begin_quiescing(%L, 'executor-1', %s) $$, gen_random_uuid(), :generation),
  'DL4L1', null, 'an unknown request is refused');

update community_deletion.requests set lease_until = now() - interval '1 second' where id = :'request_id';
select throws_ok(format($$ select community_deletion.begin_quiescing(%L, 'executor-1', %s) $$, :'request_id', :generation),
  'DL4L1', null, 'an expired lease is stale');
update community_deletion.requests set lease_until = now() + interval '1 hour' where id = :'request_id';

select is((select deletion_state from public.communities where id = :'community_id'), 'active',
  'refused calls left the community active');

select throws_ok(format($$ select community_deletion.fence(%L, 'executor-1', %s) $$, :'request_id', :generation),
  'DL2S1', null, 'the fence refuses a community that is not quiescing yet (wrong_stage DL2S1)');

select lives_ok(format($$ select community_deletion.begin_quiescing(%L, 'executor-1', %s) $$, :'request_id', :generation),
  'the current lease quiesces');
select lives_ok(format($$ select community_deletion.begin_quiescing(%L, 'executor-1', %s) $$, :'request_id', :generation),
  'quiescing again is idempotent');

select * from finish();
rollback;
