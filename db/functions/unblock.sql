-- Operator API: clears a durable block after the operator remediated its cause
-- (docs/design.md#failure-handling). Only a blocked (else request_not_blocked, DL2B2), non-terminal
-- (DL2T1) request with no live executor lease (lease_held, DL4L2). Keeps the
-- target, approval, inventory, stage and fence generation; appends an
-- 'operator_unblock:<uuid>' audit checkpoint carrying the previous block
-- reason; clears the retry streak and makes the request eligible now (a grace
-- period from the approval still applies).
create or replace function community_deletion.unblock(request_id uuid, unblocked_by text, reason text)
  returns community_deletion.requests
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
  p_unblocked_by alias for $2;
  p_reason alias for $3;
  v_unblocked_by text := community_deletion._require_identity(p_unblocked_by, 'unblocked_by');
  v_reason text := community_deletion._require_operator_text(p_reason, 'reason', true);
  v_request community_deletion.requests;
begin
  perform community_deletion._apply_lock_timeout();
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is terminal (%) and cannot resume', p_request_id, v_request.stage
      using errcode = 'DL2T1';
  end if;
  if v_request.blocked_at is null then
    raise exception 'deletion request % is not blocked', p_request_id
      using errcode = 'DL2B2';
  end if;
  if v_request.lease_owner is not null and v_request.lease_until >= now() then
    raise exception 'deletion request % is still leased by % (generation %) until %',
      p_request_id, v_request.lease_owner, v_request.lease_generation, v_request.lease_until
      using errcode = 'DL4L2',
            hint = 'Stop that executor or wait for its lease to expire, then unblock.';
  end if;

  perform community_deletion._checkpoint(
    v_request.id, v_request.stage, 'operator_unblock:' || gen_random_uuid()::text, 'completed',
    v_request.lease_generation,
    jsonb_build_object(
      'unblocked_by', v_unblocked_by,
      'reason', v_reason,
      'previous_block', v_request.blocked_reason,
      'previous_blocked_at', v_request.blocked_at,
      'previous_retry_count', v_request.retry_count));

  update community_deletion.requests r
     set blocked_at = null,
         blocked_reason = null,
         retry_count = 0,
         retry_stage = null,
         last_error = null,
         last_error_at = null,
         next_attempt_at = now(),
         lease_owner = null,
         lease_until = null,
         updated_at = now()
   where r.id = p_request_id and r.blocked_at is not null
  returning r.* into v_request;
  return v_request;
end;
$$;
