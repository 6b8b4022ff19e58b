-- postgres_purged → cache_purged (executor API) after the driver's Redis
-- SCAN + UNLINK of buzz:<id>:*; p_detail (its counts) is kept in the
-- postgres_purged/purge_cache_namespace checkpoint.
create or replace function public.deletion_mark_cache_purged(
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
begin
  perform public._deletion_verify_lease_and_fence(p_request_id, p_owner, p_generation, 'postgres_purged', p_fence_generation);
  perform public._deletion_require_detail_object(p_request_id, p_detail);
  perform public._deletion_advance(p_request_id, p_owner, p_generation, 'postgres_purged', 'cache_purged', p_fence_generation);
  perform public._deletion_checkpoint(p_request_id, 'postgres_purged', 'purge_cache_namespace', 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb));
end;
$$;
