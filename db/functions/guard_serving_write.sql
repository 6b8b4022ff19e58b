-- The transaction guard for a final database mutation under an admitted lease:
-- verifies the exact lease (as community_deletion.verify_serving_lease, community lock
-- shared, held to commit) and records an authorisation for THIS transaction
-- (pg_current_xact_id()) and the lease's community at its fence generation in
-- the owner-only grants table. While the community is quiescing the write fence
-- admits this transaction's writes to that community only; on an active
-- community the grant is not needed but harmless. Raises DL5S1 for a stale lease.
create or replace function community_deletion.guard_serving_write(
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
  v_community uuid;
begin
  perform community_deletion._require_read_committed('community_deletion.guard_serving_write');
  v_community := community_deletion._serving_lease_check(p_lease_id, p_owner, p_generation, p_fence_generation);
  insert into community_deletion.serving_write_grants (xact_id, community_id, lease_id, fence_generation)
  values (pg_catalog.pg_current_xact_id(), v_community, p_lease_id, p_fence_generation)
  on conflict (xact_id, community_id) do update
    set lease_id = excluded.lease_id, fence_generation = excluded.fence_generation, granted_at = now();
end;
$$;
