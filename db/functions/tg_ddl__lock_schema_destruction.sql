-- Event trigger function (ddl_command_start, _100_lock_schema_destruction).
-- Any DDL on a non-temporary object takes the schema/destruction lock
-- EXCLUSIVELY until the end of its transaction:
--  * here, at ddl_command_start, every command except the ones listed below,
--    BEFORE it takes any table lock, so a migration altering a scoped table
--    can never deadlock against a purge;
--  * commands that may well target only temporary objects (CREATE TABLE /
--    TABLE AS / SELECT INTO / SEQUENCE / VIEW / INDEX / FUNCTION, ALTER
--    SEQUENCE, DROP of those) are decided after the fact, at ddl_command_end
--    (tg_ddl__lock_schema_destruction_created) and sql_drop
--    (tg_ddl__lock_schema_destruction_dropped), and take the lock only if a
--    non-temporary object is involved. Otherwise every transaction using a
--    temporary table (pgTAP's plan() does) would serialise with every other
--    and hold destructive stages back. Such a command may have taken a table
--    lock before it waits; a rare deadlock with a purge is detected by
--    PostgreSQL (40P01, retryable) and never lets the catalog change under a
--    destructive transaction;
--  * GRANT, REVOKE, COMMENT, SECURITY LABEL, ALTER DEFAULT PRIVILEGES do not
--    change which tables, fences or indexes exist: no lock.
-- Event trigger functions run as whoever issued the DDL — the application
-- role creating a temporary table, a table owner adding an index, a
-- migration role — so they call nothing that only the engine owner may
-- execute: the lock key function and pg_advisory_xact_lock are PUBLIC.
create or replace function community_deletion.tg_ddl__lock_schema_destruction()
  returns event_trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  if tg_tag not in ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'CREATE SEQUENCE', 'ALTER SEQUENCE',
                    'CREATE VIEW', 'CREATE INDEX', 'CREATE FUNCTION', 'DROP TABLE', 'DROP SEQUENCE', 'DROP VIEW',
                    'DROP INDEX', 'DROP FUNCTION',
                    'GRANT', 'REVOKE', 'COMMENT', 'SECURITY LABEL', 'ALTER DEFAULT PRIVILEGES') then
    perform pg_catalog.pg_advisory_xact_lock(community_deletion._schema_destruction_lock_key());
  end if;
end;
$$;
