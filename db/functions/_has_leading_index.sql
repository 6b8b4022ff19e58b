-- True when p_table has a valid, non-partial index whose first column is
-- p_column (the purge and the absence proof then never scan the fleet).
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._has_leading_index(p_table regclass, p_column text)
  returns boolean
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select exists (
    select 1 from pg_catalog.pg_index i
      join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
     where i.indrelid = p_table and a.attname = p_column and not a.attisdropped
       and i.indisvalid and i.indpred is null));
end;
$$;
