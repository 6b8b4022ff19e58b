--! Previous: sha1:096474054f9a7c1686f9230d965ebebeb0922c52
--! Hash: sha1:60efcde39f81c8687a842831ec2cb8b593333dbd
--! Message: A throttle for the batched purge: settings.purge_batch_rest_ratio (default 0, bounded 0..10); purge_postgres_batch returns rest_ms (its own duration times the ratio, 0 once done) and the executor rests that long between batches, holding no transaction and no lock, its lease renewed

-- A throttle for the batched purge (issue 15): settings.purge_batch_rest_ratio
-- (default 0: no rest). purge_postgres_batch returns rest_ms — its own
-- duration times the ratio, 0 once done — and the executor rests that long
-- between batches, holding no transaction and no lock, its lease renewed.
alter table community_deletion.settings
  add column if not exists purge_batch_rest_ratio numeric not null default 0;
alter table community_deletion.settings drop constraint if exists settings_purge_batch_rest_ratio_is_bounded;
alter table community_deletion.settings
  add constraint settings_purge_batch_rest_ratio_is_bounded
    check (purge_batch_rest_ratio >= 0 and purge_batch_rest_ratio <= 10);
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
  'Bindings_removed stage: one bounded batch of the purge (at most settings.purge_batch_rows of cost: a row weighs 1 + the foreign keys referencing its table; sized by each table''s measured pace to take about settings.purge_batch_target) in its own transaction, resuming from the checkpoints; rest_ms tells the executor how long to rest before the next (settings.purge_batch_rest_ratio).';
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
comment on column community_deletion.settings.purge_batch_rest_ratio is
  'A throttle for the batched purge: after each batch the executor rests this many times the batch''s own duration before the next (0, the default: no rest; 1: the purge works half the time and takes twice as long). While it rests the purge holds no transaction and no lock; the lease is renewed and the community stays fenced. Between 0 and 10.';
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
  select 23
$$;
--! EndIncluded functions/schema_version.sql
