-- The relation a registry row names, or null when no such table exists (it
-- was dropped or renamed: the catalog check then reports drift).
create or replace function community_deletion._registered_relation(p_schema text, p_table text)
  returns regclass
  language sql
  stable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.to_regclass(pg_catalog.format('%I.%I', p_schema, p_table))
$$;
