-- Event trigger functions. Any DDL on a non-temporary object takes the lock
-- EXCLUSIVELY until the end of its transaction:
--  * ddl_command_start (_100_lock_schema_destruction): every command except
--    the ones below, BEFORE it takes any table lock, so a migration altering a
--    scoped table can never deadlock against a purge;
--  * commands that may well target only temporary objects (CREATE TABLE /
--    TABLE AS / SELECT INTO / SEQUENCE / VIEW / INDEX / FUNCTION, ALTER
--    SEQUENCE, DROP of those) are decided after the fact — ddl_command_end
--    (_101_…) and sql_drop (_102_…) — and take the lock only if a
--    non-temporary object is involved. Otherwise every transaction using a
--    temporary table (pgTAP's plan() does) would serialise with every other
--    and hold destructive stages back. Such a command may have taken a table
--    lock before it waits; a rare deadlock with a purge is detected by
--    PostgreSQL (40P01, retryable) and never lets the catalog change under a
--    destructive transaction.
--  * GRANT, REVOKE, COMMENT, SECURITY LABEL, ALTER DEFAULT PRIVILEGES do not
--    change which tables, fences or indexes exist: no lock.
create or replace function community_deletion._ddl_tag_is_deferred(p_tag text)
  returns boolean
  language sql
  immutable
  set search_path = ''
as $$
  select p_tag in ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'CREATE SEQUENCE', 'ALTER SEQUENCE',
                   'CREATE VIEW', 'CREATE INDEX', 'CREATE FUNCTION', 'DROP TABLE', 'DROP SEQUENCE', 'DROP VIEW',
                   'DROP INDEX', 'DROP FUNCTION',
                   'GRANT', 'REVOKE', 'COMMENT', 'SECURITY LABEL', 'ALTER DEFAULT PRIVILEGES')
$$;
