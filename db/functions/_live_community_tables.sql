-- Sorted labels (_table_label) of every relation that holds communities: a
-- table, partitioned table, partition, inheritance child, foreign table or
-- materialized view, in any schema but the system schemas, temporary schemas
-- and the engine's own, with a column named community_id or a foreign key to
-- public.communities under any column name. The registry must list exactly
-- these (docs/design.md#catalog).
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._live_community_tables()
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select coalesce(pg_catalog.array_agg(l.label order by l.label collate "C"), '{}')
    from (select community_deletion._table_label(n.nspname::text, c.relname::text) as label
            from pg_catalog.pg_class c
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where c.relkind in ('r', 'p', 'f', 'm')
             and n.nspname not in ('pg_catalog', 'information_schema', 'community_deletion')
             and n.nspname !~ '^pg_(toast|temp_|toast_temp_)'
             and (exists (select 1 from pg_catalog.pg_attribute a
                           where a.attrelid = c.oid and a.attname = 'community_id' and not a.attisdropped)
                  or exists (select 1 from pg_catalog.pg_constraint k
                              where k.conrelid = c.oid and k.contype = 'f'
                                and k.confrelid = (select pg_catalog.to_regclass('public.communities'))))) l);
end;
$$;
