-- Every trigger and event trigger the engine attaches, except the write-fence
-- triggers on the registered scoped tables (register_scoped_table attaches
-- those; scoped_table_fences.sql re-attaches them all). Re-runnable: each
-- trigger is dropped and created again, inside the migration's transaction.

-- Control plane: frozen evidence, forward-only stages, no deletes, no TRUNCATE.
drop trigger if exists _100_protect_frozen_fields on community_deletion.requests;
create trigger _100_protect_frozen_fields
  before update on community_deletion.requests
  for each row execute function community_deletion.tg_requests__protect_frozen_fields();

drop trigger if exists _110_refuse_delete on community_deletion.requests;
create trigger _110_refuse_delete
  before delete on community_deletion.requests
  for each row execute function community_deletion.tg_requests__refuse_delete();

drop trigger if exists _120_refuse_truncate on community_deletion.requests;
create trigger _120_refuse_truncate
  before truncate on community_deletion.requests
  for each statement execute function community_deletion.tg_control_plane__refuse_truncate();

drop trigger if exists _500_freeze_destructive_manifest on community_deletion.requests;
create trigger _500_freeze_destructive_manifest
  before update on community_deletion.requests
  for each row
  when (old.destructive_storage_manifest is distinct from new.destructive_storage_manifest
        or old.destructive_storage_frozen_at is distinct from new.destructive_storage_frozen_at)
  execute function community_deletion.tg_requests__freeze_destructive_manifest();

drop trigger if exists _900_stage_moves_forward on community_deletion.requests;
create trigger _900_stage_moves_forward
  after update of stage on community_deletion.requests
  for each row when (old.stage is distinct from new.stage)
  execute function community_deletion.tg_requests__stage_moves_forward();

drop trigger if exists _100_check_approval on community_deletion.approvals;
create trigger _100_check_approval
  before insert on community_deletion.approvals
  for each row execute function community_deletion.tg_approvals__check_approval();

drop trigger if exists _110_refuse_change on community_deletion.approvals;
create trigger _110_refuse_change
  before update or delete on community_deletion.approvals
  for each row execute function community_deletion.tg_approvals__refuse_change();

drop trigger if exists _120_refuse_truncate on community_deletion.approvals;
create trigger _120_refuse_truncate
  before truncate on community_deletion.approvals
  for each statement execute function community_deletion.tg_control_plane__refuse_truncate();

drop trigger if exists _100_protect on community_deletion.checkpoints;
create trigger _100_protect
  before update or delete on community_deletion.checkpoints
  for each row execute function community_deletion.tg_checkpoints__protect();

drop trigger if exists _120_refuse_truncate on community_deletion.checkpoints;
create trigger _120_refuse_truncate
  before truncate on community_deletion.checkpoints
  for each statement execute function community_deletion.tg_control_plane__refuse_truncate();

drop trigger if exists _100_guard_key_chunks on community_deletion.manifest_keys;
create trigger _100_guard_key_chunks
  before insert or update or delete on community_deletion.manifest_keys
  for each row
  execute function community_deletion.tg_manifest_keys__guard();

drop trigger if exists _101_forbid_truncate on community_deletion.manifest_keys;
create trigger _101_forbid_truncate
  before truncate on community_deletion.manifest_keys
  for each statement
  execute function community_deletion.tg_manifest_keys__forbid_truncate();

-- The host's tables: the lifecycle/tombstone guard on communities and the
-- read-state hard-delete guard on events.
drop trigger if exists _010_protect_lifecycle on public.communities;
create trigger _010_protect_lifecycle
  before insert or update or delete on public.communities
  for each row
  execute function community_deletion.tg_communities__protect_lifecycle();

drop trigger if exists _200_guard_read_state_delete on public.events;
create trigger _200_guard_read_state_delete
  before delete on public.events
  for each row
  when (old.kind = 30078 and old.d_tag like 'read-state:%')
  execute function community_deletion.tg_events__guard_read_state_delete();

-- The engine's event triggers, created only by a superuser (on a managed
-- server nobody is: the DDL lock is then explicit, community_deletion.ddl_lock(),
-- and catalog validation stands in for the guard — docs/managed.md):
--   * any DDL on non-temporary objects, by any tool, takes the
--     schema/destruction lock exclusively (see _ddl_tag_is_deferred.sql for
--     which event decides): _100, _101, _102;
--   * after any DDL, refuse it if it weakened the guards of a registered table
--     (a fence trigger dropped or disabled, a table made a partition or child):
--     _guard_registered_tables, DL7C2: _110;
--   * before a table rewrite, refuse it for a registered table while a
--     deletion is in flight, and for communities while any community is not
--     active (the rewrite changes rows no trigger sees):
--     _guard_registered_table_rewrite, DL7C2: _111.
do $cd_managed$
declare
  v_trigger record;
  v_superuser boolean := (select r.rolsuper from pg_catalog.pg_roles r where r.rolname = current_user);
begin
  for v_trigger in
    select * from (values
      ('_100_lock_schema_destruction', 'ddl_command_start', 'tg_ddl__lock_schema_destruction'),
      ('_101_lock_schema_destruction_created', 'ddl_command_end', 'tg_ddl__lock_schema_destruction_created'),
      ('_102_lock_schema_destruction_dropped', 'sql_drop', 'tg_ddl__lock_schema_destruction_dropped'),
      ('_110_guard_registered_tables', 'ddl_command_end', 'tg_ddl__guard_registered_tables'),
      ('_111_guard_table_rewrite', 'table_rewrite', 'tg_ddl__guard_table_rewrite')) t(name, event, fn)
  loop
    if v_superuser then
      execute format('drop event trigger if exists %I', v_trigger.name);
      execute format('create event trigger %I on %s execute function community_deletion.%I()', v_trigger.name, v_trigger.event, v_trigger.fn);
    else
      raise notice 'community deletion: event trigger % not created (not superuser; DDL lock: explicit)', v_trigger.name;
    end if;
  end loop;
end
$cd_managed$;
