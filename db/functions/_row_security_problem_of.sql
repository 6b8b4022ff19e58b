-- _row_security_problem for many relations at once (validate_catalog checks
-- every registered table in one query): one row per relation of p_rels that
-- exists, with the problem in words when row-level security would apply to
-- the engine owner, else null.
-- PL/pgSQL, generic plan: planned once a session; no JIT (docs/design.md, The
-- catalog check's cost).
create or replace function community_deletion._row_security_problem_of(p_rels pg_catalog.regclass[])
  returns table (rel pg_catalog.regclass, problem text)
  language plpgsql
  stable
  rows 100
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
  set jit = off
as $$
begin
  return query
  select c.oid::pg_catalog.regclass,
         case
           when not c.relrowsecurity then null
           when (select r.rolbypassrls from pg_catalog.pg_roles r where r.rolname = 'community_deletion_owner') then null
           when not c.relforcerowsecurity and pg_catalog.pg_has_role('community_deletion_owner', c.relowner, 'USAGE') then null
           else 'row-level security applies to community_deletion_owner (it has no BYPASSRLS'
                || case when c.relforcerowsecurity then ' and the table FORCEs row-level security' else ' and does not own the table' end
                || ')'
         end
    from pg_catalog.pg_class c
   where c.oid = any (p_rels::pg_catalog.oid[]);
end;
$$;
