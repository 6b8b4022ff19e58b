--! Previous: sha1:484ce7bea7ff712d8c560f729bc242221284a30d
--! Hash: sha1:583fd617017c2a5d4fdb3fdd55bdd4a816eeaa90
--! Message: Purge batches bounded in cost: a row weighs 1 + the foreign keys referencing its table; index lookups per batch and in the absence proof; default purge_batch_rows 10000

-- Enter migration here
-- The purge batch's budget (settings.purge_batch_rows) becomes a cost: a row
-- weighs 1 + the foreign keys referencing its table, so a batch on a parent
-- table (users, events, ...) is as short as one on a child table. Bounded
-- batches and the absence proof find rows through the index leading with the
-- community column (never a sequential scan past the rows already deleted).
-- With cost-weighted batches the default budget doubles to 10,000 (measured:
-- longest batch 0.18 s, whole purge of 1.5 M rows 38 s, vs 0.15 s / 47 s at
-- 5,000): an installation still at the old default 5,000 moves with it; a
-- value an operator chose stays.
alter table community_deletion.settings alter column purge_batch_rows set default 10000;
update community_deletion.settings set purge_batch_rows = 10000 where purge_batch_rows = 5000;
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
    select community_deletion._table_label(t.schema_name, t.table_name) as label, t.schema_name, t.table_name, t.community_column
      from community_deletion.registered_tables t
     where t.kind in ('scoped', 'provenance')
     order by 1
  loop
    execute format('select exists (select 1 from %I.%I where %I = $1)', v_table.schema_name, v_table.table_name,
                   v_table.community_column)
      into v_remains using p_community;
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
--! Included functions/_purge_batch.sql
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
--! EndIncluded functions/_purge_batch.sql
--! Included functions/purge_postgres_batch.sql
-- bindings_removed (executor API): one bounded batch of the PostgreSQL purge,
-- in its own transaction. Under the shared schema-destruction lock (a
-- migration waits for at most this batch, never the whole purge), with the
-- catalog re-validated, the community lock held exclusively (batches of the
-- request never interleave) and lease and fence generation verified, it
-- removes rows worth at most settings.purge_batch_rows (a cost: a row weighs
-- 1 + the foreign keys referencing its table), continuing where the
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
  v_batch := community_deletion._purge_batch(p_request_id, v_request.community_id, 'bindings_removed', p_generation,
    (select s.purge_batch_rows from community_deletion.settings s));
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
  'Bindings_removed stage: one bounded batch of the purge (at most settings.purge_batch_rows of cost: a row weighs 1 + the foreign keys referencing its table) in its own transaction, resuming from the checkpoints.';
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
  'The budget of one batch of the PostgreSQL purge (community_deletion.purge_postgres_batch), one short transaction each, as a cost: a row of a scoped table costs 1 + the number of foreign keys referencing that table (deleting a parent row runs one check or ON DELETE action per referencing key), a nulled provenance row 1; so a table nothing references loses up to this many rows per batch, a parent table with k referencing foreign keys this / (1 + k) (at least one).';
comment on column community_deletion.settings.serving_lease_grace is
  'How long after it expired an unreleased serving-write lease still holds the fence back (its writer may have stalled mid-upload; S3 has no fence).';
--! EndIncluded engine/comments.sql
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
  select 18
$$;
--! EndIncluded functions/schema_version.sql
