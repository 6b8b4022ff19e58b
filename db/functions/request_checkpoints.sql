-- Operator API, for people in psql: a request's checkpoints as rows, in the
-- order they were first written (a repeated unit keeps its place and counts
-- its attempts). A failed checkpoint carries the error. Unknown request: DL1N1.
create or replace function community_deletion.request_checkpoints(request_id uuid)
  returns table (
    sequence bigint, stage text, unit_key text, status text, attempts integer,
    lease_generation bigint, started_at timestamptz, completed_at timestamptz, error text, detail jsonb)
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
  if not exists (select 1 from community_deletion.requests r where r.id = p_request_id) then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  return query
    select cp.sequence, cp.stage, cp.unit_key, cp.status, cp.attempts,
           cp.lease_generation, cp.started_at, cp.completed_at, cp.error, cp.detail
      from community_deletion.checkpoints cp
     where cp.request_id = p_request_id
     order by cp.sequence;
end;
$$;
