-- Appends one chunk of the post-fence destructive key list (executor API,
-- stage fenced, current lease + fence token, manifest not yet frozen). The
-- chunk guard trigger validates the chunk itself (community_deletion._check_key_chunk):
-- contiguous number, owned prefix, canonical, ordered entries matching the
-- storage taxonomy. The freeze later binds the chunks to the manifest digests.
create or replace function community_deletion.append_key_chunk(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint,
  chunk_no integer,
  prefix text,
  entries jsonb)
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
  p_chunk_no alias for $5;
  p_prefix alias for $6;
  p_entries alias for $7;
  v_request community_deletion.requests;
begin
  -- Serialise with the freeze and with other appends of this request.
  perform 1 from community_deletion.requests r where r.id = p_request_id for no key update;
  if not found then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'fenced', p_fence_generation);
  if v_request.destructive_storage_manifest is not null then
    raise exception 'request % (community %): the destructive manifest is frozen; no chunk can be appended',
      p_request_id, v_request.community_id
      using errcode = 'DL6F1';
  end if;
  insert into community_deletion.manifest_keys (request_id, chunk_no, prefix, entries, entry_count)
  values (p_request_id, p_chunk_no, p_prefix, p_entries,
          case when jsonb_typeof(p_entries) = 'array' then jsonb_array_length(p_entries) else 0 end);
end;
$$;
