-- Event trigger function (ddl_command_start, _100_lock_schema_destruction):
-- takes the schema/destruction lock exclusively before any DDL whose tag is not
-- decided after the fact (_ddl_tag_is_deferred).
create or replace function community_deletion.tg_ddl__lock_schema_destruction()
  returns event_trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  if not community_deletion._ddl_tag_is_deferred(tg_tag) then
    perform pg_catalog.pg_advisory_xact_lock(community_deletion._schema_destruction_lock_key());
  end if;
end;
$$;
