-- Lease verification: every executor-side mutation calls one of these inside
-- its own transaction before it changes anything. Plain reads, no row locks:
-- the lock order is "community advisory lock, then rows", and a row lock taken
-- here (before a caller's community lock) would deadlock against abort.

-- Returns the request if (owner, generation) is its current, unexpired,
-- unblocked lease at p_stage with an approval bound to its exact digest;
-- otherwise raises stale_lease (DL4L1) naming the request, owner, generation
-- and the first reason found. The caller must stop work on DL4L1.
create or replace function community_deletion._verify_lease(
  p_request_id uuid, p_owner text, p_generation bigint, p_stage text)
  returns community_deletion.requests
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_request community_deletion.requests;
  v_reason text;
begin
  -- Every executor step starts here: bound its lock waits first.
  perform community_deletion._apply_lock_timeout();
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id;
  if not found then
    v_reason := 'the request does not exist';
  elsif v_request.stage is distinct from p_stage then
    v_reason := format('the request is at stage %s, not %s', v_request.stage, p_stage);
  elsif v_request.lease_owner is distinct from p_owner or v_request.lease_generation is distinct from p_generation then
    v_reason := format('the lease is held by %s at generation %s',
                       coalesce(v_request.lease_owner, '(nobody)'), v_request.lease_generation);
  elsif v_request.lease_until < now() then
    v_reason := format('the lease expired at %s', v_request.lease_until);
  elsif v_request.blocked_at is not null then
    v_reason := format('the request is blocked: %s', v_request.blocked_reason);
  elsif not exists (
    select 1 from community_deletion.approvals a
     where a.request_id = v_request.id and a.community_id = v_request.community_id
       and a.inventory_digest = v_request.inventory_digest) then
    v_reason := 'no approval matches the request''s community and inventory digest';
  end if;
  if v_reason is not null then
    raise exception 'stale deletion lease for request % (owner %, generation %): %',
      p_request_id, p_owner, p_generation, v_reason
      using errcode = 'DL4L1',
            hint = 'Ownership was lost: stop work on this request; a current executor will resume from checkpoints.';
  end if;
  return v_request;
end;
$$;
