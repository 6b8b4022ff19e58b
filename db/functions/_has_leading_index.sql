-- True when p_table has a valid, non-partial index whose first column is
-- p_column (the purge and the absence proof then never scan the fleet).
create or replace function community_deletion._has_leading_index(p_table regclass, p_column text)
  returns boolean
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select exists (
    select 1 from pg_catalog.pg_index i
      join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
     where i.indrelid = p_table and a.attname = p_column and not a.attisdropped
       and i.indisvalid and i.indpred is null)
$$;
