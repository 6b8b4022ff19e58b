-- Executor API: claims the oldest runnable request (or request_id) and
-- returns its lease token; zero rows when nothing is claimable. Claimable:
-- a runnable stage, an approval bound to the exact community and digest whose
-- grace period is over, not blocked, next_attempt_at reached, no live lease.
-- Rows are taken FOR UPDATE SKIP LOCKED, so two claimers never both win.
-- The catalog is validated before the lease is granted. On drift (DL7C1) the
-- claim does NOT raise: it records a failed 'claim:catalog_validation'
-- checkpoint, blocks the request durably with the reason and returns zero
-- rows, so the block commits and community_deletion.inspect explains the stranded
-- request. An unknown request_id raises request_not_found (DL1N1).
-- Granting bumps lease_generation (the token) and attempts.
create or replace function community_deletion.claim(
  executor_id text, request_id uuid default null, lease_seconds integer default 60)
  returns setof community_deletion.lease_token
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_owner alias for $1;
  p_request_id alias for $2;
  p_lease_seconds alias for $3;
  v_owner text := p_owner;
  v_request community_deletion.requests;
  v_error text;
begin
  perform community_deletion._apply_lock_timeout();
  -- The owner is stored exactly as given (later calls present the same
  -- string), so it must already be trimmed.
  if community_deletion._require_text(p_owner, 'executor id (owner)', 256) <> p_owner then
    raise exception 'community deletion: executor id % has leading or trailing whitespace', pg_catalog.quote_literal(p_owner)
      using errcode = 'DL1I1';
  end if;
  -- (Stored as the lease owner and shown on operators' terminals.)
  if p_owner ~ '[\u0001-\u001f\u007f-\u009f]' then
    raise exception 'community deletion: executor id % contains control characters', pg_catalog.quote_literal(p_owner)
      using errcode = 'DL1I1', hint = 'Pass the executor id as plain text.';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception 'community deletion: lease of % seconds is outside 1..3600', p_lease_seconds
      using errcode = 'DL1I1';
  end if;
  if p_request_id is not null
     and not exists (select 1 from community_deletion.requests r where r.id = p_request_id) then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;

  select r.* into v_request
    from community_deletion.requests r
    join community_deletion.approvals a
      on a.request_id = r.id and a.community_id = r.community_id and a.inventory_digest = r.inventory_digest
   where (p_request_id is null or r.id = p_request_id)
     and community_deletion._stage_is_runnable(r.stage)
     and r.blocked_at is null
     and r.next_attempt_at <= now()
     and a.not_before <= now()
     and (r.lease_until is null or r.lease_until < now())
   order by r.created_at, r.id
   limit 1
   for update of r skip locked;
  if not found then
    return;
  end if;

  begin
    perform community_deletion.validate_catalog();
  exception when sqlstate 'DL7C1' then
    get stacked diagnostics v_error = message_text;
    v_error := community_deletion._bound_text(v_error, 4096);
    perform community_deletion._checkpoint(
      v_request.id, v_request.stage, 'claim:catalog_validation', 'failed', v_request.lease_generation,
      jsonb_build_object('executor', v_owner, 'error', v_error), v_error);
    update community_deletion.requests r
       set blocked_at = now(), blocked_reason = v_error, last_error = v_error, last_error_at = now(),
           lease_owner = null, lease_until = null, updated_at = now()
     where r.id = v_request.id;
    return;
  end;

  return query
    update community_deletion.requests r
       set lease_owner = v_owner,
           lease_generation = r.lease_generation + 1,
           lease_until = now() + make_interval(secs => p_lease_seconds),
           attempts = r.attempts + 1,
           updated_at = now()
     where r.id = v_request.id
    returning r.id, r.community_id, r.stage, r.lease_owner, r.lease_generation, r.fence_generation, r.lease_until;
end;
$$;
