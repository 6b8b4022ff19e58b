-- Operator API: a second operator approves the exact frozen inventory of an
-- inventoried, unblocked request and moves it to approved. Refusals: the
-- requester approving (self_approval, DL3A1) — by typed name (compared in
-- _identity_key form) or by database login: session_user is recorded on the
-- request and the approval, and the login that submitted cannot approve
-- (docs/security.md#two-person-rule; settings.allow_same_login_approval
-- relaxes only the login half, for single-login development setups). A
-- request submitted before logins were recorded has no login to compare.
-- A stored inventory that no longer
-- hashes to its digest (digest_mismatch, DL3A2), wrong stage / blocked /
-- terminal (DL2S1 / DL2B1 / DL2T1), blank approver or bad timing (DL1I1).
--
-- digest (optional): the inventory digest, or a prefix of it of at least 8
-- hex digits, that the approver reviewed (`deletions approve --digest`). The
-- approval is refused (digest_mismatch, DL3A2) unless the frozen inventory's
-- digest starts with it (case-insensitive), so an approver cannot approve an
-- inventory other than the one they looked at; a malformed value is DL1I1.
--
-- Grace period: nothing runs before the approval's not_before. It is the later
-- of now() + settings.approval_grace_period (the configured minimum, 0 allowed)
-- and the requested time (not_before, or now() + delay; at most one of the
-- two). A requested time earlier than the minimum is raised to the minimum; a
-- time in the past is accepted only when the minimum is 0 (it then means now).
-- The requested time is at most a year ahead (a delay of at most 366 days, a
-- finite not_before no later than now() + 366 days; DL1I1 otherwise, the cap
-- of `deletions approve --delay`): an approval that could never run
-- would hold the community's only open request. Abort stays possible
-- throughout the grace period.
create or replace function community_deletion.approve(
  request_id uuid, approved_by text, note text default null,
  not_before timestamptz default null, delay interval default null, digest text default null)
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
  p_approved_by alias for $2;
  p_note alias for $3;
  p_not_before alias for $4;
  p_delay alias for $5;
  p_digest alias for $6;
  v_digest text := lower(btrim(p_digest));
  v_approved_by text := community_deletion._require_identity(p_approved_by, 'approved_by');
  v_note text := community_deletion._require_operator_text(p_note, 'note', false);
  v_minimum interval;
  v_not_before timestamptz;
  v_request community_deletion.requests;
begin
  perform community_deletion._apply_lock_timeout();
  if p_not_before is not null and p_delay is not null then
    raise exception 'deletion request %: pass either not_before or delay, not both', p_request_id
      using errcode = 'DL1I1';
  end if;
  if p_delay is not null and p_delay < interval '0' then
    raise exception 'deletion request %: delay % is negative', p_request_id, p_delay
      using errcode = 'DL1I1';
  end if;
  -- (Compared as times: an interval of 12 months compares as 360 days, but
  -- '12 months 6 days' from now is about 371 days ahead.)
  if p_delay is not null and (p_delay > interval '366 days' or now() + p_delay > now() + interval '366 days') then
    raise exception 'deletion request %: delay % is more than a year (366 days)', p_request_id, p_delay
      using errcode = 'DL1I1', hint = 'Pass a delay of at most 366 days.';
  end if;
  if p_not_before is not null and (not pg_catalog.isfinite(p_not_before) or p_not_before > now() + interval '366 days') then
    raise exception 'deletion request %: not_before % is not a time within the next year', p_request_id, p_not_before
      using errcode = 'DL1I1', hint = 'Pass a finite time at most 366 days ahead.';
  end if;
  if p_digest is not null and v_digest !~ '^[0-9a-f]{8,64}$' then
    raise exception 'deletion request %: digest % is not 8 to 64 hex digits of the inventory digest', p_request_id, p_digest
      using errcode = 'DL1I1',
            hint = 'Pass the digest shown by `deletions inspect` (or at least its first 8 hex digits).';
  end if;
  select s.approval_grace_period into v_minimum from community_deletion.settings s;
  v_minimum := coalesce(v_minimum, interval '0');
  if p_not_before is not null and p_not_before < now() and v_minimum > interval '0' then
    raise exception 'deletion request %: not_before % is in the past', p_request_id, p_not_before
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Pass a future time; the minimum grace period is %s.', v_minimum);
  end if;
  v_not_before := greatest(now() + v_minimum, coalesce(p_not_before, now() + p_delay, now()));

  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is terminal (%)', p_request_id, v_request.stage using errcode = 'DL2T1';
  end if;
  if v_request.stage <> 'inventoried' then
    raise exception 'deletion request % is at stage %, only an inventoried request can be approved',
      p_request_id, v_request.stage
      using errcode = 'DL2S1',
            hint = case when v_request.stage = 'submitted' then 'Freeze the inventory first (community_deletion.freeze_inventory).'
                        else 'Inspect the request (community_deletion.inspect); it was approved already or has moved on.' end;
  end if;
  if v_request.blocked_at is not null then
    raise exception 'deletion request % is blocked: %', p_request_id, v_request.blocked_reason
      using errcode = 'DL2B1', hint = 'Remediate the cause, then run community_deletion.unblock.';
  end if;
  if community_deletion._same_operator(v_approved_by, v_request.requested_by) then
    raise exception 'deletion request %: % requested it and cannot also approve it', p_request_id, v_approved_by
      using errcode = 'DL3A1', hint = 'A second operator must approve.';
  end if;
  if v_request.requested_login = session_user
     and not (select s.allow_same_login_approval from community_deletion.settings s) then
    raise exception 'deletion request %: the database login % submitted it and cannot also approve it, whatever name it types',
      p_request_id, session_user
      using errcode = 'DL3A1',
            hint = 'A second operator approves from their own login (settings.allow_same_login_approval relaxes this for single-login development setups only).';
  end if;
  if v_request.inventory_digest is distinct from community_deletion._inventory_digest(v_request.inventory_manifest) then
    raise exception 'deletion request %: the frozen inventory no longer hashes to its digest %',
      p_request_id, v_request.inventory_digest
      using errcode = 'DL3A2',
            hint = 'The stored inventory was modified after it was frozen; investigate the control plane before anyone approves.';
  end if;

  if v_digest is not null and left(v_request.inventory_digest, length(v_digest)) is distinct from v_digest then
    raise exception 'deletion request %: the approver reviewed inventory digest %, but the frozen inventory''s digest is %',
      p_request_id, v_digest, v_request.inventory_digest
      using errcode = 'DL3A2',
            hint = 'Review the request again (`deletions inspect ID`, community_deletion.inspect) and approve the digest it shows.';
  end if;

  insert into community_deletion.approvals
    (request_id, community_id, inventory_digest, approved_by, approved_login, note, not_before, approved_at)
  values
    (v_request.id, v_request.community_id, v_request.inventory_digest, v_approved_by, session_user, v_note, v_not_before, now());

  update community_deletion.requests r
     set stage = 'approved', next_attempt_at = v_not_before, updated_at = now()
   where r.id = p_request_id and r.stage = 'inventoried' and r.blocked_at is null
  returning r.* into v_request;
  return v_request;
end;
$$;
