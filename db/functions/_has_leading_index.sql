-- True when p_table has a valid, non-partial index whose first column is
-- p_column (the purge and the absence proof then never scan the fleet). The
-- rule is _has_leading_index_of's.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._has_leading_index(p_table regclass, p_column text)
  returns boolean
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (select x.has_index from community_deletion._has_leading_index_of(array[p_table], array[p_column]) x);
end;
$$;
