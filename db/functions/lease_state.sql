-- What the lease holder should do next: the request's current stage (and the
-- facts the driver needs to resume inside it), after verifying that the
-- caller still holds the lease (stale_lease, DL4L1). The driver never
-- computes stages itself; it asks here after every step.
create or replace function community_deletion.lease_state(request_id uuid, executor_id text, lease_generation bigint)
  returns table (stage text, community_id uuid, fence_generation bigint, lease_until timestamptz,
                 destructive_manifest_frozen boolean)
  language plpgsql
  stable
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
  v_request community_deletion.requests;
begin
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id;
  if not found then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  if v_request.stage = 'retention_pending' and v_request.lease_owner is null then
    -- The final transition releases the lease; report completion to its last holder.
    return query select v_request.stage, v_request.community_id, v_request.fence_generation, null::timestamptz, false;
    return;
  end if;
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, v_request.stage);
  return query select v_request.stage, v_request.community_id, v_request.fence_generation, v_request.lease_until,
                      v_request.destructive_storage_manifest is not null;
end;
$$;
