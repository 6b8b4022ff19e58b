-- cache_purged → logically_verified (executor API), after the driver proved
-- the three prefixes and the Redis namespace empty (detail records it). The
-- PostgreSQL absence proof is repeated in this transaction, under the shared
-- schema-destruction lock with the catalog re-validated, so the transition
-- commits only together with a passing proof. The key chunks are dropped in
-- the same transaction: a deleted community's key list is not retained (the
-- manifest's counts and digests stay on the request).
create or replace function community_deletion.mark_logically_verified(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint,
  detail jsonb default '{}'::jsonb)
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
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_detail alias for $5;
  v_request community_deletion.requests;
  v_checked integer;
  v_dropped integer;
begin
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'cache_purged', p_fence_generation);
  perform community_deletion._require_detail_object(p_request_id, p_detail);
  v_checked := community_deletion._prove_postgres_absence(p_request_id, v_request.community_id, p_fence_generation);
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'cache_purged', 'logically_verified', p_fence_generation);
  -- The chunk guard admits this delete only now that the stage is logically_verified.
  delete from community_deletion.manifest_keys k where k.request_id = p_request_id;
  get diagnostics v_dropped = row_count;
  perform community_deletion._checkpoint(p_request_id, 'cache_purged', 'verify_cross_store_absence', 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb)
      || jsonb_build_object('postgres_tables_checked', v_checked, 'key_chunks_dropped', v_dropped));
end;
$$;
