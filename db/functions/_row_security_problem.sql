-- Whether row-level security on relation p_rel would apply to the engine
-- owner, so that a policy could hide rows from the purge, the absence proof
-- or the inventory: null when it cannot, else the problem in words. RLS does
-- not apply to a role with BYPASSRLS (community_deletion_owner has it when a
-- superuser created it, db/engine/roles.sql), nor to the table's owner unless
-- the table FORCEs row-level security. On a managed server the engine owner
-- has no BYPASSRLS (only a superuser may grant it), so a registered table
-- with row-level security enabled is refused by register_scoped_table /
-- register_unscoped_table and reported by validate_catalog. The rule is
-- _row_security_problem_of's.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._row_security_problem(p_rel pg_catalog.regclass)
  returns text
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (select x.problem from community_deletion._row_security_problem_of(array[p_rel]) x);
end;
$$;
