-- The write-fence decision for one community, inside the caller's transaction
-- (SPEC §5.2, §5.3). Takes the community advisory lock SHARED (held to the end of
-- the transaction, so quiesce/fence/abort, which take it exclusively, order
-- after this writer), then allows the write iff the community
--   * is active, or
--   * is fenced (or tombstoned) and the caller is the engine: current_user is
--     community_deletion_owner, which only the engine's security-definer
--     functions run as (they verify lease and fence generation first), or
--   * is quiescing and this transaction holds a serving-write authorisation from
--     deletion_serving_lease_guard at the community's current fence generation.
-- No session setting is consulted: nothing a client can SET authorises a write.
-- Refuses REPEATABLE READ / SERIALIZABLE first (25000). A missing community is
-- not writable.
create or replace function public.community_write_allowed(p_community uuid)
  returns boolean
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_state text;
  v_generation bigint;
begin
  perform public._deletion_require_read_committed('community_write_allowed');
  if p_community is null then
    return false;
  end if;
  perform pg_catalog.pg_advisory_xact_lock_shared(public._deletion_community_lock_key(p_community));
  select c.deletion_state, c.deletion_fence_generation into v_state, v_generation
    from public.communities c where c.id = p_community;
  return case
    when v_state is null then false
    when v_state = 'active' then true
    when v_state in ('fenced', 'tombstone') then current_user = 'community_deletion_owner'
    when v_state = 'quiescing' then public._deletion_serving_write_granted(p_community, v_generation)
    else false
  end;
end;
$$;

-- Raises community_write_fenced (55000, message "community write …") unless
-- community_write_allowed(p_community). Application code calls it at the start
-- of a write transaction to fail before doing work; the write-fence trigger
-- enforces the same decision on every row anyway.
create or replace function public.assert_community_write_allowed(p_community uuid)
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_state text;
  v_generation bigint;
begin
  if public.community_write_allowed(p_community) then
    return;
  end if;
  select c.deletion_state, c.deletion_fence_generation into v_state, v_generation
    from public.communities c where c.id = p_community;
  raise exception 'community write refused: community % is %', p_community,
    case when v_state is null then 'missing'
         else format('%s (fence generation %s)', v_state, v_generation) end
    using errcode = '55000',
          hint = case when v_state = 'quiescing'
                      then 'The community is being deleted; only writes under an admitted serving-write lease (deletion_serving_lease_guard) may finish.'
                      else 'The community is being deleted or does not exist; writes are not accepted.' end;
end;
$$;
