-- Serving-write leases (docs/design.md#control-plane, docs/design.md#lifecycle, docs/design.md#serving-path): a short lease the
-- serving path holds around an external side effect (S3 upload, git push, push
-- notification). Acquisition shares the community lock with the writers, so
-- quiesce (exclusive) orders after every acquisition that started first and
-- refuses every later one; the fence then waits for admitted leases to drain.

-- Acquires a lease for operation on an ACTIVE community (serving_lease_denied
-- DL5S1 for quiescing/fenced/tombstone, community_not_found DL1N2 for an unknown
-- id). The lease carries the community's current fence generation; every later
-- renew/verify/guard must present it. lease_seconds in 1..3600 (DL1I1).
create or replace function community_deletion.acquire_serving_lease(
  community_id uuid, operation text, owner text, lease_seconds integer default 60)
  returns community_deletion.serving_write_leases
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_community alias for $1;
  p_operation alias for $2;
  p_owner alias for $3;
  p_lease_seconds alias for $4;
  v_state text;
  v_generation bigint;
  v_lease community_deletion.serving_write_leases;
begin
  perform community_deletion._require_read_committed('community_deletion.acquire_serving_lease');
  if p_community is null or p_operation is null or pg_catalog.btrim(p_operation) = ''
     or p_owner is null or pg_catalog.btrim(p_owner) = ''
     or p_lease_seconds is null or p_lease_seconds not between 1 and 3600 then
    raise exception 'serving lease acquisition needs a community, an operation, an owner and 1..3600 lease seconds'
      using errcode = 'DL1I1';
  end if;
  perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(p_community));
  select c.deletion_state, c.deletion_fence_generation into v_state, v_generation
    from public.communities c where c.id = p_community;
  if not found then
    raise exception 'community % does not exist', p_community using errcode = 'DL1N2';
  end if;
  if v_state <> 'active' then
    raise exception 'community write refused: community % is % and admits no new serving-write lease (operation %)',
      p_community, v_state, p_operation
      using errcode = 'DL5S1',
            hint = 'The community is being deleted; new external side effects are not admitted.';
  end if;
  insert into community_deletion.serving_write_leases (community_id, operation, owner, fence_generation, lease_until)
  values (p_community, p_operation, p_owner, v_generation, now() + pg_catalog.make_interval(secs => p_lease_seconds))
  returning * into v_lease;
  return v_lease;
end;
$$;
