-- The PostgreSQL purge's unit of work, shared by purge_postgres_batch (one
-- bounded batch per transaction) and purge_postgres (everything in one
-- transaction): removes rows of community p_community within a budget (no
-- limit when p_budget is null), continuing where the request's checkpoints
-- say the purge stands. Work units, in this order:
--   * every provenance table, by label: its community column set to NULL,
--     rows kept ('clear_provenance:<label>');
--   * every scoped table in registry purge order, children before parents
--     ('purge:<label>'); read-state rows need the caller's transaction-local
--     community_deletion.read_state_hard_delete opt-in.
-- A batch is bounded twice:
--   * in cost (p_budget, settings.purge_batch_rows), a hard cap: a row of a
--     unit costs its weight — 1 for a provenance row (nulling its community
--     column fires no foreign key check) and 1 + the number of foreign keys
--     referencing the table for a scoped row (deleting a parent row runs one
--     check, or ON DELETE action, per referencing foreign key), counted from
--     pg_constraint at batch time; a unit's allowance is the remaining budget
--     / its weight (at least one row when the batch has spent nothing yet);
--   * in time (p_target, settings.purge_batch_target; null: cost only): the
--     rows' work aims at p_target. The cost of a row is not knowable from the
--     catalog alone (how many child rows a foreign key check walks, whether
--     they are in shared buffers, triggers, TOAST), so each unit measures it:
--     the first statement of a unit is a probe of at most 100 rows (10 when
--     the batch has already spent something, and only while half its time is
--     left), and every later statement — in this batch, or the unit's first
--     in the next one — takes what fits in half the batch's remaining time
--     (all of it when half is under 100 rows) at the unit's last measured
--     microseconds per row, growing at most fourfold over the unit's
--     previous statement (community_deletion._purge_rows_by_time). A
--     batch's first statement takes at least 100 rows when the pace was
--     measured on fewer; a later one that would fit fewer than 100 is not
--     started: the batch ends. When the time
--     is spent the batch ends (the first statement of a batch always moves at
--     least one row, so every batch makes progress). The measured rate is
--     kept in the checkpoint (detail us_per_row, last_rows), so a new batch
--     starts at the pace of the last one. Batch boundaries depend on
--     measured time; what is removed, in which order and with which totals
--     does not.
-- A unit whose checkpoint is completed is skipped. Otherwise its rows are
-- found through the index leading with the community column and removed by
-- ctid. In a bounded batch, a table with an eligible unique index
-- (community_deletion._keyset_columns) is walked in that index's order:
-- within a batch each lookup continues after the key of the last row
-- removed, and a batch's first lookup starts at the first key the previous
-- batch removed (kept in a session setting, never in a table), walking that
-- batch's index entries once, after their deletion committed (marking them
-- dead) — no lookup walks the entries of every row removed before it,
-- quadratic in a large tenant when the index is wide; a lookup that
-- continues finds no more than the rest,
-- and only one from the start of the community completes a unit. The
-- unit's checkpoint is upserted in the batch's transaction with the
-- running total (detail rows and batches; attempts counts the batches):
-- 'started' while rows may remain, 'completed' once a lookup found fewer
-- rows than allowed — the table holds no more, because the community is
-- fenced and nothing writes it. In a bounded batch that lookup must also be
-- the unit's first removal-free one in the batch: a unit emptied by a batch
-- is completed by the next (its lookup walks the index entries of the rows
-- the last batch removed, so the absence proof does not walk them all at
-- once), and the batch that finds every unit completed reports done. Small
-- tables share a batch; a large one spans many. A batch that does not
-- commit leaves rows and checkpoints exactly as they were, so the totals
-- always equal what is gone.
-- The caller holds the shared schema-destruction lock, re-validated the
-- catalog, holds the community lock exclusively and verified lease and fence
-- generation. Returns {"rows": removed or nulled in this call, "cost": their
-- weighted cost, "done": true once every unit is completed}.
create or replace function community_deletion._purge_batch(
  p_request_id uuid, p_community uuid, p_stage text, p_generation bigint, p_budget bigint,
  p_target interval default null)
  returns jsonb
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_started timestamptz := clock_timestamp();
  -- The time target in microseconds; only a bounded batch has one.
  v_target_us numeric := case when p_budget is not null then extract(epoch from p_target) * 1000000 end;
  v_unit record;
  v_status text;
  v_detail jsonb;
  v_by_cost bigint;
  v_by_time bigint;
  v_allowed bigint;
  v_rows bigint;
  v_unit_rows bigint;
  v_statements integer;
  v_full boolean;
  v_completed boolean;
  v_done boolean := true;
  v_rate numeric;
  v_last bigint;
  v_t0 timestamptz;
  v_removed bigint := 0;
  v_spent bigint := 0;
  v_ctids tid[];
  v_keys text[];
  v_setting text;
  v_after jsonb;
  v_from jsonb;
  v_last_key jsonb;
  v_first_key jsonb;
  v_walk_from jsonb;
  v_batch_first jsonb;
  v_inclusive boolean;
  v_order text;
  v_key_object text;
  v_position text;
  v_seqscan text := current_setting('enable_seqscan');
  v_bitmapscan text := current_setting('enable_bitmapscan');
  v_jit text := current_setting('jit');
begin
  if p_budget is not null and p_budget < 1 then
    raise exception 'purge batch budget must be positive, got %', p_budget using errcode = 'DL1I1';
  end if;
  if v_target_us is not null and v_target_us <= 0 then
    raise exception 'purge batch target must be positive, got %', p_target using errcode = 'DL1I1';
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
    -- No code another role attached to the table runs as the engine owner
    -- in this unit's statements (locked, then checked: DL7C1).
    perform community_deletion._refuse_invoker_code(to_regclass(format('%I.%I', v_unit.schema_name, v_unit.table_name)),
                                                     case when v_unit.nulls_column then 'update' else 'delete' end);
    -- The unit's pace as the last batch measured it (null: never measured).
    v_rate := (v_detail ->> 'us_per_row')::numeric;
    v_last := (v_detail ->> 'last_rows')::bigint;
    -- Keyset continuation (bounded batches, tables with an eligible unique
    -- index): the unit's lookups walk that index in order, each starting
    -- after the key of the last row removed in this batch, the first at the
    -- first key the previous batch removed, instead of from the start of
    -- the community past the index entries of every row removed before.
    -- The position lives only in this session (a session setting named
    -- after the request and unit, never in a table: it holds key values of
    -- the community's rows), and is forgotten once a lookup reaches the
    -- end; another session, or a lost setting, starts from the beginning.
    v_keys := case when p_budget is not null
                   then community_deletion._keyset_columns(to_regclass(format('%I.%I', v_unit.schema_name, v_unit.table_name)),
                                                           v_unit.community_column) end;
    v_setting := 'community_deletion.purge_after_' || md5(p_request_id::text || ':' || v_unit.unit_key);
    v_after := null;
    v_walk_from := null;
    v_batch_first := null;
    if v_keys is not null then
      v_walk_from := community_deletion._keyset_position(current_setting(v_setting, true), v_keys);
      select string_agg(format('t.%I', k), ', ' order by n),
             'jsonb_build_object(' || string_agg(format('%L, t.%I', k, k), ', ' order by n) filter (where n > 1) || ')',
             '$1, ' || string_agg(format('(select a.%1$I from jsonb_to_record($3) as a(%1$I %2$s))', k,
                                         (select format_type(at.atttypid, at.atttypmod) from pg_catalog.pg_attribute at
                                           where at.attrelid = to_regclass(format('%I.%I', v_unit.schema_name, v_unit.table_name))
                                             and at.attname = k)), ', ' order by n) filter (where n > 1)
        into v_order, v_key_object, v_position
        from unnest(v_keys) with ordinality as u(k, n);
    end if;
    v_unit_rows := 0;
    v_statements := 0;
    v_full := false;
    v_completed := false;
    loop
      -- The allowance in cost: what is left of the budget, in this unit's rows.
      v_by_cost := case when p_budget is null then null
                        when v_spent = 0 then greatest(1, p_budget / v_unit.weight)
                        else (p_budget - v_spent) / v_unit.weight end;
      -- The allowance in time (community_deletion._purge_rows_by_time): a
      -- probe for a unit never measured, else what fits in the time left at
      -- the unit's pace, growing at most fourfold; a later statement only
      -- when it fits (0: the batch ends); the first always moves a row.
      v_by_time := community_deletion._purge_rows_by_time(
        v_target_us, v_target_us - extract(epoch from clock_timestamp() - v_started) * 1000000,
        v_spent > 0, v_rate, v_last);
      v_allowed := least(v_by_cost, v_by_time);
      if v_allowed = 0 then
        v_full := true;
        exit;
      end if;
      -- A bounded batch finds its rows through the index leading with the
      -- community column, never a sequential scan: the planner's statistics
      -- predate the purge, so for a community holding most of a table it
      -- would read the heap from its start past every row earlier batches
      -- deleted (each batch slower than the last); nor a bitmap scan, which
      -- reads the whole key range before the limit. The statement that
      -- removes the rows is planned the same way (below), and without JIT:
      -- compiling a statement that runs for milliseconds costs tens of them.
      -- The foreign key checks and triggers it fires are planned under the
      -- same settings when the session first runs them (index scans: the
      -- catalog check requires an index on every foreign key).
      v_t0 := clock_timestamp();
      if p_budget is not null then
        perform set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true),
                set_config('jit', 'off', true);
      end if;
      -- Where this lookup starts: after the last key this batch removed;
      -- else, for the unit's first statement in the batch, at the first key
      -- the previous batch removed (inclusive), so that it walks the index
      -- entries of the previous batch's rows once, now that their deletion
      -- is committed (marking them dead, as the absence proof will want),
      -- and never again; else at the start of the community.
      v_from := coalesce(v_after, v_walk_from);
      v_inclusive := v_after is null;
      if v_keys is null then
        execute format('select array(select ctid from %1$I.%2$I where %3$I = $1 limit $2)',
                       v_unit.schema_name, v_unit.table_name, v_unit.community_column)
          into v_ctids using p_community, v_allowed;
      else
        -- Continuing, the community is bounded by the row comparison below
        -- and by <= above, not by =: given an equality on the index's first
        -- column, btree starts the scan at the community's first entry and
        -- would walk the removed ones; the row comparison is where it starts.
        execute format('select coalesce(array_agg(f.ctid), ''{}''), (array_agg(f.k))[1], (array_agg(f.k))[count(*)::int]
                          from (select t.ctid, %4$s as k from %1$I.%2$I t
                                 where %5$s order by %6$s limit $2) f',
                       v_unit.schema_name, v_unit.table_name, v_unit.community_column, v_key_object,
                       case when v_from is null then format('t.%I = $1', v_unit.community_column)
                            else format('(%s) %s (%s) and t.%I <= $1', v_order, case when v_inclusive then '>=' else '>' end,
                                        v_position, v_unit.community_column) end,
                       v_order)
          into v_ctids, v_first_key, v_last_key using p_community, v_allowed, v_from;
      end if;
      -- The rows found are removed by ctid, through a TID scan: the
      -- community test is written so no index can serve it ("is true";
      -- a plain equality lets the planner scan the community's index range,
      -- every entry removed before, and filter on ctid), and a sequential
      -- scan is off (for a statement of many rows the planner prefers
      -- reading the whole table, testing each row against the ctid list:
      -- 1.6 s instead of 0.18 s for 30,000 rows of a 512,000-row table).
      if v_unit.nulls_column then
        execute format('update %1$I.%2$I set %3$I = null where ctid = any ($2) and (%3$I = $1) is true',
                       v_unit.schema_name, v_unit.table_name, v_unit.community_column)
          using p_community, v_ctids;
      else
        execute format('delete from %1$I.%2$I where ctid = any ($2) and (%3$I = $1) is true',
                       v_unit.schema_name, v_unit.table_name, v_unit.community_column)
          using p_community, v_ctids;
      end if;
      get diagnostics v_rows = row_count;
      perform set_config('enable_seqscan', v_seqscan, true), set_config('enable_bitmapscan', v_bitmapscan, true),
              set_config('jit', v_jit, true);
      v_statements := v_statements + 1;
      v_unit_rows := v_unit_rows + v_rows;
      v_removed := v_removed + v_rows;
      v_spent := v_spent + v_rows * v_unit.weight;
      if v_rows > 0 then
        v_rate := round((extract(epoch from clock_timestamp() - v_t0) * 1000000 / v_rows)::numeric, 3);
        v_last := v_rows;
      end if;
      if v_keys is not null and v_rows > 0 then
        v_after := v_last_key;
        v_batch_first := coalesce(v_batch_first, v_first_key);
      end if;
      if v_allowed is null or v_rows < v_allowed then
        -- Fewer rows than allowed: the table holds no more of the community.
        -- A bounded batch marks the unit completed only when its lookup
        -- found it empty without having removed any of it in this batch:
        -- otherwise the index entries of the rows just removed are walked
        -- (and, their deletion committed, marked dead) by the next batch's
        -- lookup, which completes the unit — not by the absence proof in
        -- finish_postgres_purge, which would walk every table's last
        -- removed rows at once.
        -- A keyset lookup never completes a unit: it starts past rows it
        -- does not see. Past the end, the position is forgotten, and the
        -- unit's next lookup starts from the beginning.
        -- When the unit has removed nothing in this batch yet, that lookup
        -- from the beginning is the next statement.
        v_after := null;
        v_walk_from := null;
        v_batch_first := null;
        continue when v_from is not null and v_unit_rows = 0;
        v_completed := (p_budget is null or v_unit_rows = 0) and v_from is null;
        exit;
      end if;
      if v_by_cost is not null and v_rows >= v_by_cost then
        -- The budget is spent and this table may hold more: the next batch
        -- goes on here.
        v_full := true;
        exit;
      end if;
      -- Sized by time: the unit goes on while the batch has time left.
    end loop;
    if v_keys is not null then
      -- The next batch starts at the first key this one removed; past the
      -- end of the table, from the beginning; having removed nothing, where
      -- this one started.
      perform set_config(v_setting, coalesce(coalesce(v_batch_first, v_walk_from)::text, ''), false);
    end if;
    if v_statements > 0 then
      perform community_deletion._checkpoint(p_request_id, p_stage, v_unit.unit_key,
        case when v_completed then 'completed' else 'started' end, p_generation,
        jsonb_build_object('rows', coalesce((v_detail ->> 'rows')::bigint, 0) + v_unit_rows,
                           'batches', coalesce((v_detail ->> 'batches')::bigint, 0) + 1)
        || case when v_rate is null then '{}'::jsonb
                else jsonb_build_object('us_per_row', v_rate, 'last_rows', v_last) end);
    end if;
    if v_full then
      return jsonb_build_object('rows', v_removed, 'cost', v_spent, 'done', false);
    end if;
    v_done := v_done and v_completed;
  end loop;
  return jsonb_build_object('rows', v_removed, 'cost', v_spent, 'done', v_done);
end;
$$;
