-- Removes the key chunks of an interrupted, never-frozen enumeration so a
-- retried freeze starts again from chunk 0 (executor API). Refused once the
-- manifest is frozen: frozen chunks are the binding delete list.
create or replace function public.deletion_clear_key_chunks(
  p_request_id uuid,
  p_owner text,
  p_generation bigint,
  p_fence_generation bigint)
  returns integer
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
declare
  v_request public.community_deletion_requests;
  v_deleted integer;
begin
  perform 1 from public.community_deletion_requests r where r.id = p_request_id for no key update;
  if not found then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  v_request := public._deletion_verify_lease_and_fence(p_request_id, p_owner, p_generation, 'fenced', p_fence_generation);
  if v_request.destructive_storage_manifest is not null then
    raise exception 'request % (community %): the destructive manifest is frozen; its key chunks cannot be cleared',
      p_request_id, v_request.community_id
      using errcode = 'DL6F1';
  end if;
  delete from public.community_deletion_manifest_keys k where k.request_id = p_request_id;
  get diagnostics v_deleted = row_count;
  return v_deleted;
end;
$$;
