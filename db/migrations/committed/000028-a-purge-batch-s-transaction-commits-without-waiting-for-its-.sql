--! Previous: sha1:026061f002eee32f0046268a1f4a04bd87acf9db
--! Hash: sha1:791d8d73b888920340e39ef81ae11b81ba6815ad
--! Message: A purge batch's transaction commits without waiting for its WAL flush (synchronous_commit off, local to it; finish_postgres_purge commits as the session does); how many rows a batch's next statement takes by time is community_deletion._purge_rows_by_time, a function of its inputs tested rule by rule

-- A purge batch's transaction commits without waiting for its WAL flush
-- (synchronous_commit off, set locally by purge_postgres_batch): a batch a
-- server crash loses is one that never ran, its checkpoint lost with its
-- rows; finish_postgres_purge commits as the session does. How many rows a
-- batch's next statement takes by time is community_deletion.
-- _purge_rows_by_time (the same rules as schema version 27, now a function
-- of its inputs, so each rule is tested on its own); _purge_batch calls it
-- and its comments are reflowed.
--! Included functions/_purge_rows_by_time.sql
-- How many rows the next statement of a bounded purge batch may take by time
-- (community_deletion._purge_batch; docs/design.md#purge), from the batch's
-- time target and time left (microseconds), whether the batch has spent
-- anything yet, and the unit's pace as last measured (p_rate: microseconds
-- per row, p_last: rows of the statement that measured it; null: never
-- measured). NULL when there is no target (the cost budget alone sizes the
-- batch); 0 means the statement is not started and the batch ends.
--   * A batch's first statement (nothing spent): 1 row once the time is
--     spent (every batch makes progress); a probe of 100 rows for a unit
--     never measured; else what fits, at most 4 × p_last and at least 1 —
--     and at least 100 when the pace was measured on fewer than 100 rows
--     (a statement's fixed cost, such as a lookup walking many dead index
--     entries, measured on a few rows must not shrink the next statement
--     towards a single row).
--   * A later statement: nothing once the time is spent; for a unit never
--     measured, a probe of 10 rows while at least half the target is left,
--     else nothing; for a measured unit, what fits, at most 4 × p_last, and
--     nothing when that is under 100 rows (raised to 100, a batch of rows
--     costing milliseconds each overran its target by a probe's worth).
-- What fits is half the time left at p_rate when that is 100 rows or more
-- (a statement whose rows cost twice the measured pace then ends the batch
-- near its target rather than at twice it), else all of it.
create or replace function community_deletion._purge_rows_by_time(
  p_target_us numeric, p_left_us numeric, p_spent boolean, p_rate numeric, p_last bigint)
  returns bigint
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select case
           when p_target_us is null then null
           when not p_spent then
             case when p_left_us <= 0 then 1
                  when p_rate is null or p_last is null then f.probe
                  else greatest(1, least(case when p_last < f.probe then greatest(f.fits, f.probe) else f.fits end,
                                         f.growth * p_last)) end
           when p_left_us <= 0 then 0
           when p_rate is null or p_last is null then
             case when p_left_us * 2 >= p_target_us then f.probe / 10 else 0 end
           when f.fits < f.probe then 0
           else least(f.fits, f.growth * p_last)
         end::bigint
    from (select c.probe, c.growth,
                 case when p_left_us <= 0 or p_rate is null then null
                      when floor(p_left_us / 2 / greatest(p_rate, 0.001)) >= c.probe
                        then floor(p_left_us / 2 / greatest(p_rate, 0.001))
                      else floor(p_left_us / greatest(p_rate, 0.001)) end as fits
            from (select 100::bigint as probe, 4::bigint as growth) c) f
$$;
--! EndIncluded functions/_purge_rows_by_time.sql
--! Included functions/_purge_batch.sql
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
--! EndIncluded functions/_purge_batch.sql
--! Included functions/purge_postgres_batch.sql
-- bindings_removed (executor API): one bounded batch of the PostgreSQL purge,
-- in its own transaction. Under the shared schema-destruction lock (a
-- migration waits for at most this batch, never the whole purge), with the
-- catalog re-validated, the community lock held exclusively (batches of the
-- request never interleave) and lease and fence generation verified, it
-- removes rows worth at most settings.purge_batch_rows (a cost: a row weighs
-- 1 + the foreign keys referencing its table) and sized by their measured
-- pace to take about settings.purge_batch_target, continuing where the
-- checkpoints say (community_deletion._purge_batch: provenance nulled first,
-- then the scoped tables in purge order, each table's checkpoint carrying its
-- running total). The stage does not move: once a batch returns "done",
-- community_deletion.finish_postgres_purge proves every table empty,
-- tombstones the community and advances, in one short transaction. A crash
-- inside a batch loses only that batch (nothing of it committed); between
-- batches the community stays fenced and only a later batch can touch it
-- (abort is refused from drained on); a blocked or superseded request is
-- refused here (DL2B1, DL4L1) and stops between batches.
-- Returns {"rows": this batch, "done": bool, "purged_rows": total so far,
-- "inventoried_rows": what the frozen inventory counted, "rest_ms": how long
-- the executor rests before the next batch}. rest_ms is this call's own
-- duration times settings.purge_batch_rest_ratio (0 by default: no rest;
-- 1: the purge works half the time), 0 once done — a throttle for fleets
-- whose writers feel the purge: the purge takes (1 + ratio) times as long,
-- holds nothing while it rests (no transaction, no lock; the lease is
-- renewed, the community stays fenced).
-- The batch's transaction commits without waiting for its WAL to reach disk
-- (synchronous_commit off, for this transaction only): a batch lost to a
-- server crash is a batch that never ran — its rows come back with its
-- checkpoint, so the totals still equal what is gone, and the next batch
-- redoes it — while the wait (a flush behind a checkpoint's, up to tens of
-- milliseconds) was part of every batch's transaction and of the shared
-- schema lock's hold. finish_postgres_purge, which tombstones the community,
-- commits as the session does (synchronously by default), flushing every
-- batch before it.
create or replace function community_deletion.purge_postgres_batch(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint)
  returns jsonb
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  v_request community_deletion.requests;
  v_batch jsonb;
  v_totals jsonb;
  v_budget bigint;
  v_target interval;
  v_rest_ratio numeric;
  v_started timestamptz := clock_timestamp();
begin
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'bindings_removed', p_fence_generation);
  perform community_deletion._lock_community_for_transition(v_request.community_id);
  perform community_deletion._lock_request(p_request_id);
  -- Verified again under the community lock and the request row lock: a
  -- successor's claim or batch, or an abort, that went first is seen now, and
  -- none can overtake this batch before it commits.
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'bindings_removed', p_fence_generation);
  perform set_config('synchronous_commit', 'off', true);
  perform set_config('community_deletion.read_state_hard_delete', 'on', true);
  select s.purge_batch_rows, s.purge_batch_target, s.purge_batch_rest_ratio into v_budget, v_target, v_rest_ratio
    from community_deletion.settings s;
  v_batch := community_deletion._purge_batch(p_request_id, v_request.community_id, 'bindings_removed', p_generation,
    v_budget, v_target);
  perform set_config('community_deletion.read_state_hard_delete', 'off', true);
  v_totals := community_deletion._purge_totals(p_request_id, 'bindings_removed');
  return v_batch || jsonb_build_object('purged_rows', v_totals -> 'purged_rows', 'inventoried_rows', v_totals -> 'inventoried_rows',
    'rest_ms', case when (v_batch ->> 'done')::boolean then 0
                    else round(extract(epoch from clock_timestamp() - v_started) * 1000 * v_rest_ratio)::bigint end);
end;
$$;
--! EndIncluded functions/purge_postgres_batch.sql
--! Included functions/schema_version.sql
-- The engine schema's version: the number of the last migration that changed
-- engine objects. A driver built for another version refuses to run against
-- this database (src/engine.ts, SCHEMA_VERSION); `deletions migrate` and
-- `deletions inspect` report it. Every migration that changes engine objects
-- replaces this function with its own number.
create or replace function community_deletion.schema_version()
  returns integer
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select 28
$$;
--! EndIncluded functions/schema_version.sql
--! Included engine/grants.sql
-- Ownership and privileges of the engine (least privilege). Data-driven and
-- re-runnable: every function in schema community_deletion is owned by
-- community_deletion_owner, loses EXECUTE for PUBLIC and the engine roles,
-- and regains it only per the mapping below. A function missing from the
-- mapping is executable by its owner only (fail closed);
-- db/tests/roles/every_engine_function_is_mapped.test.sql fails until it is
-- mapped. Included last by every migration that adds or replaces engine
-- functions.
--
-- Why the engine is unforgeable: the security-definer functions run as
-- community_deletion_owner (NOLOGIN, no members), and the write fence and the
-- communities lifecycle guard admit the engine by current_user alone. No client
-- can become that role (superusers excepted, as always).
--
-- "public" in the mapping: the write-fence trigger runs as whichever role
-- writes, so the few functions on its path (lock key, isolation check, the
-- write decision, the caller's own serving grant) are executable by everyone.
-- They only answer questions and take a shared lock any writer takes anyway.
-- For the same reason every role has USAGE on the schema (names only: tables
-- and functions carry their own privileges).
grant usage on schema community_deletion to public;

do $$
declare
  v_fn record;
  v_role text;
  v_map jsonb := pg_catalog.jsonb_build_object(
    'community_deletion_operator', pg_catalog.jsonb_build_array(
      'submit', 'freeze_inventory', 'approve', 'abort', 'unblock',
      'inspect', 'request_status', 'request_checkpoints', 'list_requests', 'queue_status',
      'storage_taxonomy_rules', 'key_chunk_progress', 'schema_version',
      'validate_catalog', 'validate_serving_catalog',
      'serving_lease_stats', 'reap_serving_leases',
      'record_taxonomy_sweep', 'write_fence_implementation', 'plan'),
    'community_deletion_executor', pg_catalog.jsonb_build_array(
      'claim', 'verify_token', 'verify_store_identity', 'lease_state', 'heartbeat', 'release',
      'executor_stopped',
      'record_failure', 'block', 'block_preclaim',
      'begin_quiescing', 'fence',
      'append_key_chunk', 'clear_key_chunks', 'freeze_destructive_manifest',
      'mark_drained', 'next_key_chunk', 'stamp_key_chunk', 'key_chunk_progress',
      'mark_bindings_removed', 'purge_postgres', 'purge_postgres_batch', 'finish_postgres_purge', 'mark_cache_purged',
      'verify_postgres_absence', 'mark_logically_verified', 'mark_retention_pending',
      'inspect', 'storage_taxonomy_rules', 'validate_catalog',
      'serving_lease_stats', 'reap_serving_leases', 'write_fence_implementation', 'schema_version'),
    'community_deletion_app', pg_catalog.jsonb_build_array(
      'acquire_serving_lease', 'renew_serving_lease', 'verify_serving_lease',
      'release_serving_lease', 'guard_serving_write', 'validate_serving_catalog',
      'write_fence_implementation', 'schema_version'),
    'public', pg_catalog.jsonb_build_array(
      'community_write_allowed', 'assert_community_write_allowed', '_require_read_committed',
      '_community_lock_key', '_serving_write_granted', '_schema_destruction_lock_key',
      -- the DDL guard: every role's DDL runs it (it only answers)
      '_guard_registered_tables',
      -- the explicit DDL lock (no event trigger on a managed server): every
      -- migrating role calls it, as every role's DDL runs the event trigger
      'ddl_lock',
      -- what is installed: `deletions migrate` asks as the migrating role,
      -- which holds none of the engine roles (they only answer)
      'schema_version', 'write_fence_implementation', 'installation_report',
      -- constants: the stage list (the view community_deletion.stages calls them as its reader)
      '_stages', '_stage_order', '_next_stage', '_stage_is_runnable', '_stage_is_terminal',
      '_stage_is_abortable', '_stage_is_fenced'));
begin
  for v_fn in
    select p.oid::pg_catalog.regprocedure as sig, p.proname::text as name
      from pg_catalog.pg_proc p
     where p.pronamespace = 'community_deletion'::pg_catalog.regnamespace
     order by 1
  loop
    execute pg_catalog.format('alter function %s owner to community_deletion_owner', v_fn.sig);
    execute pg_catalog.format('revoke all on function %s from public, community_deletion_operator, '
                              'community_deletion_executor, community_deletion_app', v_fn.sig);
    for v_role in select k from pg_catalog.jsonb_object_keys(v_map) k where v_map -> k ? v_fn.name loop
      execute pg_catalog.format('grant execute on function %s to %s', v_fn.sig,
                                case when v_role = 'public' then 'public' else pg_catalog.quote_ident(v_role) end);
    end loop;
  end loop;

  -- The engine's own tables. The owner (the security-definer code) reads and
  -- writes every one, never TRUNCATE, never DDL; operators read them (psql
  -- inspection); every change goes through the functions; the executor and
  -- the application get no table privileges at all.
  revoke all on all tables in schema community_deletion from public, community_deletion_operator,
    community_deletion_executor, community_deletion_app, community_deletion_owner;
  revoke all on all sequences in schema community_deletion from public, community_deletion_operator,
    community_deletion_executor, community_deletion_app, community_deletion_owner;
  grant select, insert, update, delete on all tables in schema community_deletion to community_deletion_owner;
  grant usage, select on all sequences in schema community_deletion to community_deletion_owner;
  grant select on all tables in schema community_deletion to community_deletion_operator;

  -- The host's tables. Start from nothing for the engine roles, in public and
  -- in every schema holding a registered table.
  revoke all on all tables in schema public from community_deletion_operator, community_deletion_executor,
    community_deletion_app, community_deletion_owner;
  revoke all on all sequences in schema public from community_deletion_operator, community_deletion_executor,
    community_deletion_app, community_deletion_owner;
  -- The owner (the engine's security-definer code): communities (lifecycle
  -- columns, tombstone), every registered scoped table (counted, purged,
  -- proven absent) and provenance table (nulled, proven absent) — and nothing
  -- else of the host's.
  grant select, insert, update, delete on public.communities to community_deletion_owner;

  -- The application writer: communities except the engine-owned lifecycle
  -- columns (deletion_state, deletion_fence_generation, deleted_at) — column
  -- privileges refuse those outright (42501), and the lifecycle guard trigger
  -- refuses them for everyone else (DL8T1) — and its tenant data.
  grant select on public.communities to community_deletion_app;
  grant insert (id, host, name, signing_key, icon, settings, created_at, archived_at) on public.communities
    to community_deletion_app;
  grant update (host, name, signing_key, icon, settings, archived_at) on public.communities
    to community_deletion_app;
  for v_fn in
    select r.schema_name, r.kind, x.rel
      from community_deletion.registered_tables r
      cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
     where r.kind in ('scoped', 'provenance') and x.rel is not null
  loop
    execute pg_catalog.format('grant usage on schema %I to community_deletion_owner, community_deletion_app', v_fn.schema_name);
    execute pg_catalog.format('grant select, insert, update, delete on %s to community_deletion_app', v_fn.rel);
    execute pg_catalog.format('grant %s on %s to community_deletion_owner',
                              case v_fn.kind when 'scoped' then 'select, insert, update, delete' else 'select, update' end,
                              v_fn.rel);
  end loop;

  -- Operators read communities (psql inspection).
  grant select on public.communities to community_deletion_operator;
end;
$$;
--! EndIncluded engine/grants.sql
