-- bindings_removed → postgres_purged (executor API): the whole PostgreSQL
-- purge in ONE transaction — the remaining work of every purge unit without a
-- row limit (community_deletion._purge_batch), then
-- community_deletion._finish_postgres_purge (every table proven empty, the
-- tombstone, the advance) — under the shared schema-destruction lock, the
-- re-validated catalog, the exclusive community lock and a verified lease and
-- fence generation. Kept for DBAs and small tenants: its transaction grows
-- with the tenant (the schema lock, the xmin horizon and one large commit are
-- held for all of it). The executor uses the batched path instead:
-- community_deletion.purge_postgres_batch until "done", then
-- community_deletion.finish_postgres_purge — each batch its own bounded
-- transaction, resumable from the per-table checkpoints; both paths keep the
-- same checkpoints and may follow each other. Returns {"deleted": {table:
-- rows}, "provenance_cleared": {table: rows}}. A replay with the same token
-- finds the request at postgres_purged: DL4L1.
create or replace function community_deletion.purge_postgres(
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
  perform set_config('community_deletion.read_state_hard_delete', 'on', true);
  perform community_deletion._purge_batch(p_request_id, v_request.community_id, 'bindings_removed', p_generation, null);
  perform set_config('community_deletion.read_state_hard_delete', 'off', true);
  return community_deletion._finish_postgres_purge(v_request, p_owner, p_generation, p_fence_generation);
end;
$$;
