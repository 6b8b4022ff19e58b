-- logically_verified → retention_pending (executor API): the request is
-- completed, its lease released and its retry state cleared (by
-- _deletion_advance, which does all three on entering the terminal stage).
-- What remains is physical expiry outside the engine (backups, WAL, object
-- versions held by provider retention); p_detail records what the driver
-- reports about it.
create or replace function public.deletion_mark_retention_pending(
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
  perform public._deletion_verify_lease_and_fence(p_request_id, p_owner, p_generation, 'logically_verified', p_fence_generation);
  perform public._deletion_require_detail_object(p_request_id, p_detail);
  perform public._deletion_checkpoint(p_request_id, 'logically_verified', 'retention_physical_expiry_pending', 'completed',
    p_generation, coalesce(p_detail, '{}'::jsonb));
  perform public._deletion_advance(p_request_id, p_owner, p_generation, 'logically_verified', 'retention_pending', p_fence_generation);
end;
$$;
