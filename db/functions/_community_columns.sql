-- The columns of p_table that hold a community: the column named
-- community_id, and every column that is the referencing side of a foreign
-- key to public.communities, whatever its name. Sorted; empty for a table
-- that holds no community. The rule is _community_columns_of's.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._community_columns(p_table regclass)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return coalesce((select x.columns from community_deletion._community_columns_of(array[p_table]) x), '{}');
end;
$$;
