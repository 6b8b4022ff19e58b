-- Operator API: the newest max_rows requests (1..1000, else invalid_argument
-- DL1I1), one summary line each with the same state word and explanation as
-- community_deletion.inspect. Optional filters: in_state (a state word of
-- inspect, e.g. 'blocked'; an unknown word: DL1I1), host (the community host, case-insensitive).
-- Paging past max_rows: before (a request id) lists only requests older than
-- that one in the same order (created_at desc, id desc), so passing the last
-- request_id of a page returns the next page (an unknown id: DL1N1).
create or replace function community_deletion.list_requests(
    max_rows integer default 100, in_state text default null, host text default null, before uuid default null)
  returns table (
    request_id uuid, community_id uuid, community_host text, stage text, state text,
    requested_by text, approved_by text, not_before timestamptz, lease_owner text,
    lease_until timestamptz, next_attempt_at timestamptz, retry_count integer,
    blocked_reason text, created_at timestamptz, updated_at timestamptz, explanation text)
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_limit alias for $1;
  p_state alias for $2;
  p_host alias for $3;
  p_before alias for $4;
  v_before community_deletion.requests;
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception 'community deletion: list limit % is outside 1..1000', p_limit
      using errcode = 'DL1I1';
  end if;
  if p_state is not null and p_state not in ('waiting_for_inventory', 'waiting_for_approval', 'grace_period', 'runnable',
                                             'leased', 'retry_wait', 'blocked', 'completed', 'aborted') then
    raise exception 'community deletion: % is not a request state', p_state
      using errcode = 'DL1I1',
            hint = 'States: waiting_for_inventory, waiting_for_approval, grace_period, runnable, leased, retry_wait, blocked, completed, aborted.';
  end if;
  if p_host is not null and pg_catalog.btrim(p_host) = '' then
    raise exception 'community deletion: the host filter is blank' using errcode = 'DL1I1',
      hint = 'Pass a community host, or null for every host.';
  end if;
  if p_before is not null then
    select r.* into v_before from community_deletion.requests r where r.id = p_before;
    if not found then
      raise exception 'deletion request % not found (list before)', p_before using errcode = 'DL1N1';
    end if;
  end if;
  return query
    select r.id, r.community_id, r.community_host, r.stage, s.state,
           r.requested_by, a.approved_by, a.not_before, r.lease_owner,
           r.lease_until, r.next_attempt_at, r.retry_count,
           r.blocked_reason, r.created_at, r.updated_at, s.explanation
      from community_deletion.requests r
      left join community_deletion.approvals a on a.request_id = r.id
      cross join lateral community_deletion._request_state(r, a) s
     where (p_host is null or lower(r.community_host) = lower(btrim(p_host)))
       and (p_before is null or (r.created_at, r.id) < (v_before.created_at, v_before.id))
       and (p_state is null or s.state = p_state)
     order by r.created_at desc, r.id desc
     limit p_limit;
end;
$$;
