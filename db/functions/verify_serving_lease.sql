-- Raises serving_lease_denied (DL5S1) unless the exact lease (id, owner,
-- generation, fence generation) is unexpired and its community is active or
-- quiescing at that fence generation. Call it right before an irreversible
-- external call. Takes the community lock shared like every serving check.
create or replace function community_deletion.verify_serving_lease(
  lease_id uuid, owner text, lease_generation bigint, fence_generation bigint)
  returns void
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
  perform community_deletion._require_read_committed('community_deletion.verify_serving_lease');
  perform community_deletion._serving_lease_check(p_lease_id, p_owner, p_generation, p_fence_generation);
end;
$$;
