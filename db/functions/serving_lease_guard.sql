-- The transaction guard for a final database mutation under an admitted lease:
-- verifies the exact lease (as deletion_serving_lease_verify, community lock
-- shared, held to commit) and records an authorisation for THIS transaction
-- (pg_current_xact_id()) and the lease's community at its fence generation in
-- the owner-only grants table. While the community is quiescing the write fence
-- admits this transaction's writes to that community only; on an active
-- community the grant is not needed but harmless. Raises DL5S1 for a stale lease.
create or replace function public.deletion_serving_lease_guard(
  p_lease_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
declare
  v_community uuid;
begin
  perform public._deletion_require_read_committed('deletion_serving_lease_guard');
  v_community := public._deletion_serving_lease_check(p_lease_id, p_owner, p_generation, p_fence_generation);
  insert into public.community_deletion_serving_write_grants (xact_id, community_id, lease_id, fence_generation)
  values (pg_catalog.pg_current_xact_id(), v_community, p_lease_id, p_fence_generation)
  on conflict (xact_id, community_id) do update
    set lease_id = excluded.lease_id, fence_generation = excluded.fence_generation, granted_at = now();
end;
$$;
