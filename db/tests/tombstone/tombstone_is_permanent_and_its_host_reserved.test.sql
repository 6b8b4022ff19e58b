-- A tombstone can never be deleted, revived, renamed or reused (docs/design.md#tombstone); its
-- host stays reserved forever, case-insensitively, with a clear error
-- (host_reserved DL8T2) before the unique index would fire.
begin;
\ir ../fixtures/fence.sql
select plan(11);

select tests.seed_community('gone.example', 1) as t \gset
select tests.seed_community('alive.example', 1) as a \gset
select tests.fx_force_state(:'t', 'tombstone', 3);

select throws_ok(format($$ delete from public.communities where id = %L $$, :'t'),
  'DL8T1', null, 'a tombstone cannot be deleted');
select throws_ok(format($$ update public.communities set name = 'zombie' where id = %L $$, :'t'),
  'DL8T1', null, 'a tombstone cannot be changed by a DBA session');

set local role community_deletion_owner;
select throws_ok(format($$ update public.communities set deletion_state = 'active', deleted_at = null where id = %L $$, :'t'),
  'DL8T1', null, 'not even the engine can revive a tombstone');
select throws_ok(format($$ update public.communities set host = 'renamed.example' where id = %L $$, :'t'),
  'DL8T1', null, 'not even the engine can rename a tombstone (its host stays reserved)');
select throws_ok(format($$ update public.communities set deletion_fence_generation = 4 where id = %L $$, :'t'),
  'DL8T1', null, 'a tombstone''s fence generation is final');
select lives_ok(format($$ update public.communities set signing_key = null, icon = null where id = %L $$, :'t'),
  'the engine may still clear a tombstone''s secrets (idempotent purge)');
select throws_ok(format($$ delete from public.communities where id = %L $$, :'t'),
  'DL8T1', null, 'not even the engine can delete a tombstone');
reset role;

select throws_ok($$ insert into public.communities (host) values ('gone.example') $$,
  'DL8T2', null, 'creating a community with a tombstone''s host fails (host_reserved)');
set local role community_deletion_app;
select throws_ok($$ insert into public.communities (host) values ('GONE.Example') $$,
  'DL8T2', null, 'the reservation is case-insensitive, also for the application role');
select throws_ok(format($$ update public.communities set host = 'Gone.example' where id = %L $$, :'a'),
  'DL8T2', null, 'renaming another community to a tombstone''s host fails');
select lives_ok($$ insert into public.communities (host) values ('brand-new.example') $$,
  'an unreserved host is still available');
reset role;

select * from finish();
rollback;
