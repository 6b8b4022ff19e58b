-- The foreign keys of registered table p_table that reference a registered
-- scoped table and have no index to find their referencing rows: one
-- problem per key, naming it, its columns and the index it needs. The purge
-- deletes parents after their children, and every deleted parent row makes
-- PostgreSQL look up referencing rows of each such key; without a valid,
-- non-partial index whose leading columns are exactly the key's referencing
-- columns (in any order) each lookup scans the referencing table, and the
-- purge turns quadratic in the tenant's size (docs/benchmarks.md).
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._foreign_key_index_problems(p_table regclass)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select coalesce(array_agg(
           format('foreign key %s (%s) references %s but no index leads with (%s)',
                  k.conname, k.columns, k.referenced, k.columns)
           order by k.conname collate "C"), '{}')
    from (select c.conname::text as conname, c.conkey,
                 (select string_agg(quote_ident(a.attname), ', ' order by array_position(c.conkey, a.attnum))
                    from pg_catalog.pg_attribute a
                   where a.attrelid = c.conrelid and a.attnum = any (c.conkey)) as columns,
                 community_deletion._table_label(rn.nspname::text, rc.relname::text) as referenced
            from pg_catalog.pg_constraint c
            join pg_catalog.pg_class rc on rc.oid = c.confrelid
            join pg_catalog.pg_namespace rn on rn.oid = rc.relnamespace
           where c.conrelid = p_table and c.contype = 'f'
             and exists (select 1 from community_deletion.registered_tables r
                          where r.kind = 'scoped' and r.schema_name = rn.nspname::text and r.table_name = rc.relname::text)) k
   where not exists (
     select 1 from pg_catalog.pg_index i
      where i.indrelid = p_table and i.indisvalid and i.indpred is null
        and i.indnkeyatts >= cardinality(k.conkey)
        and (select array_agg(i.indkey[s] order by i.indkey[s]) from generate_series(0, cardinality(k.conkey) - 1) s)
            = (select array_agg(x order by x) from unnest(k.conkey) x)));
end;
$$;
