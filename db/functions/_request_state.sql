-- Why a request is (not) progressing, as one machine word and one human
-- sentence; shared by community_deletion.inspect and community_deletion.list_requests. States:
-- waiting_for_inventory, waiting_for_approval, grace_period, runnable, leased,
-- retry_wait, blocked, completed, aborted. p_approval is the request's approval
-- row (null if none); only an approval for the exact community and digest counts.
create or replace function community_deletion._request_state(
  p_request community_deletion.requests, p_approval community_deletion.approvals,
  out state text, out explanation text)
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_bound boolean := coalesce(p_approval.request_id is not null
                              and p_approval.community_id = p_request.community_id
                              and p_approval.inventory_digest = p_request.inventory_digest, false);
begin
  if p_request.stage = 'aborted' then
    state := 'aborted';
    explanation := format('Aborted by %s at %s: %s. A fresh request may be submitted for the community.',
                          p_request.aborted_by, p_request.aborted_at, p_request.abort_reason);
  elsif p_request.stage = 'retention_pending' then
    state := 'completed';
    explanation := format('Completed at %s: logical deletion verified in PostgreSQL, storage and cache; the community is a tombstone.',
                          p_request.completed_at);
  elsif p_request.blocked_at is not null then
    state := 'blocked';
    explanation := format('Blocked at stage %s since %s: %s. Remediate, then run community_deletion.unblock.',
                          p_request.stage, p_request.blocked_at, p_request.blocked_reason);
  elsif p_request.stage = 'submitted' then
    state := 'waiting_for_inventory';
    explanation := format('Submitted by %s; waiting for community_deletion.freeze_inventory with the storage summary.',
                          p_request.requested_by);
  elsif p_request.stage = 'inventoried' then
    state := 'waiting_for_approval';
    explanation := format('Inventory frozen (digest %s); waiting for approval by an operator other than %s.',
                          p_request.inventory_digest, p_request.requested_by);
  elsif not v_bound then
    state := 'waiting_for_approval';
    explanation := format('At stage %s but no approval matches its community and inventory digest, so no executor will claim it.',
                          p_request.stage);
  elsif p_request.lease_owner is not null and p_request.lease_until >= now() then
    state := 'leased';
    explanation := format('Leased by %s (generation %s) until %s, working on stage %s.',
                          p_request.lease_owner, p_request.lease_generation, p_request.lease_until, p_request.stage);
  elsif p_approval.not_before > now() then
    state := 'grace_period';
    explanation := format('Approved by %s; waiting for the grace period until %s (nothing runs before then; abort stays possible).',
                          p_approval.approved_by, p_approval.not_before);
  elsif p_request.next_attempt_at > now() then
    state := 'retry_wait';
    explanation := format('Waiting for retry until %s at stage %s after %s consecutive failure(s): %s.',
                          p_request.next_attempt_at, p_request.stage, p_request.retry_count,
                          coalesce(p_request.last_error, 'no error recorded'));
  else
    state := 'runnable';
    explanation := format('Runnable at stage %s; waiting for an executor to claim it%s.', p_request.stage,
                          case when p_request.lease_owner is not null
                               then format(' (the lease of %s expired at %s)', p_request.lease_owner, p_request.lease_until)
                               else '' end);
  end if;
end;
$$;
