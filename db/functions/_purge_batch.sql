-- The PostgreSQL purge's unit of work, shared by purge_postgres_batch (one
-- bounded batch per transaction) and purge_postgres (everything in one
-- transaction): removes at most p_budget rows of community p_community (no
-- limit when null), continuing where the request's checkpoints say the purge
-- stands. Work units, in this order:
--   * every provenance table, by label: its community column set to NULL,
--     rows kept ('clear_provenance:<label>');
--   * every scoped table in registry purge order, children before parents
--     ('purge:<label>'); read-state rows need the caller's transaction-local
--     community_deletion.read_state_hard_delete opt-in.
-- The budget is a cost, not a row count: a row of a unit costs its weight —
-- 1 for a provenance row (nulling its community column fires no foreign key
-- check) and 1 + the number of foreign keys referencing the table for a
-- scoped row (deleting a parent row runs one check, or ON DELETE action, per
-- referencing foreign key: an index probe of each child table), counted from
-- pg_constraint at batch time, so a parent table's allowance in a batch is
-- the remaining budget / its weight (at least one row when the batch has
-- spent nothing yet, so a table heavier than the whole budget still moves).
-- This keeps every batch's duration bounded whatever the table, not only its
-- row count: a batch costs at most max(budget, the heaviest weight).
-- A unit whose checkpoint is completed is skipped. Otherwise up to its
-- allowance of rows go, found through the index leading with the
-- community column and removed by ctid, and its checkpoint is upserted in the
-- same statement's transaction with the running total (detail rows and
-- batches; attempts counts the batches): 'started' while rows may remain,
-- 'completed' once a statement removed fewer rows than it was allowed — the
-- table holds no more, because the community is fenced and nothing writes
-- it. Small tables share a batch; a large one spans many. A batch that does
-- not commit leaves rows and checkpoints exactly as they were, so the totals
-- always equal what is gone.
-- The caller holds the shared schema-destruction lock, re-validated the
-- catalog, holds the community lock exclusively and verified lease and fence
-- generation. Returns {"rows": removed or nulled in this call, "cost": their
-- weighted cost, "done": true once every unit is completed}.
create or replace function community_deletion._purge_batch(
  p_request_id uuid, p_community uuid, p_stage text, p_generation bigint, p_budget bigint)
  returns jsonb
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_unit record;
  v_status text;
  v_detail jsonb;
  v_allowed bigint;
  v_rows bigint;
  v_removed bigint := 0;
  v_spent bigint := 0;
  v_ctids tid[];
  v_seqscan text := current_setting('enable_seqscan');
  v_bitmapscan text := current_setting('enable_bitmapscan');
begin
  if p_budget is not null and p_budget < 1 then
    raise exception 'purge batch budget must be positive, got %', p_budget using errcode = 'DL1I1';
  end if;
  for v_unit in
    select u.unit_key, u.schema_name, u.table_name, u.community_column, u.nulls_column, u.weight
      from (select 1 as phase, 0 as purge_order, l.label, 'clear_provenance:' || l.label as unit_key,
                   t.schema_name, t.table_name, t.community_column, true as nulls_column, 1::bigint as weight
              from community_deletion.registered_tables t
              cross join lateral (select community_deletion._table_label(t.schema_name, t.table_name) as label) l
             where t.kind = 'provenance'
            union all
            select 2, t.purge_order, l.label, 'purge:' || l.label,
                   t.schema_name, t.table_name, t.community_column, false, 1 + coalesce(fk.n, 0)
              from community_deletion.registered_tables t
              cross join lateral (select community_deletion._table_label(t.schema_name, t.table_name) as label) l
              left join (select c.confrelid, count(*) as n
                           from pg_catalog.pg_constraint c
                          where c.contype = 'f' and c.conparentid = 0
                          group by c.confrelid) fk
                on fk.confrelid = to_regclass(format('%I.%I', t.schema_name, t.table_name))
             where t.kind = 'scoped') u
     order by u.phase, u.purge_order, u.label collate "C"
  loop
    select cp.status, cp.detail into v_status, v_detail
      from community_deletion.checkpoints cp
     where cp.request_id = p_request_id and cp.stage = p_stage and cp.unit_key = v_unit.unit_key;
    continue when v_status = 'completed';
    -- This unit's allowance: what is left of the budget, in its rows.
    v_allowed := case when p_budget is null then null
                      when v_spent = 0 then greatest(1, p_budget / v_unit.weight)
                      else (p_budget - v_spent) / v_unit.weight end;
    if v_allowed = 0 then
      return jsonb_build_object('rows', v_removed, 'cost', v_spent, 'done', false);
    end if;
    -- A bounded batch finds its rows through the index leading with the
    -- community column, never a sequential scan: the planner's statistics
    -- predate the purge, so for a community holding most of a table it would
    -- read the heap from its start past every row earlier batches deleted
    -- (each batch slower than the last); nor a bitmap scan, which reads the
    -- whole key range before the limit. Only this lookup runs so planned: the
    -- statement that removes the rows (and the triggers and foreign key
    -- checks it fires) runs with the caller's settings.
    if p_budget is not null then
      perform set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true);
    end if;
    execute format('select array(select ctid from %1$I.%2$I where %3$I = $1 limit $2)',
                   v_unit.schema_name, v_unit.table_name, v_unit.community_column)
      into v_ctids using p_community, v_allowed;
    perform set_config('enable_seqscan', v_seqscan, true), set_config('enable_bitmapscan', v_bitmapscan, true);
    if v_unit.nulls_column then
      execute format('update %1$I.%2$I set %3$I = null where ctid = any ($2) and %3$I = $1',
                     v_unit.schema_name, v_unit.table_name, v_unit.community_column)
        using p_community, v_ctids;
    else
      execute format('delete from %1$I.%2$I where ctid = any ($2) and %3$I = $1',
                     v_unit.schema_name, v_unit.table_name, v_unit.community_column)
        using p_community, v_ctids;
    end if;
    get diagnostics v_rows = row_count;
    v_removed := v_removed + v_rows;
    v_spent := v_spent + v_rows * v_unit.weight;
    perform community_deletion._checkpoint(p_request_id, p_stage, v_unit.unit_key,
      case when v_allowed is null or v_rows < v_allowed then 'completed' else 'started' end, p_generation,
      jsonb_build_object('rows', coalesce((v_detail ->> 'rows')::bigint, 0) + v_rows,
                         'batches', coalesce((v_detail ->> 'batches')::bigint, 0) + 1));
    if v_allowed is not null and v_rows = v_allowed then
      -- The allowance is spent and this table may hold more: the next batch goes on here.
      return jsonb_build_object('rows', v_removed, 'cost', v_spent, 'done', false);
    end if;
  end loop;
  return jsonb_build_object('rows', v_removed, 'cost', v_spent, 'done', true);
end;
$$;
