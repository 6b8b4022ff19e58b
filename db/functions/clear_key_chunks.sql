-- Removes the key chunks of an interrupted, never-frozen enumeration so a
-- retried freeze starts again from chunk 0 (executor API). Refused once the
-- manifest is frozen: frozen chunks are the binding delete list.
create or replace function community_deletion.clear_key_chunks(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint)
  returns integer
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
  v_request community_deletion.requests;
  v_deleted integer;
begin
  perform 1 from community_deletion.requests r where r.id = p_request_id for no key update;
  if not found then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'fenced', p_fence_generation);
  if v_request.destructive_storage_manifest is not null then
    raise exception 'request % (community %): the destructive manifest is frozen; its key chunks cannot be cleared',
      p_request_id, v_request.community_id
      using errcode = 'DL6F1';
  end if;
  delete from community_deletion.manifest_keys k where k.request_id = p_request_id;
  get diagnostics v_deleted = row_count;
  return v_deleted;
end;
$$;
