-- The write-fence decision for one community, inside the caller's transaction
-- (docs/design.md#write-fence, docs/design.md#ordering). Takes the community advisory lock SHARED (held to the end of
-- the transaction, so quiesce/fence/abort, which take it exclusively, order
-- after this writer), then allows the write iff the community
--   * is active, or
--   * is fenced (or tombstoned) and the caller is the engine: current_user is
--     community_deletion_owner, which only the engine's security-definer
--     functions run as (they verify lease and fence generation first), or
--   * is quiescing and this transaction holds a serving-write authorisation from
--     community_deletion.guard_serving_write at the community's current fence generation.
-- No session setting is consulted: nothing a client can SET authorises a write.
-- Refuses REPEATABLE READ / SERIALIZABLE first (25000). A missing community is
-- not writable.
create or replace function community_deletion.community_write_allowed(community_id uuid)
  returns boolean
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_community alias for $1;
  v_state text;
  v_generation bigint;
begin
  perform community_deletion._require_read_committed('community_write_allowed');
  if p_community is null then
    return false;
  end if;
  perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(p_community));
  select c.deletion_state, c.deletion_fence_generation into v_state, v_generation
    from public.communities c where c.id = p_community;
  return case
    when v_state is null then false
    when v_state = 'active' then true
    when v_state in ('fenced', 'tombstone') then current_user = 'community_deletion_owner'
    when v_state = 'quiescing' then community_deletion._serving_write_granted(p_community, v_generation)
    else false
  end;
end;
$$;
