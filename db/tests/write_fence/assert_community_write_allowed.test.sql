-- assert_community_write_allowed gives application code the fence decision
-- inside its own transaction, taking the community lock shared.
begin;
\ir ../fixtures/fence.sql
select plan(9);

select tests.seed_community('a.example', 1) as c \gset

set local role community_deletion_app;
select lives_ok(format($$ select community_deletion.assert_community_write_allowed(%L) $$, :'c'),
  'an active community passes the assertion');
select is(community_deletion.community_write_allowed(:'c'), true, 'community_write_allowed is true while active');
reset role;

select ok(exists (
  select 1 from pg_catalog.pg_locks l
   where l.locktype = 'advisory' and l.pid = pg_backend_pid() and l.mode = 'ShareLock' and l.granted
     and ((l.classid::bigint << 32) | l.objid::bigint) = (community_deletion._community_lock_key(:'c') & x'ffffffffffffffff'::bigint)),
  'the assertion holds the community advisory lock SHARED until the transaction ends');

select tests.fx_force_state(:'c', 'quiescing', 0);
select throws_ok(format($$ select community_deletion.assert_community_write_allowed(%L) $$, :'c'),
  '55000', null, 'a quiescing community fails the assertion (55000)');
select tests.fx_force_state(:'c', 'fenced', 1);
select throws_ok(format($$ select community_deletion.assert_community_write_allowed(%L) $$, :'c'),
  '55000', null, 'a fenced community fails the assertion (55000)');
select is(community_deletion.community_write_allowed(:'c'), false, 'community_write_allowed is false while fenced');
select tests.fx_force_state(:'c', 'tombstone', 1);
select throws_ok(format($$ select community_deletion.assert_community_write_allowed(%L) $$, :'c'),
  '55000', null, 'a tombstone fails the assertion (55000)');
select throws_ok($$ select community_deletion.assert_community_write_allowed('00000000-0000-4000-8000-00000000dead') $$,
  '55000', null, 'a missing community fails the assertion (55000)');
select is(community_deletion.community_write_allowed(null), false, 'a null community is not writable');

select * from finish();
rollback;
