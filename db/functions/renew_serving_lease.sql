-- Renews an admitted, unexpired serving-write lease while its community is
-- active OR quiescing (an admitted effect keeps its exclusion proof until it
-- finishes) — while quiescing, never beyond settings.serving_lease_quiescing_cap
-- after quiescing began, so the fence is not starved. The exact lease id, owner, lease
-- generation and fence generation must match and the community must still be at
-- that fence generation; otherwise serving_lease_denied (DL5S1): the holder must
-- stop its effect. Returns the new expiry.
create or replace function community_deletion.renew_serving_lease(
  lease_id uuid, owner text, lease_generation bigint, fence_generation bigint,
  lease_seconds integer default 60)
  returns timestamptz
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_lease_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_lease_seconds alias for $5;
  v_community uuid;
  v_until timestamptz;
  v_quiescing_deadline timestamptz;
begin
  perform community_deletion._require_read_committed('community_deletion.renew_serving_lease');
  if p_lease_seconds is null or p_lease_seconds not between 1 and 3600 then
    raise exception 'serving lease renewal needs 1..3600 lease seconds' using errcode = 'DL1I1';
  end if;
  select l.community_id into v_community from community_deletion.serving_write_leases l where l.id = p_lease_id;
  if v_community is not null then
    perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(v_community));
    -- Once the community is quiescing, an admitted lease lives at most
    -- settings.serving_lease_quiescing_cap past the start of quiescing, so
    -- renewals cannot hold the fence off forever.
    select r.quiescing_started_at + s.serving_lease_quiescing_cap into v_quiescing_deadline
      from community_deletion.requests r cross join community_deletion.settings s
     where r.community_id = v_community and r.stage = 'approved' and r.quiescing_started_at is not null;
    update community_deletion.serving_write_leases l
       set lease_until = least(now() + pg_catalog.make_interval(secs => p_lease_seconds),
                               case when c.deletion_state = 'quiescing' then v_quiescing_deadline end),
           heartbeat_at = now()
      from public.communities c
     where l.id = p_lease_id and l.community_id = v_community and l.owner = p_owner
       and l.generation = p_generation and l.fence_generation = p_fence_generation
       and l.lease_until >= now()
       and c.id = l.community_id and c.deletion_state in ('active', 'quiescing')
       and c.deletion_fence_generation = l.fence_generation
       and (c.deletion_state = 'active' or v_quiescing_deadline is null or v_quiescing_deadline > now())
    returning l.lease_until into v_until;
  end if;
  if v_until is null then
    raise exception 'stale serving-write lease % (owner %, generation %, fence generation %)',
      p_lease_id, p_owner, p_generation, p_fence_generation
      using errcode = 'DL5S1',
            hint = 'The lease expired, was released, reached its life cap while the community is quiescing '
                   '(settings.serving_lease_quiescing_cap), or the community was fenced: stop the protected effect.';
  end if;
  return v_until;
end;
$$;
