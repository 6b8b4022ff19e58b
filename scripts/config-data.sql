-- The engine's configuration data as INSERT statements, one per row in key
-- order: the table registry, the storage taxonomy and the settings row —
-- what a database needs besides its catalog to run a deletion. Runtime data
-- (requests, approvals, checkpoints, leases, sweeps) is never part of it.
-- Columns filled by a now() default (registered_at) are left to the default so
-- the output is the same for every build. Used by scripts/dump-schema.sh (the
-- data section of schema.sql) and scripts/parity.sh (data parity).
-- Run with: psql -X -At -v ON_ERROR_STOP=1 -f scripts/config-data.sql
with config(schema_name, table_name, ord) as (
  values ('community_deletion', 'registered_tables', 1),
         ('community_deletion', 'storage_taxonomy', 2),
         ('community_deletion', 'settings', 3)
)
select format(
         $q$select format('INSERT INTO %%I.%%I (%s) VALUES (%%s);', %L, %L, concat_ws(', ', %s)) from %I.%I order by %s$q$,
         string_agg(quote_ident(a.attname), ', ' order by a.attnum),
         c.schema_name, c.table_name,
         string_agg(format('quote_nullable(%I)', a.attname), ', ' order by a.attnum),
         c.schema_name, c.table_name,
         (select string_agg(quote_ident(k.attname), ', ' order by array_position(i.indkey::int2[], k.attnum))
            from pg_catalog.pg_index i
            join pg_catalog.pg_attribute k on k.attrelid = i.indrelid and k.attnum = any (i.indkey::int2[])
           where i.indrelid = format('%I.%I', c.schema_name, c.table_name)::regclass and i.indisprimary))
  from config c
  join pg_catalog.pg_attribute a on a.attrelid = format('%I.%I', c.schema_name, c.table_name)::regclass
  left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
 where a.attnum > 0 and not a.attisdropped
   and coalesce(pg_catalog.pg_get_expr(d.adbin, d.adrelid), '') <> 'now()'
 group by c.schema_name, c.table_name, c.ord
 order by c.ord
\gexec
