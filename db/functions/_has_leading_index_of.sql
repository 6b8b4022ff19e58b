-- _has_leading_index for many tables at once (validate_catalog checks every
-- registered table in one query): one row per pair (p_tables[i],
-- p_columns[i]), true when that table has a valid, non-partial index whose
-- first column is that column.
-- PL/pgSQL, generic plan: planned once a session; no JIT (docs/design.md, The
-- catalog check's cost).
create or replace function community_deletion._has_leading_index_of(p_tables regclass[], p_columns text[])
  returns table (rel regclass, column_name text, has_index boolean)
  language plpgsql
  stable
  rows 100
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
  set jit = off
as $$
begin
  return query
  select t.rel, t.col,
         exists (
           select 1 from pg_catalog.pg_index i
             join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
            where i.indrelid = t.rel and a.attname = t.col and not a.attisdropped
              and i.indisvalid and i.indpred is null)
    from rows from (pg_catalog.unnest(p_tables), pg_catalog.unnest(p_columns)) t(rel, col);
end;
$$;
