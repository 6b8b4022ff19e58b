-- Event trigger function (sql_drop, _102_lock_schema_destruction_dropped): takes
-- the schema/destruction lock exclusively when a command dropped a
-- non-temporary object. A temporary view's rewrite rule is reported with
-- is_temporary false (PostgreSQL 15), so objects that belong to an object in
-- pg_temp count as temporary too.
create or replace function community_deletion.tg_ddl__lock_schema_destruction_dropped()
  returns event_trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  if exists (select 1 from pg_catalog.pg_event_trigger_dropped_objects() d
              where not d.is_temporary and d.schema_name is distinct from 'pg_temp'
                and d.object_identity not like '% on pg_temp.%') then
    perform pg_catalog.pg_advisory_xact_lock(community_deletion._schema_destruction_lock_key());
  end if;
end;
$$;
