-- The PL/pgSQL write fence (the fallback where the native library cannot be
-- loaded: a managed server, no development headers). scripts/test.sh runs
-- this file, and every fence suite, against a template on which
-- community_deletion.install_write_fence(false) installed it.
begin;
\ir ../fixtures/fence.sql
select plan(5);

select is(community_deletion.write_fence_implementation(), 'plpgsql', 'the PL/pgSQL fence is installed');
select is_empty($$
  select f.proname::text from (values ('tg_scoped_table__enforce_write_fence', 'community_deletion._write_fence_plpgsql'),
                                      ('tg_scoped_table__refuse_write_early', 'community_deletion._refuse_write_early_plpgsql')) v(fn, src)
    join pg_proc f on f.proname = v.fn and f.pronamespace = 'public'::regnamespace
    join pg_proc s on s.proname = v.src and s.pronamespace = 'public'::regnamespace
   where f.prosrc is distinct from s.prosrc or f.prolang is distinct from s.prolang
      or f.proconfig is distinct from s.proconfig $$,
  'the trigger functions are exact copies of the PL/pgSQL rules');
select is((select count(*)::int from pg_trigger t
            where t.tgname like '\_010\_community\_write\_fence\_early%' and t.tgqual is null), 0,
  'the early triggers skip checked rows with their WHEN clause');
select is(to_regprocedure('community_deletion._native_community_lock_key(uuid)'), null,
  'no function of the library is left behind');
select lives_ok($$ select community_deletion.validate_catalog() $$, 'the catalog validates with the PL/pgSQL fence');

select * from finish();
rollback;
