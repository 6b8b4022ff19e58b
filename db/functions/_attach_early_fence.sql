-- Attaches (or re-attaches) the early-refusal row triggers of the write fence
-- on public.<p_table>: _010_community_write_fence_early (BEFORE INSERT OR
-- UPDATE) and _010_community_write_fence_early_delete (BEFORE DELETE), FOR EACH
-- ROW, executing tg_scoped_table__refuse_write_early(). With the PL/pgSQL
-- fence they carry a WHEN clause that skips the rows of a community the
-- statement already checked (the hint community_deletion.fence_checked, set by
-- the PL/pgSQL early check; it authorises nothing); the native fast path keeps
-- that list in backend memory instead, so its triggers have no WHEN clause
-- (evaluating one costs more per statement than the native check itself).
-- Called by community_deletion.register_scoped_table and community_deletion.install_write_fence.
create or replace function community_deletion._attach_early_fence(p_table text)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_native boolean := community_deletion.write_fence_implementation() = 'native';
begin
  execute format('drop trigger if exists _010_community_write_fence_early on public.%I', p_table);
  execute format('drop trigger if exists _010_community_write_fence_early_delete on public.%I', p_table);
  execute format('create trigger _010_community_write_fence_early before insert or update on public.%I '
                 'for each row %s execute function community_deletion.tg_scoped_table__refuse_write_early()', p_table,
                 case when v_native then ''
                      else 'when (pg_catalog.current_setting(''community_deletion.fence_checked'', true) '
                           'is distinct from new.community_id::text)' end);
  execute format('create trigger _010_community_write_fence_early_delete before delete on public.%I '
                 'for each row %s execute function community_deletion.tg_scoped_table__refuse_write_early()', p_table,
                 case when v_native then ''
                      else 'when (pg_catalog.current_setting(''community_deletion.fence_checked'', true) '
                           'is distinct from old.community_id::text)' end);
end;
$$;
