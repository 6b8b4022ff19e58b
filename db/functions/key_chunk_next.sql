-- The lowest-numbered key chunk not yet stamped deleted (executor API, stage
-- drained); no row when every chunk is stamped. Resuming after a crash picks
-- up exactly the chunks whose deletion was never confirmed.
create or replace function public.deletion_next_key_chunk(
  p_request_id uuid,
  p_owner text,
  p_generation bigint,
  p_fence_generation bigint)
  returns table (chunk_no integer, prefix text, entries jsonb)
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
begin
  perform public._deletion_verify_lease_and_fence(p_request_id, p_owner, p_generation, 'drained', p_fence_generation);
  return query
    select k.chunk_no, k.prefix, k.entries
    from public.community_deletion_manifest_keys k
    where k.request_id = p_request_id and k.deleted_at is null
    order by k.chunk_no
    limit 1;
end;
$$;
