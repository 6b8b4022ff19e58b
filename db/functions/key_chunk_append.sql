-- Appends one chunk of the post-fence destructive key list (executor API,
-- stage fenced, current lease + fence token, manifest not yet frozen). The
-- chunk guard trigger validates the chunk itself (_deletion_check_key_chunk):
-- contiguous number, owned prefix, canonical, ordered entries matching the
-- storage taxonomy. The freeze later binds the chunks to the manifest digests.
create or replace function public.deletion_append_key_chunk(
  p_request_id uuid,
  p_owner text,
  p_generation bigint,
  p_fence_generation bigint,
  p_chunk_no integer,
  p_prefix text,
  p_entries jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
declare
  v_request public.community_deletion_requests;
begin
  -- Serialise with the freeze and with other appends of this request.
  perform 1 from public.community_deletion_requests r where r.id = p_request_id for no key update;
  if not found then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  v_request := public._deletion_verify_lease_and_fence(p_request_id, p_owner, p_generation, 'fenced', p_fence_generation);
  if v_request.destructive_storage_manifest is not null then
    raise exception 'request % (community %): the destructive manifest is frozen; no chunk can be appended',
      p_request_id, v_request.community_id
      using errcode = 'DL6F1';
  end if;
  insert into public.community_deletion_manifest_keys (request_id, chunk_no, prefix, entries, entry_count)
  values (p_request_id, p_chunk_no, p_prefix, p_entries,
          case when jsonb_typeof(p_entries) = 'array' then jsonb_array_length(p_entries) else 0 end);
end;
$$;
