-- fenced → drained (executor API): fence ownership verified, the destructive
-- manifest frozen (the chunk loop needs its binding key list) and no live
-- serving-write lease left on the community (DL5D1, retryable).
create or replace function public.deletion_mark_drained(
  p_request_id uuid,
  p_owner text,
  p_generation bigint,
  p_fence_generation bigint)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
declare
  v_request public.community_deletion_requests;
begin
  v_request := public._deletion_verify_lease_and_fence(p_request_id, p_owner, p_generation, 'fenced', p_fence_generation);
  if v_request.destructive_storage_manifest is null then
    raise exception 'request % (community %) cannot be marked drained before its destructive manifest is frozen',
      p_request_id, v_request.community_id
      using errcode = 'DL2S1',
            hint = 'Enumerate the owned prefixes into key chunks and call deletion_freeze_destructive_manifest first.';
  end if;
  if exists (select 1 from public.community_serving_write_leases l
             where l.community_id = v_request.community_id and l.lease_until >= now()) then
    raise exception 'request % (community %): serving-write leases are still live', p_request_id, v_request.community_id
      using errcode = 'DL5D1',
            hint = 'Admitted serving writes must finish or expire before destruction starts; retry later.';
  end if;
  perform public._deletion_advance(p_request_id, p_owner, p_generation, 'fenced', 'drained', p_fence_generation);
  perform public._deletion_checkpoint(p_request_id, 'fenced', 'serving_writes_drained', 'completed', p_generation,
    jsonb_build_object('fence_generation', p_fence_generation));
end;
$$;
