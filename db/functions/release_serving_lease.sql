-- Releases a serving-write lease (exact id, owner, generation, fence
-- generation). A stale or repeated release is harmless and returns false.
create or replace function community_deletion.release_serving_lease(
  lease_id uuid, owner text, lease_generation bigint, fence_generation bigint)
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
  p_lease_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
begin
  delete from community_deletion.serving_write_leases l
   where l.id = p_lease_id and l.owner = p_owner and l.generation = p_generation
     and l.fence_generation = p_fence_generation;
  return found;
end;
$$;
