-- Refuses hard deletion of read-state rows (kind 30078, d_tag "read-state:…")
-- unless the transaction opted in with
--   set_config('community_deletion.read_state_hard_delete', 'on', true)
-- AND the delete runs as the engine (community_deletion_owner, i.e. inside the
-- purge's security-definer function). Any client can set a setting, so the
-- setting alone would not stop an ordinary writer; the role cannot be forged.
-- The trigger's WHEN clause restricts it to exactly those rows.
create or replace function community_deletion.tg_events__guard_read_state_delete()
  returns trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  if coalesce(pg_catalog.current_setting('community_deletion.read_state_hard_delete', true), '') <> 'on'
     or current_user <> 'community_deletion_owner' then
    raise exception 'read-state event % of community % cannot be hard-deleted', old.id, old.community_id
      using errcode = 'DL8G1',
            hint = 'Read-state rows are removed only by the community deletion purge.';
  end if;
  return old;
end;
$$;
