-- Operator API: the newest max_rows requests (1..1000, else invalid_argument
-- DL1I1), one summary line each with the same state word and explanation as
-- community_deletion.inspect.
create or replace function community_deletion.list_requests(max_rows integer default 100)
  returns table (
    request_id uuid, community_id uuid, community_host text, stage text, state text,
    requested_by text, approved_by text, not_before timestamptz, lease_owner text,
    lease_until timestamptz, next_attempt_at timestamptz, retry_count integer,
    blocked_reason text, created_at timestamptz, updated_at timestamptz, explanation text)
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_limit alias for $1;
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception 'community deletion: list limit % is outside 1..1000', p_limit
      using errcode = 'DL1I1';
  end if;
  return query
    select r.id, r.community_id, r.community_host, r.stage, s.state,
           r.requested_by, a.approved_by, a.not_before, r.lease_owner,
           r.lease_until, r.next_attempt_at, r.retry_count,
           r.blocked_reason, r.created_at, r.updated_at, s.explanation
      from community_deletion.requests r
      left join community_deletion.approvals a on a.request_id = r.id
      cross join lateral community_deletion._request_state(r, a) s
     order by r.created_at desc, r.id desc
     limit p_limit;
end;
$$;
