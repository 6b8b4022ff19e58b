-- The columns of p_table that hold a community: the column named
-- community_id, and every column that is the referencing side of a foreign
-- key to public.communities, whatever its name. Sorted; empty for a table
-- that holds no community.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._community_columns(p_table regclass)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select coalesce(pg_catalog.array_agg(a.attname::text order by a.attname::text collate "C"), '{}')
    from pg_catalog.pg_attribute a
   where a.attrelid = p_table and a.attnum > 0 and not a.attisdropped
     and (a.attname = 'community_id'
          or exists (select 1 from pg_catalog.pg_constraint k
                      where k.conrelid = p_table and k.contype = 'f'
                        and k.confrelid = pg_catalog.to_regclass('public.communities')
                        and a.attnum = any (k.conkey))));
end;
$$;
