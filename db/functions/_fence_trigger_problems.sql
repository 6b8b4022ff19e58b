-- What is wrong with the write-fence triggers of registered scoped table
-- p_table, as short phrases (empty when nothing is): each of the six
-- triggers register_scoped_table attaches must exist under its name, execute
-- its function and fire for ordinary sessions (tgenabled 'O' — not disabled,
-- not REPLICA, not ALWAYS). Their form (statement level, transition tables)
-- is _live_fenced_tables' rule. The rule is _fence_trigger_problems_of's.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._fence_trigger_problems(p_table regclass)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return coalesce((select x.problems from community_deletion._fence_trigger_problems_of(array[p_table]) x), '{}');
end;
$$;
