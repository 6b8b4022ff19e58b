-- The community's owned prefixes from the storage taxonomy ("{community}"
-- replaced by the lowercase uuid), in byte order.
create or replace function community_deletion._owned_prefixes(p_community uuid)
  returns text[]
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select coalesce(array_agg(p order by p collate "C"), '{}')
    from (select replace(t.prefix_template, '{community}', lower(p_community::text)) as p
            from community_deletion.storage_taxonomy t
           where t.scope = 'owned') owned
$$;
