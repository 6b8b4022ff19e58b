-- cache_purged → logically_verified (executor API), after the driver proved
-- the three prefixes and the Redis namespace empty (p_detail records it). The
-- PostgreSQL absence proof is repeated in this transaction, under the shared
-- schema-destruction lock with the catalog re-validated, so the transition
-- commits only together with a passing proof. The key chunks are dropped in
-- the same transaction: a deleted community's key list is not retained (the
-- manifest's counts and digests stay on the request).
create or replace function public.deletion_mark_logically_verified(
  p_request_id uuid,
  p_owner text,
  p_generation bigint,
  p_fence_generation bigint,
  p_detail jsonb default '{}'::jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
declare
  v_request public.community_deletion_requests;
  v_checked integer;
  v_dropped integer;
begin
  perform public._deletion_lock_schema_destruction_shared();
  perform public.deletion_validate_catalog();
  v_request := public._deletion_verify_lease_and_fence(p_request_id, p_owner, p_generation, 'cache_purged', p_fence_generation);
  perform public._deletion_require_detail_object(p_request_id, p_detail);
  v_checked := public._deletion_prove_postgres_absence(p_request_id, v_request.community_id, p_fence_generation);
  perform public._deletion_advance(p_request_id, p_owner, p_generation, 'cache_purged', 'logically_verified', p_fence_generation);
  -- The chunk guard admits this delete only now that the stage is logically_verified.
  delete from public.community_deletion_manifest_keys k where k.request_id = p_request_id;
  get diagnostics v_dropped = row_count;
  perform public._deletion_checkpoint(p_request_id, 'cache_purged', 'verify_cross_store_absence', 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb)
      || jsonb_build_object('postgres_tables_checked', v_checked, 'key_chunks_dropped', v_dropped));
end;
$$;
