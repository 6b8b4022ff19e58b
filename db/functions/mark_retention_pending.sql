-- logically_verified → retention_pending (executor API): the request is
-- completed, its lease released and its retry state cleared (by
-- community_deletion._advance, which does all three on entering the terminal stage).
-- What remains is physical expiry outside the engine (backups, WAL, object
-- versions held by provider retention); detail records what the driver
-- reports about it.
create or replace function community_deletion.mark_retention_pending(
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
  perform community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'logically_verified', p_fence_generation);
  perform community_deletion._require_detail_object(p_request_id, p_detail);
  perform community_deletion._checkpoint(p_request_id, 'logically_verified', 'retention_physical_expiry_pending', 'completed',
    p_generation, coalesce(p_detail, '{}'::jsonb));
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'logically_verified', 'retention_pending', p_fence_generation);
end;
$$;
