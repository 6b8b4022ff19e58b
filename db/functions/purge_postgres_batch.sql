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
