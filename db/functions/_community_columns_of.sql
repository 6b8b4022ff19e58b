-- _community_columns for many tables at once (validate_catalog checks every
-- registered table in one query): one row per distinct element of
-- p_tables with the columns that hold a community
-- — the column named community_id, and every column that is the referencing
-- side of a foreign key to public.communities, whatever its name — sorted;
-- empty for a table that holds none (or does not exist).
-- PL/pgSQL, generic plan: planned once a session; no JIT (docs/design.md, The
-- catalog check's cost).
create or replace function community_deletion._community_columns_of(p_tables regclass[])
  returns table (rel regclass, columns text[])
  language plpgsql
  stable
  rows 100
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
  set jit = off
as $$
begin
  return query
  -- Each table's columns looked up through pg_attribute's index, table by
  -- table (a join would read every column of the database).
  select t.rel,
         coalesce((select pg_catalog.array_agg(a.attname::text order by a.attname::text collate "C")
                     from pg_catalog.pg_attribute a
                    where a.attrelid = t.rel and a.attnum > 0 and not a.attisdropped
                      and (a.attname = 'community_id'
                           or exists (select 1 from pg_catalog.pg_constraint k
                                       where k.conrelid = t.rel and k.contype = 'f'
                                         and k.confrelid = (select pg_catalog.to_regclass('public.communities'))
                                         and a.attnum = any (k.conkey)))), '{}')
    from (select distinct x.rel from pg_catalog.unnest(p_tables) x(rel)) t;
end;
$$;
