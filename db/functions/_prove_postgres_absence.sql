-- The PostgreSQL half of the absence proof, run inside the caller's
-- transaction after it took the shared schema-destruction lock and
-- re-validated the catalog: the community is a tombstone at exactly
-- p_fence_generation (DL8T1 otherwise) and no registered scoped or provenance
-- table holds a row for it (DL9A1 naming the table). Returns the number of
-- tables checked. The registry is read live, so a table registered after the
-- purge is part of the proof and fails it closed if it holds tenant rows.
-- Before the probes every scoped and provenance table is checked for code
-- another role attached that the planner would run as the engine owner
-- (_refuse_planner_code, DL7C1; ACCESS SHARE: the callers hold the
-- schema-destruction lock, which every DDL waits for).
create or replace function community_deletion._prove_postgres_absence(
  p_request_id uuid,
  p_community uuid,
  p_fence_generation bigint)
  returns integer
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
  -- Each probe is an index scan on the index leading with the community
  -- column that stops at the first live row: a sequential scan (what the
  -- planner picks when its statistics still say the community fills the
  -- table) would read every dead row the purge left, growing with the tenant;
  -- a bitmap scan would read the whole key range. The proof is the same.
  -- A table the bounded purge walked in the order of its keyset index
  -- (community_deletion._keyset_columns) is probed in that order, through
  -- that index (sorting is off): the purge's last lookups walked its
  -- entries after every removal had committed and marked them dead, so the
  -- probe steps over them a page at a time; the table's other indexes hold
  -- the same rows' entries unmarked, and a probe through one of them (the
  -- planner's choice, often the smallest) checks each removed row's heap
  -- tuple — 0.8 s at 5 M rows.
  -- With those off every plan's cost is above jit_above_cost: compiling the
  -- probes and the registry's query took 170 ms of a 0.96 s proof at 5 M rows.
  set enable_seqscan = off
  set enable_bitmapscan = off
  set enable_sort = off
  set jit = off
as $$
declare
  v_table record;
  v_remains boolean;
  v_checked integer := 0;
  v_keys text[];
begin
  if not exists (select 1 from public.communities c
                 where c.id = p_community and c.deletion_state = 'tombstone'
                   and c.deleted_at is not null and c.deletion_fence_generation = p_fence_generation) then
    raise exception 'request %: community % is not a tombstone at fence generation %',
      p_request_id, p_community, p_fence_generation
      using errcode = 'DL8T1',
            hint = 'The community row changed outside the engine after the purge; investigate before unblocking.';
  end if;
  perform community_deletion._refuse_planner_code(
    (select pg_catalog.array_agg(community_deletion._registered_relation(r.schema_name, r.table_name))
       from community_deletion.registered_tables r where r.kind in ('scoped', 'provenance')),
    'access share');
  for v_table in
    select community_deletion._table_label(t.schema_name, t.table_name) as label, t.schema_name, t.table_name, t.community_column
      from community_deletion.registered_tables t
     where t.kind in ('scoped', 'provenance')
     order by 1
  loop
    v_keys := community_deletion._keyset_columns(to_regclass(format('%I.%I', v_table.schema_name, v_table.table_name)),
                                                  v_table.community_column);
    if v_keys is null then
      execute format('select exists (select 1 from %I.%I where %I = $1)', v_table.schema_name, v_table.table_name,
                     v_table.community_column)
        into v_remains using p_community;
    else
      -- (An ORDER BY inside EXISTS is dropped by the planner: the probe is a
      -- plain query with a limit.)
      execute format('select true from %I.%I t where t.%I = $1 order by %s limit 1', v_table.schema_name, v_table.table_name,
                     v_table.community_column, (select string_agg(format('t.%I', k), ', ' order by n)
                                                  from unnest(v_keys) with ordinality as u(k, n)))
        into v_remains using p_community;
      v_remains := coalesce(v_remains, false);
    end if;
    if v_remains then
      raise exception 'request %: table % still holds rows of purged community %', p_request_id, v_table.label, p_community
        using errcode = 'DL9A1',
              hint = 'Rows of a tombstoned community reappeared or escaped the purge; investigate the writer before unblocking.';
    end if;
    v_checked := v_checked + 1;
  end loop;
  return v_checked;
end;
$$;
