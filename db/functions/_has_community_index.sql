-- True when p_table has a valid, non-partial index whose first column is
-- community_id (the purge and the absence proof then never scan the fleet).
create or replace function community_deletion._has_community_index(p_table regclass)
  returns boolean
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select exists (
    select 1 from pg_catalog.pg_index i
      join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
     where i.indrelid = p_table and a.attname = 'community_id' and not a.attisdropped
       and i.indisvalid and i.indpred is null)
$$;
