-- fenced → drained (executor API): fence ownership verified, the destructive
-- manifest frozen (the chunk loop needs its binding key list) and no live
-- serving-write lease left on the community (DL5D1, retryable).
create or replace function community_deletion.mark_drained(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint)
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
  v_request community_deletion.requests;
begin
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'fenced', p_fence_generation);
  if v_request.destructive_storage_manifest is null then
    raise exception 'request % (community %) cannot be marked drained before its destructive manifest is frozen',
      p_request_id, v_request.community_id
      using errcode = 'DL2S1',
            hint = 'Enumerate the owned prefixes into key chunks and call community_deletion.freeze_destructive_manifest first.';
  end if;
  if cardinality(community_deletion._serving_writes_in_flight(v_request.community_id)) > 0 then
    raise exception 'request % (community %): serving-write leases are not released (live, or expired within settings.serving_lease_grace)',
      p_request_id, v_request.community_id
      using errcode = 'DL5D1',
            hint = 'Admitted serving writes must finish or expire before destruction starts; retry later.';
  end if;
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'fenced', 'drained', p_fence_generation);
  perform community_deletion._checkpoint(p_request_id, 'fenced', 'serving_writes_drained', 'completed', p_generation,
    jsonb_build_object('fence_generation', p_fence_generation));
end;
$$;
