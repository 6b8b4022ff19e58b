-- The catalog check runs in every purge batch, so it checks each rule for
-- every registered table in one query: validate_catalog joins the set
-- versions of the helpers (_<helper>_of, an array of tables in, one row per
-- table out) once a check, never a per-table helper once a table. Helpers
-- of both kinds are PL/pgSQL functions with a generic plan, planned once a
-- session (docs/design.md, The catalog check's cost), each keeping its
-- pinned search_path; the set versions and validate_catalog run without JIT.
-- Plans kept for the session are not answers kept: drift made after the
-- check ran in this session — its plans cached — is seen by the very next
-- check, whichever helper finds it.
begin;
select plan(9);

-- The set versions of the helpers (one query per rule for every table).
create temp table set_helpers (fn text) on commit drop;
insert into set_helpers values
  ('community_deletion._inheritance_role_of(regclass[])'),
  ('community_deletion._community_columns_of(regclass[])'),
  ('community_deletion._has_leading_index_of(regclass[],text[])'),
  ('community_deletion._fence_trigger_problems_of(regclass[])'),
  ('community_deletion._foreign_key_index_problems_of(regclass[])'),
  ('community_deletion._row_security_problem_of(regclass[])'),
  ('community_deletion._invoker_code_problems_of(regclass[],text)');

select is(array(select h.fn
                  from unnest(array[
                    'community_deletion._invoker_code_problems(regclass,text)',
                    'community_deletion._row_security_problem(regclass)',
                    'community_deletion._foreign_key_index_problems(regclass)',
                    'community_deletion._community_columns(regclass)',
                    'community_deletion._fence_trigger_problems(regclass)',
                    'community_deletion._has_leading_index(regclass,text)',
                    'community_deletion._inheritance_role(regclass)',
                    'community_deletion._provenance_guard_problems(regclass,text)',
                    'community_deletion._live_community_tables()',
                    'community_deletion._live_fenced_tables()']
                  || array(select fn from set_helpers)) as h(fn)
                  join pg_proc p on p.oid = h.fn::regprocedure
                  join pg_language l on l.oid = p.prolang
                 where l.lanname <> 'plpgsql'
                    or not coalesce('plan_cache_mode=force_generic_plan' = any (p.proconfig), false)
                    or not coalesce('search_path=pg_catalog, pg_temp' = any (p.proconfig), false)
                 order by 1),
          '{}'::text[],
          'every helper of the catalog check is PL/pgSQL, planned once a session, search_path pinned');

select is(array(select h.fn
                  from unnest(array[
                    'community_deletion.validate_catalog()']
                  || array(select fn from set_helpers)) as h(fn)
                  join pg_proc p on p.oid = h.fn::regprocedure
                 where not coalesce('jit=off' = any (p.proconfig), false)
                 order by 1),
          '{}'::text[],
          'the catalog check and its set helpers run without JIT');

-- How often a check calls each helper (this transaction's counts; counting
-- needs track_functions).
set local track_functions = 'all';
create function pg_temp.helper_calls() returns jsonb language sql as $$
  select jsonb_object_agg(p.proname, pg_stat_get_xact_function_calls(p.oid))
    from pg_proc p
   where p.pronamespace = 'community_deletion'::regnamespace
     and p.proname in ('_inheritance_role', '_community_columns', '_has_leading_index', '_fence_trigger_problems',
                       '_foreign_key_index_problems', '_row_security_problem', '_invoker_code_problems',
                       '_inheritance_role_of', '_community_columns_of', '_has_leading_index_of', '_fence_trigger_problems_of',
                       '_foreign_key_index_problems_of', '_row_security_problem_of', '_invoker_code_problems_of')
$$;
create temp table helper_calls_before as select pg_temp.helper_calls() as calls;
select community_deletion.validate_catalog();
select is((select jsonb_object_agg(k, coalesce((pg_temp.helper_calls() ->> k)::bigint, 0) - coalesce((b.calls ->> k)::bigint, 0))
             from helper_calls_before b, jsonb_object_keys(pg_temp.helper_calls()) k),
          jsonb_build_object(
            '_inheritance_role', 0, '_community_columns', 0, '_has_leading_index', 0, '_fence_trigger_problems', 0,
            '_foreign_key_index_problems', 0, '_row_security_problem', 0,
            -- public.communities' own check (one relation, not one per table).
            '_invoker_code_problems', 1,
            '_inheritance_role_of', 1, '_community_columns_of', 1, '_has_leading_index_of', 1, '_fence_trigger_problems_of', 1,
            '_foreign_key_index_problems_of', 1,
            -- once from each _invoker_code_problems_of call: scoped, provenance, public.communities.
            '_row_security_problem_of', 3,
            '_invoker_code_problems_of', 3),
          'one check calls each set helper once (invoker code: scoped tables, provenance tables, public.communities) and no per-table helper per table');

create function pg_temp.check_error() returns text language plpgsql as $$
begin
  perform community_deletion.validate_catalog();
  return 'no error';
exception when others then
  return sqlstate || ': ' || sqlerrm;
end $$;

-- Warm: more than five checks, so a plan cache that chose by cost would have
-- settled on its generic plans too.
do $$ begin for i in 1..8 loop perform community_deletion.validate_catalog(); end loop; end $$;
select is(pg_temp.check_error(), 'no error', 'the reference schema validates, again and again in one session');

-- A foreign key's index dropped (_foreign_key_index_problems).
savepoint drift;
drop index public.delivery_log_event_idx;
select matches(pg_temp.check_error(), '^DL7C1: .*delivery_log: foreign key .* references events but no index leads with',
  'the next check in the session sees a dropped foreign-key index');
rollback to savepoint drift;

-- Code a non-superuser owns, attached to a scoped table (_invoker_code_problems).
create role cd_tests_plan_owner nologin;
savepoint drift;
create function public.plan_owner_trigger() returns trigger language plpgsql as $$ begin return old; end $$;
alter function public.plan_owner_trigger() owner to cd_tests_plan_owner;
create trigger plan_owner_delete before delete on public.events for each row execute function public.plan_owner_trigger();
select matches(pg_temp.check_error(), '^DL7C1: .*events: .*trigger plan_owner_delete runs public\.plan_owner_trigger\(\)',
  'the next check sees a trigger whose function another role owns');
rollback to savepoint drift;

-- A second column holding a community on a scoped table (_community_columns).
savepoint drift;
alter table public.events add column also_community uuid references public.communities (id);
select matches(pg_temp.check_error(), '^DL7C1: .*events: .*the columns holding a community are also_community, community_id',
  'the next check sees a second community column');
rollback to savepoint drift;

-- An unregistered table holding communities (_live_community_tables).
savepoint drift;
create table public.plan_stray (community_id uuid);
select matches(pg_temp.check_error(), '^DL7C1: .*unregistered tables holding communities: plan_stray',
  'the next check sees a new unregistered table');
rollback to savepoint drift;

select is(pg_temp.check_error(), 'no error', 'and with every drift rolled back the catalog validates again');

select * from finish();
rollback;
