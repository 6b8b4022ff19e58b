-- Sorted names of the live public tables (not partitions) that have a
-- community_id column: the set the registry must equal.
create or replace function community_deletion._live_community_tables()
  returns text[]
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select coalesce(array_agg(c.relname::text order by c.relname::text collate "C"), '{}')
    from pg_catalog.pg_class c
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    join pg_catalog.pg_attribute a on a.attrelid = c.oid
   where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
     and a.attname = 'community_id' and not a.attisdropped
$$;
