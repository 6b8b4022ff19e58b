--! Previous: sha1:a927229cc870835aba510fa1dc94c0f2ec8335ab
--! Hash: sha1:3eb29bcc751a495995126cd8646bbde6c9178529
--! Message: The transaction that tombstones the community waits for its WAL flush: _finish_postgres_purge raises a synchronous_commit of off to on for its own transaction (batches run in the same transaction, or a session's own); stricter values kept

-- The transaction that tombstones the community waits for its WAL flush:
-- _finish_postgres_purge (finish_postgres_purge, and purge_postgres after its
-- single batch) raises a synchronous_commit of off to on for its own
-- transaction — off that purge_postgres_batch set when a caller ran batches
-- and the final step in one transaction, or a session's own. Any other
-- value (local, remote_write, remote_apply) is kept. A tombstone a client
-- saw committed survives a server crash; the batches still commit without
-- waiting (a lost batch is one that never ran).
--! Included functions/_finish_postgres_purge.sql
-- The last step of the PostgreSQL purge (finish_postgres_purge, and
-- purge_postgres after its single batch), inside the caller's transaction
-- after the same locks and verification as a batch: refuses while any purge
-- unit is not completed (purge_pending, DL6P1, retryable: run the batches
-- first); tombstones the community only if it is still fenced at exactly
-- p_fence_generation (DL4L1 otherwise); then proves, in the same transaction,
-- that no registered scoped or provenance table holds a row of it
-- (_prove_postgres_absence, DL9A1 naming the table) — so the tombstone
-- commits only when everything is gone; advances bindings_removed →
-- postgres_purged with a postgres_tombstone_committed checkpoint carrying the
-- totals. The transaction that tombstones waits for its WAL flush: a
-- synchronous_commit of off (purge_postgres_batch sets it for its own
-- transaction; a caller may run batches and this step in one transaction,
-- or a session may commit asynchronously) is raised to on for this
-- transaction only; any other value (local, remote_write, remote_apply) is
-- kept. Returns {"deleted": {table: rows}, "provenance_cleared": {table: rows}}.
create or replace function community_deletion._finish_postgres_purge(
  p_request community_deletion.requests, p_owner text, p_generation bigint, p_fence_generation bigint)
  returns jsonb
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_totals jsonb := community_deletion._purge_totals(p_request.id, 'bindings_removed');
  v_result jsonb;
begin
  if current_setting('synchronous_commit') = 'off' then
    perform set_config('synchronous_commit', 'on', true);
  end if;
  if jsonb_array_length(v_totals -> 'pending') > 0 then
    raise exception 'request %: the PostgreSQL purge is not finished; still to purge: %', p_request.id,
      (select string_agg(u, ', ') from jsonb_array_elements_text(v_totals -> 'pending') u)
      using errcode = 'DL6P1',
            hint = 'Run community_deletion.purge_postgres_batch until it returns "done": true.';
  end if;
  if not community_deletion._tombstone_community(p_request.community_id, p_fence_generation) then
    raise exception 'request %: community % is no longer fenced at generation %; nothing was tombstoned',
      p_request.id, p_request.community_id, p_fence_generation
      using errcode = 'DL4L1';
  end if;
  perform community_deletion._prove_postgres_absence(p_request.id, p_request.community_id, p_fence_generation);
  v_result := jsonb_build_object('deleted', v_totals -> 'deleted', 'provenance_cleared', v_totals -> 'provenance_cleared');
  perform community_deletion._advance(p_request.id, p_owner, p_generation, 'bindings_removed', 'postgres_purged', p_fence_generation);
  perform community_deletion._checkpoint(p_request.id, 'bindings_removed', 'postgres_tombstone_committed', 'completed',
    p_generation, v_result || jsonb_build_object('fence_generation', p_fence_generation));
  return v_result;
end;
$$;
--! EndIncluded functions/_finish_postgres_purge.sql
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
-- waits for its flush (off is raised to on for its transaction, even after
-- batches in the same transaction), which covers every batch before it.
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
  select 31
$$;
--! EndIncluded functions/schema_version.sql
