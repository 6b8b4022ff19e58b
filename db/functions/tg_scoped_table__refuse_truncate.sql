-- The write fence's TRUNCATE guard (docs/security.md#table-owners): BEFORE
-- TRUNCATE, FOR EACH STATEMENT, on every registered scoped table
-- (_010_community_write_fence_truncate). TRUNCATE fires no row triggers, so
-- the statement fence never sees it; a table owner could otherwise remove the
-- rows of a community that is being deleted. Refused (55000, like every
-- fenced write) while any community that is not active — quiescing, fenced
-- or a tombstone — has a row in the table; otherwise the host's TRUNCATE goes
-- ahead (the engine's own purge never truncates). Security definer: the
-- truncating role may not read communities; the check only answers whether
-- such a row exists. A community that becomes non-active concurrently is
-- covered by begin_quiescing, which takes ACCESS SHARE on every scoped table
-- and so waits for a TRUNCATE in progress (or the TRUNCATE, queued behind it,
-- sees the committed quiescing state). The table is read only when some
-- community is not active, and only after _refuse_planner_code found no
-- code another role attached that planning the read would run as the engine
-- owner (an index predicate calling the owner's function: DL7C1, the
-- TRUNCATE refused; TRUNCATE already holds ACCESS EXCLUSIVE).
create or replace function community_deletion.tg_scoped_table__refuse_truncate()
  returns trigger
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
declare
  v_community uuid;
begin
  if not exists (select 1 from public.communities c where c.deletion_state <> 'active') then
    return null;
  end if;
  perform community_deletion._refuse_planner_code(array[tg_relid::pg_catalog.regclass], 'access share');
  execute pg_catalog.format(
    'select c.id from public.communities c
      where c.deletion_state <> ''active''
        and exists (select 1 from %I.%I t where t.community_id = c.id)
      limit 1', tg_table_schema, tg_table_name)
    into v_community;
  if v_community is not null then
    raise exception 'community write refused: TRUNCATE on %.% while community % (not active) has rows there',
      tg_table_schema, tg_table_name, v_community
      using errcode = '55000',
            hint = 'A community that is being deleted keeps its rows until the engine purges them; delete other rows with DELETE.';
  end if;
  return null;
end;
$$;
