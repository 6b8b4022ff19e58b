-- Computes the schema half of a frozen inventory for one community, in SQL:
-- {"scoped_tables": [sorted], "row_counts": {table: rows}, "fenced_tables": [sorted]}.
-- Row counts are observational evidence bound into the approved digest; the
-- executor never requires them to stay equal (it fences, purges and proves zero).
-- Callers validate the catalog first, so the registry equals the live catalog.
-- Before counting, every scoped table is locked SHARE UPDATE EXCLUSIVE and
-- checked for code another role attached that the planner would run as the
-- engine owner (_refuse_planner_code, DL7C1): the caller (freeze_inventory)
-- does not hold the schema-destruction lock, so an index could otherwise be
-- added between the validation and the counts.
create or replace function community_deletion._schema_manifest(p_community uuid)
  returns jsonb
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_table record;
  v_tables text[] := '{}';
  v_count bigint;
  v_counts jsonb := '{}'::jsonb;
begin
  perform community_deletion._refuse_planner_code(
    (select pg_catalog.array_agg(community_deletion._registered_relation(r.schema_name, r.table_name))
       from community_deletion.registered_tables r where r.kind = 'scoped'),
    'share update exclusive');
  for v_table in
    select l.label, r.schema_name, r.table_name
      from community_deletion.registered_tables r
      cross join lateral (select community_deletion._table_label(r.schema_name, r.table_name) as label) l
     where r.kind = 'scoped'
     order by l.label collate "C"
  loop
    execute format('select count(*) from %I.%I where community_id = $1', v_table.schema_name, v_table.table_name)
      into v_count using p_community;
    v_tables := v_tables || v_table.label;
    v_counts := v_counts || jsonb_build_object(v_table.label, v_count);
  end loop;
  return jsonb_build_object(
    'scoped_tables', to_jsonb(v_tables),
    'row_counts', v_counts,
    'fenced_tables', to_jsonb(community_deletion._live_fenced_tables()));
end;
$$;
