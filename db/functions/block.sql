-- Executor API: records a permanent (safety) failure of one unit at p_stage:
-- a failed checkpoint, a durable block with the reason, the lease released.
-- Only an operator's deletion_unblock (after remediation) resumes it. Verifies
-- the lease first (stale_lease, DL4L1).
create or replace function public.deletion_block(
  p_request_id uuid, p_owner text, p_generation bigint, p_stage text, p_unit_key text, p_error text)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
declare
  v_unit_key text := public._deletion_require_text(p_unit_key, 'unit_key', 256);
  v_error text := public._deletion_bound_text(public._deletion_require_text(p_error, 'error', 1000000), 4096);
begin
  perform public._deletion_verify_lease(p_request_id, p_owner, p_generation, p_stage);
  perform public._deletion_checkpoint(
    p_request_id, p_stage, v_unit_key, 'failed', p_generation,
    jsonb_build_object('error', v_error, 'retryable', false), v_error);
  update public.community_deletion_requests r
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
