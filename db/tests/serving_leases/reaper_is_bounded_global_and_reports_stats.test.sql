-- The reaper deletes leases that expired more than settings.serving_lease_grace
-- ago in bounded batches, fleet-wide (also of a tombstoned tenant), never live
-- ones nor ones still within the grace (the fence waits for those); stats
-- report active, expired and dead tuples.
begin;
\ir ../fixtures/fence.sql
select plan(10);

select tests.seed_community('a.example', 1) as a \gset
select tests.seed_community('t.example', 1) as t \gset
select community_deletion.acquire_serving_lease(c, 'reaper_test', 'owner-' || i)
  from (values (:'a'::uuid, 1), (:'a'::uuid, 2), (:'t'::uuid, 3), (:'t'::uuid, 4)) v(c, i);
select community_deletion.acquire_serving_lease(:'a', 'still_live', 'live-owner');
select community_deletion.acquire_serving_lease(:'a', 'in_grace', 'grace-owner');
update community_deletion.serving_write_leases set lease_until = now() - interval '1 hour' where operation = 'reaper_test';
update community_deletion.serving_write_leases set lease_until = now() - interval '1 second' where operation = 'in_grace';
select tests.fx_force_state(:'t', 'tombstone', 1);

select is(community_deletion.serving_lease_stats() - 'dead_tuples', '{"active": 1, "expired": 5}'::jsonb,
  'stats count active and expired leases');
select ok(community_deletion.serving_lease_stats() ? 'dead_tuples', 'stats report the dead tuple estimate');
select is(community_deletion.reap_serving_leases(3), 3, 'a reap deletes at most its limit');
select is((community_deletion.serving_lease_stats()->>'expired')::int, 2, 'one expired lease is left besides the one in its grace');
select is(community_deletion.reap_serving_leases(10), 1, 'the next reap deletes the rest, whatever the community''s state');
select is(community_deletion.reap_serving_leases(10), 0, 'nothing is left to reap');
select is((select count(*)::int from community_deletion.serving_write_leases where operation = 'still_live'), 1,
  'a live lease is never reaped');
select is((select count(*)::int from community_deletion.serving_write_leases where operation = 'in_grace'), 1,
  'nor one that expired within the grace');
select throws_ok($$ select community_deletion.reap_serving_leases(0) $$, 'DL1I1', null, 'a limit below 1 is refused');
select throws_ok($$ select community_deletion.reap_serving_leases(10001) $$, 'DL1I1', null, 'a limit above 10000 is refused');

select * from finish();
rollback;
