-- Operator API, for people in psql: one request as one row — where it is
-- (stage), whether and why it is (not) progressing (state, explanation), who
-- asked and approved, its lease, its retry streak and its block. The same
-- facts inspect() returns as jsonb for programs; request_checkpoints() lists
-- its checkpoints. Unknown request: DL1N1.
create or replace function community_deletion.request_status(request_id uuid)
  returns table (
    id uuid, community_host text, stage text, state text, explanation text,
    requested_by text, approved_by text, not_before timestamptz,
    lease_owner text, lease_generation bigint, lease_until timestamptz, fence_generation bigint,
    next_attempt_at timestamptz, retry_count integer, blocked_reason text, last_error text,
    created_at timestamptz, updated_at timestamptz)
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
begin
  return query
    select r.id, r.community_host, r.stage, s.state, s.explanation,
           r.requested_by, a.approved_by, a.not_before,
           r.lease_owner, r.lease_generation, r.lease_until, r.fence_generation,
           r.next_attempt_at, r.retry_count, r.blocked_reason, r.last_error,
           r.created_at, r.updated_at
      from community_deletion.requests r
      left join community_deletion.approvals a on a.request_id = r.id
      cross join lateral community_deletion._request_state(r, a) s
     where r.id = p_request_id;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
end;
$$;
