-- postgres_purged → cache_purged (executor API) after the driver's Redis
-- SCAN + UNLINK of buzz:<id>:*; detail (its counts) is kept in the
-- postgres_purged/purge_cache_namespace checkpoint.
create or replace function community_deletion.mark_cache_purged(
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
begin
  perform community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'postgres_purged', p_fence_generation);
  perform community_deletion._require_detail_object(p_request_id, p_detail);
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'postgres_purged', 'cache_purged', p_fence_generation);
  perform community_deletion._checkpoint(p_request_id, 'postgres_purged', 'purge_cache_namespace', 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb));
end;
$$;
