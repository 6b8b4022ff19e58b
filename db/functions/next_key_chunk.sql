-- The lowest-numbered key chunk not yet stamped deleted (executor API, stage
-- drained); no row when every chunk is stamped. Resuming after a crash picks
-- up exactly the chunks whose deletion was never confirmed.
create or replace function community_deletion.next_key_chunk(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint)
  returns table (chunk_no integer, prefix text, entries jsonb)
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
begin
  perform community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'drained', p_fence_generation);
  return query
    select k.chunk_no, k.prefix, k.entries
    from community_deletion.manifest_keys k
    where k.request_id = p_request_id and k.deleted_at is null
    order by k.chunk_no
    limit 1;
end;
$$;
