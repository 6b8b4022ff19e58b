-- Executor API: records a permanent (safety) failure of one unit at stage:
-- a failed checkpoint, a durable block with the reason, the lease released.
-- Only an operator's community_deletion.unblock (after remediation) resumes it. Verifies
-- the lease first (stale_lease, DL4L1).
-- A unit already completed at that stage keeps its checkpoint (its totals
-- are evidence): the failure is recorded on unit 'failure:<unit_key>'.
create or replace function community_deletion.block(
  request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text)
  returns void
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
  p_stage alias for $4;
  p_unit_key alias for $5;
  p_error alias for $6;
  v_unit_key text := community_deletion._require_text(p_unit_key, 'unit_key', 256);
  v_error text := community_deletion._bound_text(community_deletion._require_text(p_error, 'error', 1000000), 4096);
begin
  perform community_deletion._verify_lease(p_request_id, p_owner, p_generation, p_stage);
  -- A failure never overwrites a completed unit: it is recorded beside it.
  v_unit_key := community_deletion._failure_unit_key(p_request_id, p_stage, v_unit_key);
  perform community_deletion._checkpoint(
    p_request_id, p_stage, v_unit_key, 'failed', p_generation,
    jsonb_build_object('error', v_error, 'retryable', false), v_error);
  update community_deletion.requests r
     set blocked_at = now(), blocked_reason = v_error, last_error = v_error, last_error_at = now(),
         lease_owner = null, lease_until = null, updated_at = now()
   where r.id = p_request_id and r.lease_owner = p_owner and r.lease_generation = p_generation;
  if not found then
    raise exception 'stale deletion lease for request % (owner %, generation %): cannot block',
      p_request_id, p_owner, p_generation
      using errcode = 'DL4L1';
  end if;
end;
$$;
