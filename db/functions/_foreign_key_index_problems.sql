-- The foreign keys of registered table p_table that reference a registered
-- scoped table and have no index to find their referencing rows: one
-- problem per key, naming it, its columns and the index it needs. The purge
-- deletes parents after their children, and every deleted parent row makes
-- PostgreSQL look up referencing rows of each such key; without a valid,
-- non-partial index whose leading columns are exactly the key's referencing
-- columns (in any order) each lookup scans the referencing table, and the
-- purge turns quadratic in the tenant's size (docs/benchmarks.md). The rule
-- is _foreign_key_index_problems_of's.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._foreign_key_index_problems(p_table regclass)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return coalesce((select x.problems from community_deletion._foreign_key_index_problems_of(array[p_table]) x), '{}');
end;
$$;
