-- bindings_removed → postgres_purged (executor API): the last, short
-- transaction of the batched PostgreSQL purge, after
-- community_deletion.purge_postgres_batch returned "done". Same locks and
-- verification as a batch; then community_deletion._finish_postgres_purge:
-- every purge unit completed (DL6P1 otherwise), the community tombstoned,
-- every registered table proven empty for it in the same transaction (DL9A1),
-- and the stage advanced. A replay with the same token finds the request at
-- postgres_purged: DL4L1. Returns {"deleted": {table: rows},
-- "provenance_cleared": {table: rows}} (totals over every batch).
create or replace function community_deletion.finish_postgres_purge(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint)
  returns jsonb
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
  p_fence_generation alias for $4;
  v_request community_deletion.requests;
begin
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'bindings_removed', p_fence_generation);
  perform community_deletion._lock_community_for_transition(v_request.community_id);
  perform community_deletion._lock_request(p_request_id);
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'bindings_removed', p_fence_generation);
  return community_deletion._finish_postgres_purge(v_request, p_owner, p_generation, p_fence_generation);
end;
$$;
