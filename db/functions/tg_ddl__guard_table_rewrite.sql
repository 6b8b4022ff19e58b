-- Event trigger function (table_rewrite, _111_guard_table_rewrite): before
-- PostgreSQL rewrites a table, refuses it when the table is a registered one
-- (or communities) and the rewrite would change rows no trigger sees
-- (_guard_registered_table_rewrite, DL7C2). Runs as whoever issued the DDL
-- and calls only what PUBLIC may execute.
create or replace function community_deletion.tg_ddl__guard_table_rewrite()
  returns event_trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  perform community_deletion._guard_registered_table_rewrite();
end;
$$;
