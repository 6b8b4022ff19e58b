-- Computes the schema half of a frozen inventory for one community, in SQL:
-- {"scoped_tables": [sorted], "row_counts": {table: rows}, "fenced_tables": [sorted]}.
-- Row counts are observational evidence bound into the approved digest; the
-- executor never requires them to stay equal (it fences, purges and proves zero).
-- Callers validate the catalog first, so the registry equals the live catalog.
create or replace function community_deletion._schema_manifest(p_community uuid)
  returns jsonb
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_table text;
  v_tables text[];
  v_count bigint;
  v_counts jsonb := '{}'::jsonb;
begin
  select coalesce(array_agg(r.table_name order by r.table_name collate "C"), '{}') into v_tables
    from community_deletion.registered_tables r where r.kind = 'scoped';
  foreach v_table in array v_tables loop
    execute format('select count(*) from public.%I where community_id = $1', v_table)
      into v_count using p_community;
    v_counts := v_counts || jsonb_build_object(v_table, v_count);
  end loop;
  return jsonb_build_object(
    'scoped_tables', to_jsonb(v_tables),
    'row_counts', v_counts,
    'fenced_tables', to_jsonb(community_deletion._live_fenced_tables()));
end;
$$;
