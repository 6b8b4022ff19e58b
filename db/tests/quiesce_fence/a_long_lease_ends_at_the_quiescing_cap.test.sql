-- A serving-write lease acquired while the community was active may run for
-- up to an hour, but once the community is quiescing it lives no longer than
-- quiescing's start plus settings.serving_lease_quiescing_cap wherever it is
-- checked (_serving_lease_deadline), not only at renewal: past the cap the
-- guard and verification refuse it (DL5S1), the fence waits only the cap
-- plus settings.serving_lease_grace for it, and abort no longer counts it as
-- live. Before, such a lease kept writing into the quiescing community and
-- held off the fence and abort until its hour was over.
begin;
\ir ../fixtures/fence.sql
select plan(9);

update community_deletion.settings set serving_lease_quiescing_cap = interval '10 minutes',
                                       serving_lease_grace = interval '2 minutes';
select * from tests.fx_claimed('long-lease.example', 'executor-1') \gset
select (l).id as lease_id, (l).generation as lease_gen, (l).fence_generation as lease_fence
  from (select community_deletion.acquire_serving_lease(:'community_id', 'media_upload', 'relay-1', 3600) as l) x \gset
select community_deletion.begin_quiescing(:'request_id', 'executor-1', :generation) \g /dev/null

select lives_ok(format($$ select community_deletion.guard_serving_write(%L, 'relay-1', %s, %s) $$, :'lease_id', :lease_gen, :lease_fence),
  'within the cap, the guard admits the lease''s write');

-- Quiescing began 11 minutes ago: past the cap, within the grace.
select tests.lc_force(format($$ update community_deletion.requests set quiescing_started_at = now() - interval '11 minutes'
                                where id = %L $$, :'request_id'));
select throws_ok(format($$ select community_deletion.guard_serving_write(%L, 'relay-1', %s, %s) $$, :'lease_id', :lease_gen, :lease_fence),
  'DL5S1', null, 'past the cap, the guard refuses the hour-long lease: no more writes');
select throws_ok(format($$ select community_deletion.verify_serving_lease(%L, 'relay-1', %s, %s) $$, :'lease_id', :lease_gen, :lease_fence),
  'DL5S1', null, 'and so does verification');
select throws_ok(format($$ select community_deletion.fence(%L, 'executor-1', %s) $$, :'request_id', :generation),
  'DL5D1', null, 'the fence still waits the grace after the cap for an effect in flight');
select is((select lease_until > now() + interval '50 minutes' from community_deletion.serving_write_leases where id = :'lease_id'), true,
  '(the lease itself still runs for most of its hour)');

-- 13 minutes ago: past the cap and the grace.
select tests.lc_force(format($$ update community_deletion.requests set quiescing_started_at = now() - interval '13 minutes'
                                where id = %L $$, :'request_id'));
select lives_ok(format($$ select community_deletion.fence(%L, 'executor-1', %s) $$, :'request_id', :generation),
  'past the cap and the grace the fence proceeds, though the lease was taken for an hour');
select is((select deletion_state from public.communities where id = :'community_id'), 'fenced', 'the community is fenced');

-- Abort counts the same leases as live.
select * from tests.fx_claimed('long-lease-abort.example', 'executor-2') \gset a_
select (l).id as a_lease from (select community_deletion.acquire_serving_lease(:'a_community_id', 'media_upload', 'relay-2', 3600) as l) x \gset
select community_deletion.begin_quiescing(:'a_request_id', 'executor-2', :a_generation) \g /dev/null
select throws_ok(format($$ select community_deletion.abort(%L, 'carol@ops', 'while a lease is live') $$, :'a_request_id'),
  'DL5D1', null, 'within the cap, abort waits for the live lease');
select tests.lc_force(format($$ update community_deletion.requests set quiescing_started_at = now() - interval '11 minutes'
                                where id = %L $$, :'a_request_id'));
select is((select stage from community_deletion.abort(:'a_request_id', 'carol@ops', 'past the cap')), 'aborted',
  'past the cap, abort no longer counts the hour-long lease as live');

select * from finish();
rollback;
