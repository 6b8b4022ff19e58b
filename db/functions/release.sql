-- Executor API: gives up the lease cleanly (SIGTERM/SIGINT, or done for now)
-- without recording a failure. Only the exact owner + generation releases; a
-- stale release is harmless and returns false.
create or replace function community_deletion.release(request_id uuid, executor_id text, lease_generation bigint)
  returns boolean
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
  p_owner alias for $2;
  p_generation alias for $3;
begin
  update community_deletion.requests r
     set lease_owner = null, lease_until = null, updated_at = now()
   where r.id = p_request_id and r.lease_owner = p_owner and r.lease_generation = p_generation;
  return found;
end;
$$;
