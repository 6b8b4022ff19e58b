-- The key a bounded purge batch continues by, for table p_rel whose
-- community column is p_column: the columns after p_column of a btree index
-- that leads with it and can serve (p_column, c2, ..., ck) > (x, v2, ..., vk)
-- ORDER BY p_column, c2, ..., ck as an index range — valid and ready, not
-- partial, plain key columns only, every one ascending with NULLS LAST and the
-- column's own collation — preferring a unique one, then the fewest columns.
-- Returns the column names, their types (format_type, for the casts back
-- from the text the checkpoint keeps) and whether the index is unique; no
-- row when no index qualifies (or the only one is on p_column alone): the
-- purge then looks rows up from the start of the community's range.
create or replace function community_deletion._purge_keyset(p_rel regclass, p_column text)
  returns table (key_columns text[], key_types text[], key_unique boolean)
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select array_agg(a.attname::text order by k.ord), array_agg(format_type(a.atttypid, a.atttypmod) order by k.ord), i.indisunique
    from pg_index i
    join pg_class ic on ic.oid = i.indexrelid
    join pg_am am on am.oid = ic.relam and am.amname = 'btree'
    join pg_attribute lead on lead.attrelid = i.indrelid and lead.attnum = i.indkey[0] and lead.attname = p_column
    cross join lateral generate_series(1, i.indnkeyatts - 1) k(ord)
    join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[k.ord]
   where i.indrelid = p_rel and i.indisvalid and i.indisready and i.indpred is null and i.indexprs is null
     and i.indnkeyatts > 1
     and not exists (select 1 from generate_series(0, i.indnkeyatts - 1) j(ord)
                      where i.indkey[j.ord] = 0 or i.indoption[j.ord] <> 0
                         or i.indcollation[j.ord] is distinct from
                            (select case when x.attcollation = 0 then 0::oid else x.attcollation end
                               from pg_attribute x where x.attrelid = i.indrelid and x.attnum = i.indkey[j.ord]))
   group by i.indexrelid, i.indisunique, i.indnkeyatts
   order by i.indisunique desc, i.indnkeyatts, i.indexrelid
   limit 1
$$;
