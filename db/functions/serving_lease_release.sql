-- Releases a serving-write lease (exact id, owner, generation, fence
-- generation). A stale or repeated release is harmless and returns false.
create or replace function public.deletion_serving_lease_release(
  p_lease_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint)
  returns boolean
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
begin
  delete from public.community_serving_write_leases l
   where l.id = p_lease_id and l.owner = p_owner and l.generation = p_generation
     and l.fence_generation = p_fence_generation;
  return found;
end;
$$;
