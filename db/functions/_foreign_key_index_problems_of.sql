-- _foreign_key_index_problems for many tables at once (validate_catalog
-- checks every registered table in one query): one row per table of
-- p_tables that has a problem, with its foreign keys that reference a
-- registered scoped table and have no valid, non-partial index whose leading
-- columns are exactly the key's referencing columns (in any order) — one
-- problem per key, naming it, its columns and the index it needs, sorted by
-- key name.
-- PL/pgSQL, generic plan: planned once a session; no JIT (docs/design.md, The
-- catalog check's cost).
create or replace function community_deletion._foreign_key_index_problems_of(p_tables regclass[])
  returns table (rel regclass, problems text[])
  language plpgsql
  stable
  rows 100
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
  set jit = off
as $$
begin
  return query
  select k.conrelid::pg_catalog.regclass,
         array_agg(
           format('foreign key %s (%s) references %s but no index leads with (%s)',
                  k.conname, k.columns, k.referenced, k.columns)
           order by k.conname collate "C")
    from (select c.conrelid, c.conname::text as conname, c.conkey,
                 (select string_agg(quote_ident(a.attname), ', ' order by array_position(c.conkey, a.attnum))
                    from pg_catalog.pg_attribute a
                   where a.attrelid = c.conrelid and a.attnum = any (c.conkey)) as columns,
                 community_deletion._table_label(rn.nspname::text, rc.relname::text) as referenced
            from pg_catalog.pg_constraint c
            join pg_catalog.pg_class rc on rc.oid = c.confrelid
            join pg_catalog.pg_namespace rn on rn.oid = rc.relnamespace
           where c.conrelid = any (p_tables::oid[]) and c.contype = 'f'
             and exists (select 1 from community_deletion.registered_tables r
                          where r.kind = 'scoped' and r.schema_name = rn.nspname::text and r.table_name = rc.relname::text)) k
   where not exists (
     select 1 from pg_catalog.pg_index i
      where i.indrelid = k.conrelid and i.indisvalid and i.indpred is null
        and i.indnkeyatts >= cardinality(k.conkey)
        and (select array_agg(i.indkey[s] order by i.indkey[s]) from generate_series(0, cardinality(k.conkey) - 1) s)
            = (select array_agg(x order by x) from unnest(k.conkey) x))
   group by k.conrelid;
end;
$$;
