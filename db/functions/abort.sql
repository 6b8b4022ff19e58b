-- Operator API: terminally aborts a request before any object is deleted
-- (docs/design.md#failure-handling), at the abortable stages (_stages):
--  * submitted or inventoried — a withdrawal: the community never left
--    active and nothing ran, so only the request is terminalised;
--  * approved or fenced — the community is given back.
-- Never from drained on, whatever the checkpoints say (wrong_stage, DL2S1);
-- terminal requests refuse (DL2T1); live serving-write leases refuse
-- (serving_not_drained, DL5D1, retryable) once the community may be
-- quiescing — live until their lease_until, or _serving_lease_deadline if
-- that is earlier. Under the exclusive community lock (taken FIRST, then row locks,
-- so a queued quiesce/fence re-verifies its lease after abort and fails):
-- from approved on it restores the community (active, pre-quiesce
-- archived_at, fence generation + 1) and removes the key chunks of an
-- enumeration that was never frozen; always it writes an
-- 'operator_abort:<uuid>' audit checkpoint and terminalises the request
-- (lease dropped, lease generation + 1, block and retry streak cleared). A
-- fresh request for the community may follow.
create or replace function community_deletion.abort(request_id uuid, aborted_by text, reason text)
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
  p_aborted_by alias for $2;
  p_reason alias for $3;
  v_aborted_by text := community_deletion._require_identity(p_aborted_by, 'aborted_by');
  v_reason text := community_deletion._require_operator_text(p_reason, 'reason', true);
  v_community uuid;
  v_request community_deletion.requests;
  v_old_generation bigint;
  v_new_generation bigint;
  v_live_leases bigint;
  v_operations text;
begin
  select r.community_id into v_community from community_deletion.requests r where r.id = p_request_id;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  perform community_deletion._lock_community_for_transition(v_community);

  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is already terminal (%)', p_request_id, v_request.stage
      using errcode = 'DL2T1';
  end if;
  if not community_deletion._stage_is_abortable(v_request.stage) then
    raise exception 'deletion request % is at stage %; abort is possible only up to fenced',
      p_request_id, v_request.stage
      using errcode = 'DL2S1',
            hint = 'Object deletion may already have begun; the request can only run to completion (deletions unblock ID after remediation).';
  end if;

  if v_request.stage in ('submitted', 'inventoried') then
    -- A withdrawal: nothing ran, the community never left active.
    perform community_deletion._checkpoint(
      v_request.id, v_request.stage, 'operator_abort:' || gen_random_uuid()::text, 'completed',
      v_request.lease_generation,
      jsonb_build_object('aborted_by', v_aborted_by, 'reason', v_reason, 'previous_stage', v_request.stage,
                         'withdrawn', true));
    update community_deletion.requests r
       set stage = 'aborted', aborted_by = v_aborted_by, abort_reason = v_reason, aborted_at = now(),
           completed_at = now(), blocked_at = null, blocked_reason = null, next_attempt_at = now(), updated_at = now()
     where r.id = p_request_id
    returning r.* into v_request;
    return v_request;
  end if;

  select count(*), string_agg(distinct l.operation, ', ' order by l.operation)
    into v_live_leases, v_operations
    from community_deletion.serving_write_leases l
   where l.community_id = v_request.community_id
     and community_deletion._serving_lease_end(l.lease_until, v_request.community_id) >= now();
  if v_live_leases > 0 then
    raise exception 'deletion request %: community % still has % live serving-write lease(s) (%)',
      p_request_id, v_request.community_id, v_live_leases, v_operations
      using errcode = 'DL5D1',
            hint = 'Retry the abort once the admitted serving writes have finished or their leases expired.';
  end if;

  select c.deletion_fence_generation into v_old_generation
    from public.communities c where c.id = v_request.community_id for update;
  v_new_generation := community_deletion._restore_community(
    v_request.community_id, v_request.pre_quiesce_archived_at, v_request.quiescing_started_at is not null);

  perform community_deletion._checkpoint(
    v_request.id, v_request.stage, 'operator_abort:' || gen_random_uuid()::text, 'completed',
    v_request.lease_generation,
    jsonb_build_object(
      'aborted_by', v_aborted_by,
      'reason', v_reason,
      'previous_stage', v_request.stage,
      'previous_lease_owner', v_request.lease_owner,
      'previous_block', v_request.blocked_reason,
      'old_fence_generation', v_old_generation,
      'new_fence_generation', v_new_generation));

  update community_deletion.requests r
     set stage = 'aborted',
         aborted_by = v_aborted_by,
         abort_reason = v_reason,
         aborted_at = now(),
         completed_at = now(),
         fence_generation = v_new_generation,
         lease_owner = null,
         lease_until = null,
         lease_generation = r.lease_generation + 1,
         blocked_at = null,
         blocked_reason = null,
         retry_count = 0,
         retry_stage = null,
         next_attempt_at = now(),
         updated_at = now()
   where r.id = p_request_id
  returning r.* into v_request;
  -- Chunks of a post-fence enumeration that was never frozen describe
  -- nothing anyone will act on (the guard admits deleting them now that the
  -- request is aborted). Frozen ones stay as evidence of what was planned.
  if v_request.destructive_storage_manifest is null then
    delete from community_deletion.manifest_keys k where k.request_id = p_request_id;
  end if;
  return v_request;
end;
$$;
