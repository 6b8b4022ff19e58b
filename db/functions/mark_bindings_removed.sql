-- drained → bindings_removed (executor API): only when every frozen key chunk
-- is stamped deleted (DL6K2 otherwise) and the chunks still add up to the
-- manifest's entry count. p_detail (the driver's deletion totals) is kept in
-- the drained/remove_storage_bindings checkpoint.
create or replace function public.deletion_mark_bindings_removed(
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
declare
  v_request public.community_deletion_requests;
  v_total integer;
  v_pending integer;
  v_entries bigint;
  v_manifest_entries bigint;
begin
  v_request := public._deletion_verify_lease_and_fence(p_request_id, p_owner, p_generation, 'drained', p_fence_generation);
  perform public._deletion_require_detail_object(p_request_id, p_detail);
  if v_request.destructive_storage_manifest is null then
    raise exception 'request % (community %) has no frozen destructive manifest', p_request_id, v_request.community_id
      using errcode = 'DL2S1';
  end if;
  select count(*)::integer, count(*) filter (where k.deleted_at is null)::integer, coalesce(sum(k.entry_count), 0)
    into v_total, v_pending, v_entries
  from public.community_deletion_manifest_keys k
  where k.request_id = p_request_id;
  if v_pending > 0 then
    raise exception 'request % (community %): % of % key chunks are not yet stamped deleted',
      p_request_id, v_request.community_id, v_pending, v_total
      using errcode = 'DL6K2',
            hint = 'Delete and stamp every chunk returned by deletion_next_key_chunk first.';
  end if;
  select coalesce(sum((p ->> 'object_count')::bigint), 0) into v_manifest_entries
  from jsonb_array_elements(v_request.destructive_storage_manifest -> 'prefixes') p;
  if v_entries <> v_manifest_entries then
    raise exception 'request % (community %): the key chunks hold % entries but the frozen manifest lists %',
      p_request_id, v_request.community_id, v_entries, v_manifest_entries
      using errcode = 'DL6K1';
  end if;
  perform public._deletion_advance(p_request_id, p_owner, p_generation, 'drained', 'bindings_removed', p_fence_generation);
  perform public._deletion_checkpoint(p_request_id, 'drained', 'remove_storage_bindings', 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb) || jsonb_build_object('chunks', v_total, 'entries', v_entries));
end;
$$;
