-- PostgreSQL logical-absence proof at cache_purged (executor API). Does not
-- advance: the driver proves S3 and Redis absence next and then calls
-- community_deletion.mark_logically_verified, which repeats this proof atomically with
-- the transition. Records a cache_purged/verify_postgres_absence checkpoint.
create or replace function community_deletion.verify_postgres_absence(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint)
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
  v_request community_deletion.requests;
  v_checked integer;
begin
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  perform community_deletion._lock_request(p_request_id);
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'cache_purged', p_fence_generation);
  v_checked := community_deletion._prove_postgres_absence(p_request_id, v_request.community_id, p_fence_generation);
  perform community_deletion._checkpoint(p_request_id, 'cache_purged', 'verify_postgres_absence', 'completed', p_generation,
    jsonb_build_object('tables_checked', v_checked, 'fence_generation', p_fence_generation));
end;
$$;
