-- Attaches (or replaces in place) the early-refusal row triggers of the write
-- fence on p_table: _010_community_write_fence_early (BEFORE INSERT OR
-- UPDATE) and _010_community_write_fence_early_delete (BEFORE DELETE), FOR
-- EACH ROW, executing tg_scoped_table__refuse_write_early(). With the
-- PL/pgSQL fence they carry a WHEN clause that skips the rows of a community
-- the statement already checked (the hint community_deletion.fence_checked,
-- set by the PL/pgSQL early check; it authorises nothing); the native fast
-- path keeps that list in backend memory instead, so its triggers have no
-- WHEN clause (evaluating one costs more per statement than the native check
-- itself). CREATE OR REPLACE TRIGGER: the table is never without them, so
-- the DDL guard (_guard_registered_tables) has nothing to object to.
-- Called by register_scoped_table and install_write_fence.
create or replace function community_deletion._attach_early_fence(p_table regclass)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_native boolean := community_deletion.write_fence_implementation() = 'native';
begin
  execute pg_catalog.format(
    'create or replace trigger _010_community_write_fence_early before insert or update on %s '
    'for each row %s execute function community_deletion.tg_scoped_table__refuse_write_early()', p_table,
    case when v_native then ''
         else 'when (pg_catalog.current_setting(''community_deletion.fence_checked'', true) '
              'is distinct from new.community_id::pg_catalog.text)' end);
  execute pg_catalog.format(
    'create or replace trigger _010_community_write_fence_early_delete before delete on %s '
    'for each row %s execute function community_deletion.tg_scoped_table__refuse_write_early()', p_table,
    case when v_native then ''
         else 'when (pg_catalog.current_setting(''community_deletion.fence_checked'', true) '
              'is distinct from old.community_id::pg_catalog.text)' end);
end;
$$;
