-- Whether row-level security on relation p_rel would apply to the engine
-- owner, so that a policy could hide rows from the purge, the absence proof
-- or the inventory: null when it cannot, else the problem in words. RLS does
-- not apply to a role with BYPASSRLS (community_deletion_owner has it when a
-- superuser created it, db/engine/roles.sql), nor to the table's owner unless
-- the table FORCEs row-level security. On a managed server the engine owner
-- has no BYPASSRLS (only a superuser may grant it), so a registered table
-- with row-level security enabled is refused by register_scoped_table /
-- register_unscoped_table and reported by validate_catalog.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._row_security_problem(p_rel pg_catalog.regclass)
  returns text
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select case
           when not c.relrowsecurity then null
           when (select r.rolbypassrls from pg_catalog.pg_roles r where r.rolname = 'community_deletion_owner') then null
           when not c.relforcerowsecurity and pg_catalog.pg_has_role('community_deletion_owner', c.relowner, 'USAGE') then null
           else 'row-level security applies to community_deletion_owner (it has no BYPASSRLS'
                || case when c.relforcerowsecurity then ' and the table FORCEs row-level security' else ' and does not own the table' end
                || ')'
         end
    from pg_catalog.pg_class c
   where c.oid = p_rel);
end;
$$;
