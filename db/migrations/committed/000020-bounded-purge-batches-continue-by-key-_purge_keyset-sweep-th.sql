--! Previous: sha1:76f3bf8726d90d170e0088ba01708d26e83ebd77
--! Hash: sha1:ee21ee2f9e450b4ecc3b96585d03be6b48461bb8
--! Message: Bounded purge batches continue by key (_purge_keyset), sweep the key range the previous batch removed, complete a table only by a lookup from the start; the absence proof probes the same index; a time-sized statement moves at least 100 rows

-- Bounded purge batches continue by key (issue 15): a scoped table's batch
-- looks its rows up from right after the last key the previous batch removed
-- (the columns after the community column of a suitable btree index,
-- _purge_keyset), instead of from the start of the community's range past
-- the index entries of every row already removed — which made each batch of
-- a large table slower than the last (a 1.6 M-row table took 2,517 batches
-- at 20 M rows). Each batch first sweeps the key range the table's previous
-- batch removed, so its index entries are marked dead once; a table is
-- completed by a lookup from the start of the range; the absence proof
-- probes the same index. A statement sized by time moves at least 100 rows
-- while the batch has time left (a statement whose fixed cost exceeded the
-- target no longer shrinks the next one to a single row).
--! Included functions/_purge_keyset.sql
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
--! EndIncluded functions/_purge_keyset.sql
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
--     the first statement of a unit is a probe of at most 100 rows, and every
--     later statement — in this batch, or the unit's first in the next one —
--     takes what fits in the batch's remaining time at the unit's last
--     measured microseconds per row, growing at most fourfold over the
--     unit's previous statement. When the time is spent the batch ends (the
--     first statement of a batch always moves at least one row, so every
--     batch makes progress). The measured rate is kept in the checkpoint
--     (detail us_per_row, last_rows), so a new batch starts at the pace of
--     the last one. Batch boundaries depend on measured time; what is
--     removed, in which order and with which totals does not.
-- A unit whose checkpoint is completed is skipped. Otherwise its rows are
-- found through the index leading with the community column — in a bounded
-- batch of a scoped table with a purge key (_purge_keyset), in key order from
-- right after the last key the previous batch removed, that batch's key
-- range being swept first (detail after, from, to) — and removed by ctid,
-- and its checkpoint is upserted in the batch's transaction with the
-- running total (detail rows and batches; attempts counts the batches):
-- 'started' while rows may remain, 'completed' once a lookup found fewer
-- rows than allowed — the table holds no more, because the community is
-- fenced and nothing writes it. In a bounded batch that lookup must also
-- start at the beginning of the range (not by key) and be the unit's first
-- removal-free one in the batch: a unit emptied by a batch
-- is completed by the next (its lookup walks the index entries of the rows
-- the last batch removed, so the absence proof does not walk them all at
-- once), and the batch that finds every unit completed reports done. Small
-- tables share a batch; a large one spans many. A batch that does not commit leaves rows and checkpoints
-- exactly as they were, so the totals always equal what is gone.
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
  c_probe_rows constant bigint := 100;
  c_growth constant bigint := 4;
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
  v_left numeric;
  v_t0 timestamptz;
  v_removed bigint := 0;
  v_spent bigint := 0;
  v_ctids tid[];
  v_key_columns text[];
  v_key_types text[];
  v_key_unique boolean;
  v_after text[];
  v_first text[];
  v_final text[];
  v_first_json jsonb;
  v_final_json jsonb;
  v_batch_from text[];
  v_batch_to text[];
  v_keyset boolean;
  v_found boolean;
  v_row text;
  v_bound text;
  v_order text;
  v_key_text text;
  v_seqscan text := current_setting('enable_seqscan');
  v_bitmapscan text := current_setting('enable_bitmapscan');
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
    -- The unit's pace as the last batch measured it (null: never measured).
    v_rate := (v_detail ->> 'us_per_row')::numeric;
    v_last := (v_detail ->> 'last_rows')::bigint;
    v_unit_rows := 0;
    v_statements := 0;
    v_full := false;
    v_completed := false;
    -- The key a bounded batch continues by (scoped tables; none: lookups
    -- start at the beginning of the community's range), where the last batch
    -- stopped ('after'; null: start over) and the key range it removed
    -- ('from' .. 'to').
    v_key_columns := null;
    v_key_types := null;
    v_key_unique := null;
    if p_budget is not null and not v_unit.nulls_column then
      select k.key_columns, k.key_types, k.key_unique into v_key_columns, v_key_types, v_key_unique
        from community_deletion._purge_keyset(to_regclass(format('%I.%I', v_unit.schema_name, v_unit.table_name)),
                                              v_unit.community_column) k;
    end if;
    v_after := case when v_key_columns is not null and jsonb_typeof(v_detail -> 'after') = 'array'
                    then array(select jsonb_array_elements_text(v_detail -> 'after')) end;
    v_batch_from := null;
    v_batch_to := null;
    if v_key_columns is not null then
      v_row := format('(%I, %s)', v_unit.community_column,
                      (select string_agg(format('%I', c), ', ' order by o) from unnest(v_key_columns) with ordinality u(c, o)));
      v_bound := format('($1, %s)',
                        (select string_agg(format('($2)[%s]::%s', o, t), ', ' order by o) from unnest(v_key_types) with ordinality u(t, o)));
      v_order := format('%I, %s', v_unit.community_column,
                        (select string_agg(format('%I', c), ', ' order by o) from unnest(v_key_columns) with ordinality u(c, o)));
      v_key_text := format('array[%s]',
                           (select string_agg(format('%I::text', c), ', ' order by o) from unnest(v_key_columns) with ordinality u(c, o)));
      -- The sweep: the index entries of the rows the unit's last batch
      -- removed are walked once, now that their deletion has committed, so
      -- PostgreSQL marks them dead (later walks of the range — the lookup
      -- that completes the unit, the absence proof — skip them without a
      -- heap visit). Continuing by key, no other lookup walks them.
      if jsonb_typeof(v_detail -> 'from') = 'array' and jsonb_typeof(v_detail -> 'to') = 'array' then
        perform set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true);
        -- (Ordered by the key and not inside EXISTS, which would drop the
        -- ORDER BY and let the planner walk another index.)
        execute format('select true from %1$I.%2$I where %3$I = $1 and %4$s >= %5$s and %4$s <= %6$s order by %7$s limit 1',
                       v_unit.schema_name, v_unit.table_name, v_unit.community_column, v_row, v_bound,
                       replace(v_bound, '($2)', '($3)'), v_order)
          into v_found
          using p_community, array(select jsonb_array_elements_text(v_detail -> 'from')),
                array(select jsonb_array_elements_text(v_detail -> 'to'));
        perform set_config('enable_seqscan', v_seqscan, true), set_config('enable_bitmapscan', v_bitmapscan, true);
      end if;
    end if;
    loop
      -- The allowance in cost: what is left of the budget, in this unit's rows.
      v_by_cost := case when p_budget is null then null
                        when v_spent = 0 then greatest(1, p_budget / v_unit.weight)
                        else (p_budget - v_spent) / v_unit.weight end;
      -- The allowance in time: nothing once the time is spent, else a probe
      -- for a unit never measured, else what fits in the time left at the
      -- unit's pace — at least a probe's worth, at most c_growth times the
      -- unit's previous statement. A batch that has removed nothing yet
      -- always moves at least one row.
      v_by_time := null;
      if v_target_us is not null then
        v_left := v_target_us - extract(epoch from clock_timestamp() - v_started) * 1000000;
        v_by_time := case when v_left <= 0 then 0
                          when v_rate is null or v_last is null then c_probe_rows
                          else least(greatest(floor(v_left / greatest(v_rate, 0.001)), c_probe_rows), c_growth * v_last) end;
        if v_by_time < 1 and v_spent = 0 then
          v_by_time := 1;
        end if;
      end if;
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
      -- reads the whole key range before the limit. With a key it starts
      -- right after the last row removed (no walk over the entries of the
      -- rows already gone, which would make every batch of a large table
      -- slower than the last). Only this lookup runs so planned: the
      -- statement that removes the rows (and the triggers and foreign key
      -- checks it fires) runs with the caller's settings.
      v_t0 := clock_timestamp();
      v_keyset := v_key_columns is not null and v_after is not null;
      if p_budget is not null then
        perform set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true);
      end if;
      if v_key_columns is null then
        execute format('select array(select ctid from %1$I.%2$I where %3$I = $1 limit $3)',
                       v_unit.schema_name, v_unit.table_name, v_unit.community_column)
          into v_ctids using p_community, null::text[], v_allowed;
        v_first := null;
        v_final := null;
      else
        -- The first and last keys as JSON arrays (array_agg of arrays would
        -- build a two-dimensional array).
        execute format('select array_agg(s.ctid), jsonb_agg(s.k) -> 0, jsonb_agg(s.k) -> -1'
                       ' from (select ctid, to_jsonb(%4$s) as k from %1$I.%2$I where %3$I = $1 %5$s order by %6$s limit $3) s',
                       v_unit.schema_name, v_unit.table_name, v_unit.community_column, v_key_text,
                       case when v_keyset then format('and %s %s %s', v_row, case when v_key_unique then '>' else '>=' end, v_bound)
                            else '' end,
                       v_order)
          into v_ctids, v_first_json, v_final_json using p_community, v_after, v_allowed;
        v_ctids := coalesce(v_ctids, '{}');
        v_first := case when v_first_json is not null then array(select jsonb_array_elements_text(v_first_json)) end;
        v_final := case when v_final_json is not null then array(select jsonb_array_elements_text(v_final_json)) end;
      end if;
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
      v_statements := v_statements + 1;
      v_unit_rows := v_unit_rows + v_rows;
      v_removed := v_removed + v_rows;
      v_spent := v_spent + v_rows * v_unit.weight;
      if v_rows > 0 then
        v_rate := round((extract(epoch from clock_timestamp() - v_t0) * 1000000 / v_rows)::numeric, 3);
        v_last := v_rows;
      end if;
      if v_first is not null then
        v_batch_from := coalesce(v_batch_from, v_first);
        v_batch_to := v_final;
        -- A key holding a NULL cannot be continued from (a row comparison
        -- with NULL is never true): the next lookup starts over.
        v_after := case when array_position(v_final, null) is null then v_final end;
      end if;
      if v_allowed is null or cardinality(v_ctids) < v_allowed then
        -- Fewer rows than allowed: the table holds no more of the community,
        -- or none after the key. A bounded batch marks the unit completed
        -- only when a lookup from the start of the range found it empty
        -- without having removed any of it in this batch: otherwise the next
        -- batch sweeps the entries of the rows just removed and looks again
        -- from the start (a lookup by key does not see rows whose key holds
        -- a NULL), and that lookup completes the unit — so the absence proof
        -- in finish_postgres_purge does not meet every table's last removed
        -- rows at once.
        v_completed := p_budget is null or (v_unit_rows = 0 and not v_keyset);
        if not v_completed then
          v_after := null;
        end if;
        exit;
      end if;
      if v_by_cost is not null and v_rows >= v_by_cost then
        -- The budget is spent and this table may hold more: the next batch goes on here.
        v_full := true;
        exit;
      end if;
      -- Sized by time: the unit goes on while the batch has time left.
    end loop;
    if v_statements > 0 then
      perform community_deletion._checkpoint(p_request_id, p_stage, v_unit.unit_key,
        case when v_completed then 'completed' else 'started' end, p_generation,
        jsonb_build_object('rows', coalesce((v_detail ->> 'rows')::bigint, 0) + v_unit_rows,
                           'batches', coalesce((v_detail ->> 'batches')::bigint, 0) + 1)
        || case when v_rate is null then '{}'::jsonb
                else jsonb_build_object('us_per_row', v_rate, 'last_rows', v_last) end
        || case when v_completed or v_key_columns is null then '{}'::jsonb
                else jsonb_build_object('after', to_jsonb(v_after),
                                        'from', to_jsonb(v_batch_from), 'to', to_jsonb(v_batch_to)) end);
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
--! Included functions/_prove_postgres_absence.sql
-- The PostgreSQL half of the absence proof, run inside the caller's
-- transaction after it took the shared schema-destruction lock and
-- re-validated the catalog: the community is a tombstone at exactly
-- p_fence_generation (DL8T1 otherwise) and no registered scoped or provenance
-- table holds a row for it (DL9A1 naming the table). Returns the number of
-- tables checked. The registry is read live, so a table registered after the
-- purge is part of the proof and fails it closed if it holds tenant rows.
create or replace function community_deletion._prove_postgres_absence(
  p_request_id uuid,
  p_community uuid,
  p_fence_generation bigint)
  returns integer
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  -- Each probe is an index scan on the index leading with the community
  -- column that stops at the first live row: a sequential scan (what the
  -- planner picks when its statistics still say the community fills the
  -- table) would read every dead row the purge left, growing with the tenant;
  -- a bitmap scan would read the whole key range. The proof is the same.
  set enable_seqscan = off
  set enable_bitmapscan = off
as $$
declare
  v_table record;
  v_remains boolean;
  v_checked integer := 0;
  v_key text[];
begin
  if not exists (select 1 from public.communities c
                 where c.id = p_community and c.deletion_state = 'tombstone'
                   and c.deleted_at is not null and c.deletion_fence_generation = p_fence_generation) then
    raise exception 'request %: community % is not a tombstone at fence generation %',
      p_request_id, p_community, p_fence_generation
      using errcode = 'DL8T1',
            hint = 'The community row changed outside the engine after the purge; investigate before unblocking.';
  end if;
  for v_table in
    select community_deletion._table_label(t.schema_name, t.table_name) as label, t.schema_name, t.table_name, t.community_column,
           t.kind
      from community_deletion.registered_tables t
     where t.kind in ('scoped', 'provenance')
     order by 1
  loop
    -- A scoped table with a purge key is probed through the same index the
    -- batches continued by and swept (ordered by its key), whose entries for
    -- the removed rows are already marked dead; another index's would each
    -- cost a heap visit.
    select k.key_columns into v_key
      from community_deletion._purge_keyset(to_regclass(format('%I.%I', v_table.schema_name, v_table.table_name)),
                                            v_table.community_column) k
     where v_table.kind = 'scoped';
    -- (Not inside EXISTS, which would drop the ORDER BY.)
    execute case when v_key is null
                 then format('select exists (select 1 from %I.%I where %I = $1)', v_table.schema_name, v_table.table_name,
                             v_table.community_column)
                 else format('select true from %I.%I where %I = $1 order by %I, %s limit 1', v_table.schema_name, v_table.table_name,
                             v_table.community_column, v_table.community_column,
                             (select string_agg(format('%I', c), ', ' order by o) from unnest(v_key) with ordinality u(c, o))) end
      into v_remains using p_community;
    v_remains := coalesce(v_remains, false);
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
--! EndIncluded functions/_prove_postgres_absence.sql
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
  select 20
$$;
--! EndIncluded functions/schema_version.sql
