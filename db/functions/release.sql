-- Executor API: gives up the lease cleanly (SIGTERM/SIGINT, or done for now)
-- without recording a failure. Only the exact owner + generation releases; a
-- stale release is harmless and returns false.
create or replace function public.deletion_release(p_request_id uuid, p_owner text, p_generation bigint)
  returns boolean
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
begin
  update public.community_deletion_requests r
     set lease_owner = null, lease_until = null, updated_at = now()
   where r.id = p_request_id and r.lease_owner = p_owner and r.lease_generation = p_generation;
  return found;
end;
$$;
