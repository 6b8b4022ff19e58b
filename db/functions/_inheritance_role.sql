-- Why the write fence could not cover p_table, or null when it can: a
-- partitioned table, a partition, an inheritance parent or an inheritance
-- child. Statement-level triggers on a parent do not fire for statements
-- addressed to a partition or child, and a child's rows are read and deleted
-- through its parent, so the engine registers only plain tables as scoped or
-- provenance (docs/security.md#partitions-and-inheritance). The rule is
-- _inheritance_role_of's.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._inheritance_role(p_table regclass)
  returns text
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (select x.inheritance from community_deletion._inheritance_role_of(array[p_table]) x);
end;
$$;
