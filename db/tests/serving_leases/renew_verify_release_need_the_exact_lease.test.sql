-- Renew and verify succeed only for the exact lease (id, owner, generation,
-- fence generation), unexpired, on an active or quiescing community still at
-- that fence generation; release is exact and a stale release is harmless.
begin;
\ir ../fixtures/fence.sql
select plan(14);

select tests.seed_community('renew.example', 1) as c \gset
set local role community_deletion_app;
select (l).id as id, (l).generation as g, (l).fence_generation as fg, (l).lease_until as until
  from (select community_deletion.acquire_serving_lease(:'c', 'git_push', 'relay-1', 30) as l) x \gset

select cmp_ok(community_deletion.renew_serving_lease(:'id', 'relay-1', :g, :fg, 90), '>', :'until'::timestamptz,
  'the exact lease renews and its expiry moves forward');
select lives_ok(format($$ select community_deletion.verify_serving_lease(%L, 'relay-1', %s, %s) $$, :'id', :g, :fg),
  'the exact lease verifies');
select throws_ok(format($$ select community_deletion.renew_serving_lease(%L, 'relay-2', %s, %s) $$, :'id', :g, :fg),
  'DL5S1', null, 'another owner cannot renew');
select throws_ok(format($$ select community_deletion.renew_serving_lease(%L, 'relay-1', %s, %s) $$, :'id', :g + 1, :fg),
  'DL5S1', null, 'another lease generation cannot renew');
select throws_ok(format($$ select community_deletion.verify_serving_lease(%L, 'relay-1', %s, %s) $$, :'id', :g, :fg + 1),
  'DL5S1', null, 'another fence generation does not verify');
select throws_ok(format($$ select community_deletion.verify_serving_lease(%L, 'relay-1', %s, %s) $$, gen_random_uuid(), :g, :fg),
  'DL5S1', null, 'an unknown lease does not verify');
select is(community_deletion.release_serving_lease(:'id', 'relay-2', :g, :fg), false, 'another owner cannot release');
reset role;

update community_deletion.serving_write_leases set lease_until = now() - interval '1 second' where id = :'id';
set local role community_deletion_app;
select throws_ok(format($$ select community_deletion.renew_serving_lease(%L, 'relay-1', %s, %s) $$, :'id', :g, :fg),
  'DL5S1', null, 'an expired lease cannot renew (the holder must stop)');
select throws_ok(format($$ select community_deletion.verify_serving_lease(%L, 'relay-1', %s, %s) $$, :'id', :g, :fg),
  'DL5S1', null, 'an expired lease does not verify');
reset role;
update community_deletion.serving_write_leases set lease_until = now() + interval '1 minute' where id = :'id';

select tests.fx_force_state(:'c', 'quiescing');
select lives_ok(format($$ select community_deletion.renew_serving_lease(%L, 'relay-1', %s, %s) $$, :'id', :g, :fg),
  'quiescing: the admitted lease still renews');
select tests.fx_force_state(:'c', 'fenced', 1);
select throws_ok(format($$ select community_deletion.renew_serving_lease(%L, 'relay-1', %s, %s) $$, :'id', :g, :fg),
  'DL5S1', null, 'fenced: renewal refused');
select tests.fx_force_state(:'c', 'active', 2);
select throws_ok(format($$ select community_deletion.verify_serving_lease(%L, 'relay-1', %s, %s) $$, :'id', :g, :fg),
  'DL5S1', null, 'after an abort bumped the generation the old lease never verifies again');

set local role community_deletion_app;
select is(community_deletion.release_serving_lease(:'id', 'relay-1', :g, :fg), true, 'the holder releases its lease');
select is(community_deletion.release_serving_lease(:'id', 'relay-1', :g, :fg), false, 'a repeated (stale) release is harmless');
reset role;

select * from finish();
rollback;
