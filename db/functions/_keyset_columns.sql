-- The key columns, community column first, of the index a bounded purge
-- batch walks p_table's community in (community_deletion._purge_batch,
-- "keyset continuation"), or NULL when p_table has none. Eligible: a valid,
-- ready, non-partial, unique btree index of an ordinary table whose first
-- key column is p_column and which has at least one more key column; every
-- key column a plain NOT NULL column (no expression), ascending, nulls last,
-- with its type's default btree operator class and the column's own
-- collation, and of a base type that is not an array (not a domain,
-- composite, enum or an array, which can be of a composite holding a
-- domain: a lookup
-- turns the recorded key back into the column's type, and a domain's
-- CHECK — code its owner wrote — would run as the engine owner) — so that ORDER BY the columns and a row comparison on them
-- (t.a, t.b) > (x, y) follow the index's order and can start the scan at a
-- position. Of several, the one with fewest key columns (then lowest oid).
-- Which rows a lookup finds never depends on this choice for correctness:
-- a unit is completed only by a lookup from the start of the community.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._keyset_columns(p_table regclass, p_column text)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select cols.names
    from pg_catalog.pg_class c
    join pg_catalog.pg_index i on i.indrelid = c.oid
    join pg_catalog.pg_class ic on ic.oid = i.indexrelid
    join pg_catalog.pg_am am on am.oid = ic.relam
    cross join lateral (
      select array_agg(a.attname::text order by k.n) as names,
             bool_and(k.attnum > 0 and a.attnotnull and not a.attisdropped
                      and k.opt = 0 and k.coll = a.attcollation and oc.opcdefault
                      and ty.typtype = 'b' and ty.typcategory <> 'A') as plain
        from unnest(i.indkey::int2[], i.indoption::int2[], i.indcollation::oid[], i.indclass::oid[])
               with ordinality as k(attnum, opt, coll, opclass, n)
        left join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
        left join pg_catalog.pg_opclass oc on oc.oid = k.opclass
        left join pg_catalog.pg_type ty on ty.oid = a.atttypid
       where k.n <= i.indnkeyatts) cols
   where c.oid = p_table and c.relkind = 'r'
     and am.amname = 'btree' and i.indisunique and i.indisvalid and i.indisready and i.indpred is null
     and i.indnkeyatts >= 2 and cols.plain and cols.names[1] = p_column
   order by i.indnkeyatts, i.indexrelid
   limit 1);
end;
$$;
