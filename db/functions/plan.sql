-- Operator API: what a deletion of the community with this host (matched
-- case-insensitively, as submit does) would remove from PostgreSQL, without
-- creating a request and without writing anything (it locks every registered
-- table SHARE UPDATE EXCLUSIVE, which waits for no read or write, and refuses
-- with DL7C1 when code another role attached to one of them would run as the
-- engine owner while its count is planned: _refuse_planner_code): for every registered table in purge order —
-- provenance tables first (their community column is set to NULL, rows kept),
-- then the scoped tables in registry purge order, children before parents —
-- the rows the community has there now. Also the community's lifecycle state
-- and its open request, if any. Counts are a snapshot: writes continue until
-- the fence closes, and the executor deletes whatever is there then.
-- Refuses an unknown host (community_not_found, DL1N2) and a tombstoned
-- community (community_not_eligible, DL2C1): it was deleted, nothing is left.
create or replace function community_deletion.plan(host text)
  returns jsonb
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameter under its internal name (bare names are columns).
  p_host alias for $1;
  v_host text := community_deletion._require_text(p_host, 'host', 253);
  v_community public.communities;
  v_unit record;
  v_rows bigint;
  v_tables jsonb := '[]'::jsonb;
  v_delete bigint := 0;
  v_null bigint := 0;
begin
  select c.* into v_community from public.communities c where lower(c.host) = lower(v_host);
  if not found then
    raise exception 'community deletion: no community has host %', v_host
      using errcode = 'DL1N2';
  end if;
  if v_community.deletion_state = 'tombstone' or v_community.deleted_at is not null then
    raise exception 'community % (%) was deleted at %: it is a tombstone, there is nothing left to delete',
      v_community.host, v_community.id, v_community.deleted_at
      using errcode = 'DL2C1',
            hint = 'Its deletion request and checkpoints are the evidence: community_deletion.list_requests.';
  end if;

  perform community_deletion._refuse_planner_code(
    (select pg_catalog.array_agg(community_deletion._registered_relation(r.schema_name, r.table_name))
       from community_deletion.registered_tables r where r.kind in ('scoped', 'provenance')),
    'share update exclusive');
  -- The purge's own order (community_deletion._purge_batch).
  for v_unit in
    select u.label, u.kind, u.purge_order, u.schema_name, u.table_name, u.community_column
      from (select 1 as phase, t.kind, null::integer as purge_order, l.label,
                   t.schema_name, t.table_name, t.community_column
              from community_deletion.registered_tables t
              cross join lateral (select community_deletion._table_label(t.schema_name, t.table_name) as label) l
             where t.kind = 'provenance'
            union all
            select 2, t.kind, t.purge_order, l.label,
                   t.schema_name, t.table_name, t.community_column
              from community_deletion.registered_tables t
              cross join lateral (select community_deletion._table_label(t.schema_name, t.table_name) as label) l
             where t.kind = 'scoped') u
     order by u.phase, u.purge_order, u.label collate "C"
  loop
    execute format('select count(*) from %I.%I where %I = $1',
                   v_unit.schema_name, v_unit.table_name, v_unit.community_column)
      into v_rows using v_community.id;
    v_tables := v_tables || jsonb_build_array(jsonb_build_object(
      'table', v_unit.label,
      'kind', v_unit.kind,
      'action', case v_unit.kind when 'scoped' then 'delete' else 'null_community_column' end,
      'purge_order', v_unit.purge_order,
      'rows', v_rows));
    if v_unit.kind = 'scoped' then v_delete := v_delete + v_rows; else v_null := v_null + v_rows; end if;
  end loop;

  return jsonb_build_object(
    'community_id', v_community.id,
    'host', v_community.host,
    'deletion_state', v_community.deletion_state,
    'archived_at', v_community.archived_at,
    'open_request', (select jsonb_build_object('id', r.id, 'stage', r.stage, 'requested_by', r.requested_by)
                       from community_deletion.requests r
                      where r.community_id = v_community.id and r.stage <> 'aborted'),
    'tables', v_tables,
    'rows_to_delete', v_delete,
    'rows_to_unlink', v_null,
    -- Registered as excluded: their rows stay outside every deletion.
    'excluded_tables', coalesce((select jsonb_agg(jsonb_build_object(
                                   'table', community_deletion._table_label(t.schema_name, t.table_name), 'reason', t.note)
                                   order by community_deletion._table_label(t.schema_name, t.table_name) collate "C")
                                   from community_deletion.registered_tables t where t.kind = 'excluded'), '[]'::jsonb));
end;
$$;
