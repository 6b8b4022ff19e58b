-- The write fence's native fast path (db/native, write_fence_install.sql):
-- installed by the migrations when the library is present (CI builds it), the
-- same lock key as the SQL function, no WHEN clause on its early triggers, and
-- it decides only "one community, active": everything else — a refusal, the
-- engine at fenced, a shadowing search_path, row-level security or missing
-- privileges on communities — comes out exactly as the PL/pgSQL fence decides.
-- Run only against the native template (scripts/test.sh); the PL/pgSQL
-- fallback has its own file in db/tests/plpgsql_fence.
begin;
\ir ../fixtures/fence.sql
select plan(20);

select is(community_deletion.write_fence_implementation(), 'native',
  'the migrations installed the native fast path (make -C db/native install)');
select is_empty($$
  select p.oid::regprocedure::text from pg_proc p join pg_language l on l.oid = p.prolang
   where p.oid in ('community_deletion.tg_scoped_table__enforce_write_fence()'::regprocedure,
                   'community_deletion.tg_scoped_table__refuse_write_early()'::regprocedure)
     and l.lanname <> 'c' $$,
  'both trigger functions are the library''s');

select is_empty($$
  select u from (select gen_random_uuid() u from generate_series(1, 2000)
                 union all values ('00000000-0000-0000-0000-000000000000'::uuid), ('ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid),
                                  ('80000000-0000-4000-8000-000000000000'::uuid), ('7fffffff-ffff-4fff-bfff-ffffffffffff'::uuid)) x
  where community_deletion._community_lock_key(u) <> community_deletion._native_community_lock_key(u) $$,
  'the library computes community_deletion._community_lock_key for 2000 random and edge uuids');

select is_empty($$
  select c.relname::text from pg_trigger t join pg_class c on c.oid = t.tgrelid
   where t.tgname like '\_010\_community\_write\_fence\_early%' and t.tgqual is not null $$,
  'the native early triggers carry no WHEN clause');
select is((select count(*)::int from pg_trigger t
            where t.tgname like '\_010\_community\_write\_fence\_early%'),
          2 * (select count(*)::int from community_deletion.registered_tables where kind = 'scoped'),
  'every scoped table has both early triggers');
select lives_ok($$ select community_deletion.validate_catalog() $$, 'the catalog validates with the native fence');

select tests.seed_community('native-active.example', 2) as a \gset
select tests.seed_community('native-fenced.example', 2) as f \gset
select tests.fx_force_state(:'f', 'fenced', 1);

-- A shadowing search_path cannot redirect the state lookup.
create schema shadow;
create table shadow.communities (id uuid primary key, deletion_state text not null);
insert into shadow.communities values (:'f', 'active');
grant usage on schema shadow to community_deletion_app;
grant select on shadow.communities to community_deletion_app;

set local role community_deletion_app;
set local search_path = shadow, public;
select throws_ok(
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'shadowed') $$, :'f'),
  '55000', null, 'a communities table earlier in search_path does not make a fenced community writable');
reset search_path;
select lives_ok(
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'one') $$, :'a'),
  'a single-row INSERT for an active community passes');
select lives_ok(
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) select %L, 'many-' || g from generate_series(1, 500) g $$, :'a'),
  'a 500-row INSERT for an active community passes');
select lives_ok(
  format($$ update public.pubkey_allowlist set added_by = 'native' where community_id = %L $$, :'a'),
  'an UPDATE for an active community passes');
select lives_ok(
  format($$ delete from public.pubkey_allowlist where community_id = %L and pubkey like 'many-%%' $$, :'a'),
  'a DELETE for an active community passes');
select throws_ok(
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'refused') $$, :'f'),
  '55000', null, 'a fenced community is refused (decided in PL/pgSQL)');
select throws_ok(
  format($$ delete from public.users where community_id = %L $$, :'f'),
  '55000', null, 'a DELETE of a fenced community''s parent rows fails with 55000, not a foreign-key error');
select throws_ok(
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'missing') $$, gen_random_uuid()),
  '55000', null, 'a missing community is refused with 55000, not a foreign-key error');
reset role;

-- Row-level security on communities: the writer's own view of the row counts.
alter table public.communities enable row level security;
create policy hide_everything on public.communities for select to community_deletion_app using (false);
set local role community_deletion_app;
select throws_ok(
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'hidden') $$, :'a'),
  '55000', null, 'a community the writer cannot see through row-level security is not writable (as in PL/pgSQL)');
reset role;
drop policy hide_everything on public.communities;
alter table public.communities disable row level security;

-- Without SELECT on communities the PL/pgSQL fence fails with 42501; so does
-- the native one, which never reads what the writer may not read.
revoke select on public.communities from community_deletion_app;
set local role community_deletion_app;
select throws_ok(
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'no-select') $$, :'a'),
  '42501', null, 'a writer without SELECT on communities is refused by the privilege check');
reset role;
grant select on public.communities to community_deletion_app;

-- Re-installing: an unloadable library falls back to PL/pgSQL with a warning,
-- and back.
select is(community_deletion.install_write_fence(true, '$libdir/community_deletion_fence_absent'), 'plpgsql',
  'an unloadable library installs the PL/pgSQL fence');
select is((select count(*)::int from pg_trigger t
            where t.tgname like '\_010\_community\_write\_fence\_early%' and t.tgqual is null), 0,
  'the PL/pgSQL early triggers carry their WHEN clause again');
select is(community_deletion.install_write_fence(), 'native', 'installing again with the library restores the native path');
select is((select pg_get_userbyid(p.proowner) || ':' || has_function_privilege('public', p.oid, 'execute')::text
             from pg_proc p where p.oid = 'community_deletion._native_community_lock_key(uuid)'::regprocedure),
  'community_deletion_owner:false', 'the re-created library function is the owner''s and not executable by PUBLIC');

select * from finish();
rollback;
