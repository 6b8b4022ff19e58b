-- Executor API: records a failure that happened before any claim existed
-- (missing service configuration, a setup error) against an identifiable
-- request, so it is durable and community_deletion.inspect explains it. Upserts a failed
-- 'pre_claim:<unit>' checkpoint at the request's stage (attempts counted across
-- repeats, e.g. block -> unblock -> block again gives attempts = 2) and blocks
-- the request. Refuses terminal requests (DL2T1) and requests leased by a live
-- executor (lease_held, DL4L2), which record their own failures.
create or replace function community_deletion.block_preclaim(request_id uuid, unit_key text, error text)
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
  p_unit_key alias for $2;
  p_error alias for $3;
  v_unit_key text := community_deletion._require_text(p_unit_key, 'unit_key', 246);
  v_error text := community_deletion._bound_text(community_deletion._require_text(p_error, 'error', 1000000), 4096);
  v_request community_deletion.requests;
begin
  perform community_deletion._apply_lock_timeout();
  if v_unit_key not like 'pre\_claim:%' then
    v_unit_key := 'pre_claim:' || v_unit_key;
  end if;
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is terminal (%); no setup failure is recorded against it',
      p_request_id, v_request.stage
      using errcode = 'DL2T1';
  end if;
  if v_request.lease_owner is not null and v_request.lease_until >= now() then
    raise exception 'deletion request % is leased by % (generation %) until %',
      p_request_id, v_request.lease_owner, v_request.lease_generation, v_request.lease_until
      using errcode = 'DL4L2';
  end if;
  perform community_deletion._checkpoint(
    v_request.id, v_request.stage, v_unit_key, 'failed', v_request.lease_generation,
    jsonb_build_object('error', v_error), v_error);
  update community_deletion.requests r
     set blocked_at = now(), blocked_reason = v_error, last_error = v_error, last_error_at = now(),
         updated_at = now()
   where r.id = p_request_id
  returning r.* into v_request;
  return v_request;
end;
$$;
