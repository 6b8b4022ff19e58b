-- Event trigger function (ddl_command_end, _101_lock_schema_destruction_created):
-- takes the schema/destruction lock exclusively when a deferred command created
-- or altered a non-temporary object.
create or replace function community_deletion.tg_ddl__lock_schema_destruction_created()
  returns event_trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  if tg_tag not in ('GRANT', 'REVOKE', 'COMMENT', 'SECURITY LABEL', 'ALTER DEFAULT PRIVILEGES')
     and exists (select 1 from pg_catalog.pg_event_trigger_ddl_commands() c
                  where c.schema_name is distinct from 'pg_temp') then
    perform pg_catalog.pg_advisory_xact_lock(community_deletion._schema_destruction_lock_key());
  end if;
end;
$$;
