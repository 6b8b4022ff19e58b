-- _inheritance_role for many tables at once (validate_catalog checks every
-- registered table in one query): one row per relation of p_tables that
-- exists, with why the write fence could not cover it (null when it can).
-- PL/pgSQL, generic plan: planned once a session; no JIT (docs/design.md, The
-- catalog check's cost).
create or replace function community_deletion._inheritance_role_of(p_tables regclass[])
  returns table (rel regclass, inheritance text)
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
           when c.relkind = 'p' then 'a partitioned table'
           when c.relispartition then 'a partition'
           when exists (select 1 from pg_catalog.pg_inherits i where i.inhparent = c.oid) then 'an inheritance parent'
           when exists (select 1 from pg_catalog.pg_inherits i where i.inhrelid = c.oid) then 'an inheritance child'
         end
    from pg_catalog.pg_class c
   where c.oid = any (p_tables::oid[]);
end;
$$;
