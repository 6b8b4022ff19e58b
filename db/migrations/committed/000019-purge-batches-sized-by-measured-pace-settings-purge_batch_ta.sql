--! Previous: sha1:583fd617017c2a5d4fdb3fdd55bdd4a816eeaa90
--! Hash: sha1:76f3bf8726d90d170e0088ba01708d26e83ebd77
--! Message: Purge batches sized by measured pace: settings.purge_batch_target (default 250 ms), probe then at most fourfold growth, pace kept in the checkpoint; a table is completed by the batch after the one that emptied it; purge_batch_rows default 100000 (a hard cap)

-- Purge batches sized by their measured pace (issue 15): a batch's rows aim
-- at settings.purge_batch_target (default 250 ms; null: the cost budget
-- alone), each table's pace measured by a probe and carried in its
-- checkpoint; settings.purge_batch_rows stays the hard cap in cost, its
-- default raised from 10,000 to 100,000 (the time target is what sizes a
-- batch now; the cap bounds one batch's WAL and row locks): an installation
-- still at the old default moves with it, a value an operator chose stays.
alter table community_deletion.settings
  add column purge_batch_target interval default interval '250 milliseconds',
  add constraint settings_purge_batch_target_is_bounded
    check (purge_batch_target is null
           or (purge_batch_target >= interval '1 millisecond' and purge_batch_target <= interval '1 minute'));
alter table community_deletion.settings alter column purge_batch_rows set default 100000;
update community_deletion.settings set purge_batch_rows = 100000 where purge_batch_rows = 10000;
drop function if exists community_deletion._purge_batch(uuid, uuid, text, bigint, bigint);
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
-- found through the index leading with the community column and removed by
-- ctid, and its checkpoint is upserted in the batch's transaction with the
-- running total (detail rows and batches; attempts counts the batches):
-- 'started' while rows may remain, 'completed' once a lookup found fewer
-- rows than allowed — the table holds no more, because the community is
-- fenced and nothing writes it. In a bounded batch that lookup must also be
-- the unit's first removal-free one in the batch: a unit emptied by a batch
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
    loop
      -- The allowance in cost: what is left of the budget, in this unit's rows.
      v_by_cost := case when p_budget is null then null
                        when v_spent = 0 then greatest(1, p_budget / v_unit.weight)
                        else (p_budget - v_spent) / v_unit.weight end;
      -- The allowance in time: nothing once the time is spent, else a probe
      -- for a unit never measured, else what fits in the time left at the
      -- unit's pace (at most c_growth times its previous statement). A batch
      -- that has removed nothing yet always moves at least one row.
      v_by_time := null;
      if v_target_us is not null then
        v_left := v_target_us - extract(epoch from clock_timestamp() - v_started) * 1000000;
        v_by_time := case when v_left <= 0 then 0
                          when v_rate is null or v_last is null then c_probe_rows
                          else least(floor(v_left / greatest(v_rate, 0.001)), c_growth * v_last) end;
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
      -- reads the whole key range before the limit. Only this lookup runs so
      -- planned: the statement that removes the rows (and the triggers and
      -- foreign key checks it fires) runs with the caller's settings.
      v_t0 := clock_timestamp();
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
      v_statements := v_statements + 1;
      v_unit_rows := v_unit_rows + v_rows;
      v_removed := v_removed + v_rows;
      v_spent := v_spent + v_rows * v_unit.weight;
      if v_rows > 0 then
        v_rate := round((extract(epoch from clock_timestamp() - v_t0) * 1000000 / v_rows)::numeric, 3);
        v_last := v_rows;
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
        v_completed := p_budget is null or v_unit_rows = 0;
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
-- "inventoried_rows": what the frozen inventory counted}.
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
  perform set_config('community_deletion.read_state_hard_delete', 'on', true);
  select s.purge_batch_rows, s.purge_batch_target into v_budget, v_target from community_deletion.settings s;
  v_batch := community_deletion._purge_batch(p_request_id, v_request.community_id, 'bindings_removed', p_generation,
    v_budget, v_target);
  perform set_config('community_deletion.read_state_hard_delete', 'off', true);
  v_totals := community_deletion._purge_totals(p_request_id, 'bindings_removed');
  return v_batch || jsonb_build_object('purged_rows', v_totals -> 'purged_rows', 'inventoried_rows', v_totals -> 'inventoried_rows');
end;
$$;
--! EndIncluded functions/purge_postgres_batch.sql
--! Included engine/comments.sql
-- What \df+ community_deletion.* shows for each function of the SQL API
-- (docs/sql-api.md). Internal helpers (a leading underscore) and trigger
-- functions (tg_*) have none: they are not called directly. A test keeps
-- every API function described.

-- Operators (role community_deletion_operator)
comment on function community_deletion.submit(text, text, text) is
  'Open a deletion request for the community with this host (requested_by, reason). One open request per community.';
comment on function community_deletion.freeze_inventory(uuid, jsonb, jsonb) is
  'Freeze the request''s inventory: the SQL schema manifest plus the storage summary the driver enumerated, and the store identity it came from; computes the digest an approver approves.';
comment on function community_deletion.approve(uuid, text, text, timestamptz, interval, text) is
  'Approve the exact frozen inventory as a second operator; optional grace period (not_before or delay); optional digest (prefix, 8+ hex) the approver reviewed.';
comment on function community_deletion.abort(uuid, text, text) is
  'Abort a request up to fenced: withdraw it (submitted, inventoried) or give the community back (approved, fenced).';
comment on function community_deletion.queue_status() is
  'The queue at a glance: requests per state, the oldest in each, and which states need an operator.';
comment on function community_deletion.schema_version() is
  'The engine schema version (the last migration that changed engine objects); drivers refuse a version they were not built for.';
comment on function community_deletion.unblock(uuid, text, text) is
  'Clear a durable block after remediation; the request resumes at the same stage with the same approval.';
comment on function community_deletion.inspect(uuid) is
  'Everything about one request as jsonb (request, community, approval, checkpoints, state, explanation) for programs.';
comment on function community_deletion.request_status(uuid) is
  'One request as one row for people: stage, state, explanation, lease, retries, block.';
comment on function community_deletion.request_checkpoints(uuid) is
  'A request''s checkpoints as rows, in order, with attempts and errors.';
comment on function community_deletion.list_requests(integer, text, text, uuid) is
  'Requests, newest first (max_rows 1..1000), each with its state and explanation; optional filters in_state and host, paging with before (a request id).';
comment on function community_deletion.storage_taxonomy_rules() is
  'The storage key taxonomy: owned prefixes and shared shapes, with the key pattern each writer produces.';
comment on function community_deletion.record_taxonomy_sweep(timestamptz, bigint, bigint, jsonb, bigint, boolean) is
  'Record the result of a fleet-wide storage taxonomy sweep (observational; never gates a deletion).';
comment on function community_deletion.validate_catalog() is
  'Raise DL7C1 (listing every problem) unless the live tables with community_id equal the registry, each scoped table is fenced and indexed.';
comment on function community_deletion.validate_serving_catalog() is
  'Raise DL7C1 unless every registered scoped table the serving path writes exists with its write fence.';
comment on function community_deletion.plan(text) is
  'What a deletion of this host would remove from PostgreSQL (rows per registered table, in purge order), read-only: no request is created.';
comment on function community_deletion.write_fence_implementation() is
  'Which implementation the write-fence triggers execute: native or plpgsql.';
comment on function community_deletion.installation_report() is
  'What protects this installation and what is degraded and why (native fence, DDL lock, DDL guard, RLS exemption) as jsonb.';
comment on function community_deletion.ddl_lock() is
  'Take the schema/destruction lock exclusively until the end of the transaction: call first in every migration where no event trigger does (managed servers).';

-- Executors (role community_deletion_executor); every call but claim presents
-- the lease token (request_id, executor_id, lease_generation).
comment on function community_deletion.claim(text, uuid, integer) is
  'Claim the oldest runnable request (or request_id) for executor_id; returns the lease token, or no row.';
comment on function community_deletion.verify_store_identity(uuid, text, bigint, jsonb) is
  'Raise DL4S1 unless the executor''s stores (S3 endpoint + bucket, Redis server + database) are the request''s recorded ones; records them for a request frozen without.';
comment on function community_deletion.verify_token(uuid, text, bigint, text) is
  'Raise DL4L1 unless the lease token is current, unexpired and unblocked at this stage.';
comment on function community_deletion.lease_state(uuid, text, bigint) is
  'The stage the holder of this lease token must run next, with the fence generation to present.';
comment on function community_deletion.heartbeat(uuid, text, bigint, text, integer, boolean) is
  'Renew the lease (lease_seconds) and record the executor''s liveness; DL4L1 once the lease is lost.';
comment on function community_deletion.release(uuid, text, bigint) is
  'Give the lease back without recording a failure (clean shutdown).';
comment on function community_deletion.executor_stopped(text) is
  'Mark the executor''s liveness row stopped.';
comment on function community_deletion.record_failure(uuid, text, bigint, text, text, text) is
  'Record a transient failure: retry with backoff, or a durable block after the configured streak.';
comment on function community_deletion.block(uuid, text, bigint, text, text, text) is
  'Record a permanent failure: block the request durably with the reason.';
comment on function community_deletion.block_preclaim(uuid, text, text) is
  'Block a request that no executor could claim (service configuration), so inspect explains it.';
comment on function community_deletion.begin_quiescing(uuid, text, bigint) is
  'Approved stage, step 1: refuse new serving-write leases for the community (quiescing).';
comment on function community_deletion.fence(uuid, text, bigint) is
  'Approved stage, step 2: once no serving lease is live, close the write fence (new fence generation) and move to fenced.';
comment on function community_deletion.clear_key_chunks(uuid, text, bigint, bigint) is
  'Fenced stage: remove key chunks of an unfinished enumeration before enumerating again.';
comment on function community_deletion.append_key_chunk(uuid, text, bigint, bigint, integer, text, jsonb) is
  'Fenced stage: store one chunk of the post-fence enumeration (validated against the taxonomy and order).';
comment on function community_deletion.freeze_destructive_manifest(uuid, text, bigint, bigint, jsonb) is
  'Fenced stage: freeze the destructive manifest; the stored chunks must hash to it.';
comment on function community_deletion.mark_drained(uuid, text, bigint, bigint) is
  'Fenced stage: serving writes are drained and the destructive manifest frozen; move to drained.';
comment on function community_deletion.next_key_chunk(uuid, text, bigint, bigint) is
  'Drained stage: the next unstamped key chunk to delete from storage, or no row.';
comment on function community_deletion.stamp_key_chunk(uuid, text, bigint, bigint, integer, jsonb) is
  'Drained stage: stamp a chunk deleted (once) and checkpoint it.';
comment on function community_deletion.key_chunk_progress(uuid) is
  'Key chunks and the object versions they hold, in total and already stamped deleted.';
comment on function community_deletion.mark_bindings_removed(uuid, text, bigint, bigint, jsonb) is
  'Drained stage: every chunk is stamped; move to bindings_removed.';
comment on function community_deletion.purge_postgres(uuid, text, bigint, bigint) is
  'Bindings_removed stage: the whole PostgreSQL purge and the tombstone in one transaction (grows with the tenant; the executor uses the batched path).';
comment on function community_deletion.purge_postgres_batch(uuid, text, bigint, bigint) is
  'Bindings_removed stage: one bounded batch of the purge (at most settings.purge_batch_rows of cost: a row weighs 1 + the foreign keys referencing its table; sized by each table''s measured pace to take about settings.purge_batch_target) in its own transaction, resuming from the checkpoints.';
comment on function community_deletion.finish_postgres_purge(uuid, text, bigint, bigint) is
  'Bindings_removed stage: after the batches, prove every table empty, tombstone the community and move to postgres_purged.';
comment on function community_deletion.mark_cache_purged(uuid, text, bigint, bigint, jsonb) is
  'Postgres_purged stage: the Redis namespace was purged; move to cache_purged.';
comment on function community_deletion.verify_postgres_absence(uuid, text, bigint, bigint) is
  'Cache_purged stage: prove no registered table holds a row of the community.';
comment on function community_deletion.mark_logically_verified(uuid, text, bigint, bigint, jsonb) is
  'Cache_purged stage: absence proven in all three stores; move to logically_verified and drop the key chunks.';
comment on function community_deletion.mark_retention_pending(uuid, text, bigint, bigint, jsonb) is
  'Logically_verified stage: complete the request (retention_pending) and release the lease.';

-- The host application (role community_deletion_app)
comment on function community_deletion.acquire_serving_lease(uuid, text, text, integer) is
  'Admit a serving-path external effect (upload, push, …) for an active community; returns the lease.';
comment on function community_deletion.renew_serving_lease(uuid, text, bigint, bigint, integer) is
  'Renew an admitted serving lease (also while the community is quiescing); DL5S1 once it is lost.';
comment on function community_deletion.verify_serving_lease(uuid, text, bigint, bigint) is
  'Raise DL5S1 unless the serving lease is still live; call right before an irreversible external call.';
comment on function community_deletion.release_serving_lease(uuid, text, bigint, bigint) is
  'Release a serving lease; returns whether it was still live.';
comment on function community_deletion.guard_serving_write(uuid, text, bigint, bigint) is
  'Authorise this transaction''s final write for a leased effect while the community is quiescing.';
comment on function community_deletion.reap_serving_leases(integer) is
  'Remove expired serving leases and finished transactions'' write grants (at most max_rows); returns how many.';
comment on function community_deletion.serving_lease_stats() is
  'Serving leases by state, as jsonb.';
comment on function community_deletion.community_write_allowed(uuid) is
  'Whether this transaction may write the community''s rows now (the write fence''s decision).';
comment on function community_deletion.assert_community_write_allowed(uuid) is
  'Raise 55000 unless community_write_allowed: fail a write transaction before doing work.';

-- DBAs (migrations)
comment on function community_deletion.register_scoped_table(regclass, integer) is
  'Register a tenant table as community-scoped with its purge order and attach the write fence.';
comment on function community_deletion.register_unscoped_table(regclass, text, text) is
  'Register a table with a community_id that is not purged: provenance (its community_id is nulled).';
comment on function community_deletion.install_write_fence(boolean, text) is
  'Install the write fence''s trigger functions: native when the library loads (superuser), else PL/pgSQL.';

comment on column community_deletion.settings.purge_batch_rows is
  'The budget of one batch of the PostgreSQL purge (community_deletion.purge_postgres_batch), one short transaction each, as a cost: a row of a scoped table costs 1 + the number of foreign keys referencing that table (deleting a parent row runs one check or ON DELETE action per referencing key), a nulled provenance row 1; so a table nothing references loses up to this many rows per batch, a parent table with k referencing foreign keys this / (1 + k) (at least one). A hard cap (it bounds one batch''s WAL and row locks); purge_batch_target is what usually sizes a batch.';
comment on column community_deletion.settings.purge_batch_target is
  'How long the rows'' work of one purge batch aims to take (null: the cost budget purge_batch_rows alone). Each table''s pace is measured (a probe of 100 rows first, then at most four times the previous statement) and kept in its checkpoint (us_per_row, last_rows); a batch ends when its time is spent, after at least one row. Batch boundaries depend on it; what is removed and the totals do not.';
comment on column community_deletion.settings.serving_lease_grace is
  'How long after it expired an unreleased serving-write lease still holds the fence back (its writer may have stalled mid-upload; S3 has no fence).';
--! EndIncluded engine/comments.sql
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
  select 19
$$;
--! EndIncluded functions/schema_version.sql
