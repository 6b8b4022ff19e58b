-- Abort's community restoration (docs/design.md#failure-handling), kept in one helper so the fence
-- workstream can adjust how it passes the communities lifecycle guard: back to
-- active, archived_at restored to its pre-quiesce value when quiescing had
-- captured it (p_restore_archived), and deletion_fence_generation bumped so
-- every stale executor token and serving lease fails closed. Returns the new
-- generation; refuses (community_not_eligible, DL2C1) a deleted/tombstoned
-- community. The caller holds the exclusive community lock.
create or replace function community_deletion._restore_community(
  p_community uuid, p_archived_at timestamptz, p_restore_archived boolean)
  returns bigint
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_generation bigint;
begin
  perform community_deletion._refuse_invoker_code('public.communities', 'update');
  update public.communities c
     set deletion_state = 'active',
         deletion_fence_generation = c.deletion_fence_generation + 1,
         archived_at = case when p_restore_archived then p_archived_at else c.archived_at end
   where c.id = p_community
     and c.deletion_state in ('active', 'quiescing', 'fenced')
     and c.deleted_at is null
  returning c.deletion_fence_generation into v_generation;
  if not found then
    raise exception 'community % cannot be restored: it is missing, deleted or tombstoned', p_community
      using errcode = 'DL2C1';
  end if;
  return v_generation;
end;
$$;
