-- A tombstone can never be deleted, revived, renamed or reused (docs/design.md#tombstone); its
-- host stays reserved forever, with a clear error (host_reserved DL8T2)
-- before the unique index would fire, in every spelling that names the same
-- host: case, full-width letters, invisible characters, ideographic dots and
-- a trailing dot aside (community_deletion._host_key).
begin;
\ir ../fixtures/fence.sql
select plan(23);

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
select throws_ok(q, 'DL8T2', null, 'the reservation holds for ' || d || ', also for the application role')
  from (values (E'insert into public.communities (host) values (''gone.example.'')', 'a trailing dot (the fully qualified name)'),
               (E'insert into public.communities (host) values (''gone.example..'')', 'trailing dots'),
               (E'insert into public.communities (host) values (E''\\uff47one.example'')', 'a full-width letter'),
               (E'insert into public.communities (host) values (E''gone\\uff0eexample'')', 'a full-width dot'),
               (E'insert into public.communities (host) values (E''gone\\u3002example'')', 'an ideographic full stop'),
               (E'insert into public.communities (host) values (E''gone\\uff61example'')', 'a half-width ideographic full stop'),
               (E'insert into public.communities (host) values (E''go\\u200bne.example'')', 'a zero-width space inside'),
               (E'insert into public.communities (host) values (E''gone.example\\U000e0020'')', 'an invisible tag character after it')) as v(q, d);
reset role;
select tests.seed_community(E'b\u00fccher.example', 1) as b \gset
select tests.fx_force_state(:'b', 'tombstone', 2);
set local role community_deletion_app;
select throws_ok($$ insert into public.communities (host) values ('xn--bcher-kva.example') $$,
  'DL8T2', null, 'the Punycode spelling of a tombstoned Unicode host is reserved');
select throws_ok($$ insert into public.communities (host) values ('XN--BCHER-KVA.example.') $$,
  'DL8T2', null, 'in any case, fully qualified too');
select throws_ok($$ insert into public.communities (host) values (E'B\u00dcCHER.EXAMPLE') $$,
  'DL8T2', null, 'and the Unicode spelling in upper case');
select is(community_deletion._host_key('xn--80akhbyknj4f.xn--bcher-kva.example'), E'\u0438\u0441\u043f\u044b\u0442\u0430\u043d\u0438\u0435.b\u00fccher.example',
  'every ACE label of a host is decoded');
select lives_ok($$ insert into public.communities (host) values ('brand-new.example') $$,
  'an unreserved host is still available');
reset role;

select * from finish();
rollback;
