-- Event trigger function (ddl_command_end, _110_guard_registered_tables):
-- after any DROP (DROP TRIGGER reports nothing to ddl_command_end's command
-- list) and any other command that touched a non-temporary object (GRANT,
-- REVOKE, COMMENT, SECURITY LABEL and ALTER DEFAULT PRIVILEGES cannot weaken
-- a trigger), refuses it if it weakened the guards of a registered table
-- (_guard_registered_tables, DL7C2) or added code the planner would run as
-- the engine owner on every read of public.communities
-- (_guard_communities_planner_code, DL7C2). Runs as whoever issued the DDL and calls
-- only what PUBLIC may execute.
create or replace function community_deletion.tg_ddl__guard_registered_tables()
  returns event_trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  if tg_tag like 'DROP %'
     or (tg_tag not in ('GRANT', 'REVOKE', 'COMMENT', 'SECURITY LABEL', 'ALTER DEFAULT PRIVILEGES')
         and exists (select 1 from pg_catalog.pg_event_trigger_ddl_commands() c
                      where c.schema_name is distinct from 'pg_temp')) then
    perform community_deletion._guard_registered_tables();
    perform community_deletion._guard_communities_planner_code();
  end if;
end;
$$;
