-- communities lifecycle columns (deletion_state, deletion_fence_generation,
-- deleted_at) change only through the engine (docs/design.md#tombstone): not for the
-- application role (column privileges, 42501), not for a DBA session
-- (lifecycle guard, DL8T1), whatever settings it forges. A community under
-- deletion cannot be changed or deleted outside the engine.
begin;
\ir ../fixtures/fence.sql
select plan(17);

select tests.seed_community('life.example', 1) as c \gset

set local role community_deletion_app;
select throws_ok(format($$ update public.communities set deletion_state = 'fenced' where id = %L $$, :'c'),
  '42501', null, 'the application role cannot update deletion_state');
select throws_ok(format($$ update public.communities set deletion_fence_generation = 7 where id = %L $$, :'c'),
  '42501', null, 'the application role cannot update deletion_fence_generation');
select throws_ok(format($$ update public.communities set deleted_at = now() where id = %L $$, :'c'),
  '42501', null, 'the application role cannot update deleted_at');
select lives_ok(format($$ update public.communities set name = 'Renamed', archived_at = now() where id = %L $$, :'c'),
  'the application role updates ordinary columns (and archiving) of an active community');
select throws_ok($$ insert into public.communities (host, deletion_state) values ('sneaky.example', 'fenced') $$,
  '42501', null, 'the application role cannot choose a lifecycle state on insert');
reset role;

select set_config('community_deletion.executor_community', :'c', true);
select set_config('buzz.deletion_executor_community', :'c', true);
select throws_ok(format($$ update public.communities set deletion_state = 'active', deletion_fence_generation = 1 where id = %L $$, :'c'),
  'DL8T1', null, 'a DBA session cannot bump the fence generation, forged settings or not');
select throws_ok(format($$ update public.communities set deletion_state = 'quiescing' where id = %L $$, :'c'),
  'DL8T1', null, 'a DBA session cannot move the lifecycle state');
select throws_ok(format($$ update public.communities set deleted_at = now() where id = %L $$, :'c'),
  'DL8T1', null, 'a DBA session cannot set deleted_at');
select throws_ok($$ insert into public.communities (host, deletion_state, deleted_at) values ('pre-dead.example', 'tombstone', now()) $$,
  'DL8T1', null, 'a community cannot be inserted in a lifecycle state other than active');

select tests.fx_force_state(:'c', 'fenced', 1);
select throws_ok(format($$ update public.communities set deletion_state = 'active' where id = %L $$, :'c'),
  'DL8T1', null, 'a fenced community cannot be "rescued" by hand (abort is the sanctioned exit)');
select throws_ok(format($$ update public.communities set archived_at = null, name = 'x' where id = %L $$, :'c'),
  'DL8T1', null, 'a community under deletion cannot be changed at all outside the engine');
select throws_ok(format($$ delete from public.communities where id = %L $$, :'c'),
  'DL8T1', null, 'a community under deletion cannot be deleted');

-- Even the engine follows the lifecycle graph.
set local role community_deletion_owner;
select throws_ok(format($$ update public.communities set deletion_fence_generation = 0 where id = %L $$, :'c'),
  'DL8T1', null, 'the fence generation never decreases, even for the engine');
reset role;

-- A tombstone is frozen for the engine too, column by column: each guard
-- on its own (changing two columns at once would let one hide the other).
select tests.fx_force_state(:'c', 'tombstone', 1);
set local role community_deletion_owner;
select throws_ok(format($$ update public.communities set deletion_state = 'active' where id = %L $$, :'c'),
  'DL8T1', null, 'the engine cannot change only deletion_state of a tombstone');
select throws_ok(format($$ update public.communities set deleted_at = deleted_at + interval '1 second' where id = %L $$, :'c'),
  'DL8T1', null, 'the engine cannot change only deleted_at of a tombstone');
select throws_ok(format($$ update public.communities set deletion_fence_generation = 2 where id = %L $$, :'c'),
  'DL8T1', null, 'the engine cannot change only the fence generation of a tombstone');
select throws_ok(format($$ update public.communities set host = 'reborn.example' where id = %L $$, :'c'),
  'DL8T1', null, 'the engine cannot rename a tombstone');
reset role;

select * from finish();
rollback;
