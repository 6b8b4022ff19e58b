-- Shared by verify and guard: locks the lease's community shared, checks the
-- lease, returns its community id or raises DL5S1. While the community is
-- quiescing a lease is valid only until _serving_lease_deadline (the start
-- of quiescing plus settings.serving_lease_quiescing_cap), however long it
-- was acquired for: the cap renewals obey holds for the guard too.
create or replace function community_deletion._serving_lease_check(
  p_lease_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint)
  returns uuid
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_community uuid;
  v_valid boolean := false;
  v_deadline timestamptz;
begin
  select l.community_id into v_community from community_deletion.serving_write_leases l where l.id = p_lease_id;
  if v_community is not null then
    perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(v_community));
    v_deadline := community_deletion._serving_lease_deadline(v_community);
    select exists (
      select 1 from community_deletion.serving_write_leases l
        join public.communities c on c.id = l.community_id
       where l.id = p_lease_id and l.community_id = v_community and l.owner = p_owner
         and l.generation = p_generation and l.fence_generation = p_fence_generation
         and l.lease_until >= now()
         and c.deletion_state in ('active', 'quiescing')
         and c.deletion_fence_generation = l.fence_generation
         and (c.deletion_state = 'active' or v_deadline is null or v_deadline > now())) into v_valid;
  end if;
  if not v_valid then
    raise exception 'stale serving-write lease % (owner %, generation %, fence generation %)',
      p_lease_id, p_owner, p_generation, p_fence_generation
      using errcode = 'DL5S1',
            hint = 'The lease expired, was released, or the community was fenced: do not perform the effect.';
  end if;
  return v_community;
end;
$$;
