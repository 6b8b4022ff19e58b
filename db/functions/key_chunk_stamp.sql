-- Stamps one key chunk deleted and checkpoints drained/chunk:<n> in the same
-- transaction (executor API). One-way: a second stamp is DL6F1, an unknown
-- chunk DL6K1. The driver calls it only after every version in the chunk is
-- confirmed gone from the store.
create or replace function public.deletion_stamp_key_chunk(
  p_request_id uuid,
  p_owner text,
  p_generation bigint,
  p_fence_generation bigint,
  p_chunk_no integer,
  p_detail jsonb default '{}'::jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
declare
  v_request public.community_deletion_requests;
  v_entry_count integer;
begin
  v_request := public._deletion_verify_lease_and_fence(p_request_id, p_owner, p_generation, 'drained', p_fence_generation);
  perform public._deletion_require_detail_object(p_request_id, p_detail);
  update public.community_deletion_manifest_keys k
     set deleted_at = now()
   where k.request_id = p_request_id and k.chunk_no = p_chunk_no and k.deleted_at is null
  returning k.entry_count into v_entry_count;
  if not found then
    if exists (select 1 from public.community_deletion_manifest_keys k
               where k.request_id = p_request_id and k.chunk_no = p_chunk_no) then
      raise exception 'request % (community %): key chunk % is already stamped deleted',
        p_request_id, v_request.community_id, p_chunk_no
        using errcode = 'DL6F1';
    end if;
    raise exception 'request % (community %): there is no key chunk %', p_request_id, v_request.community_id, p_chunk_no
      using errcode = 'DL6K1';
  end if;
  perform public._deletion_checkpoint(p_request_id, 'drained', 'chunk:' || p_chunk_no, 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb) || jsonb_build_object('entries', v_entry_count));
end;
$$;
