-- Schema/destruction serialisation (SPEC §5.5). One fixed, deployment-wide
-- advisory key: destructive transactions (catalog re-validation + purge, absence
-- proof) hold it SHARED for their whole transaction; any DDL holds it EXCLUSIVE
-- from its first DDL command to the end of its transaction (event trigger
-- _100_lock_schema_destruction), whatever tool issued it. So a migration waits
-- for a running purge, and a purge waits for a running migration and then
-- validates the committed catalog. Shared holders do not block each other.
-- The key must never change: ASCII "cd-ddl-1" = 0x63642d64646c2d31.

create or replace function public._deletion_schema_destruction_lock_key()
  returns bigint
  language sql
  immutable
  parallel safe
  set search_path = ''
as $$
  select 7161899216630721841::bigint
$$;

-- Takes the schema/destruction lock SHARED until the end of the transaction.
-- Call it first in every destructive transaction, then deletion_validate_catalog().
create or replace function public._deletion_lock_schema_destruction_shared()
  returns void
  language sql
  volatile
  set search_path = ''
as $$
  select pg_catalog.pg_advisory_xact_lock_shared(public._deletion_schema_destruction_lock_key())
$$;

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
create or replace function public._deletion_ddl_tag_is_deferred(p_tag text)
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

create or replace function public.tg_ddl__lock_schema_destruction()
  returns event_trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  if not public._deletion_ddl_tag_is_deferred(tg_tag) then
    perform pg_catalog.pg_advisory_xact_lock(public._deletion_schema_destruction_lock_key());
  end if;
end;
$$;

create or replace function public.tg_ddl__lock_schema_destruction_created()
  returns event_trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  if tg_tag not in ('GRANT', 'REVOKE', 'COMMENT', 'SECURITY LABEL', 'ALTER DEFAULT PRIVILEGES')
     and exists (select 1 from pg_catalog.pg_event_trigger_ddl_commands() c
                  where c.schema_name is distinct from 'pg_temp') then
    perform pg_catalog.pg_advisory_xact_lock(public._deletion_schema_destruction_lock_key());
  end if;
end;
$$;

create or replace function public.tg_ddl__lock_schema_destruction_dropped()
  returns event_trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  if exists (select 1 from pg_catalog.pg_event_trigger_dropped_objects() d where not d.is_temporary) then
    perform pg_catalog.pg_advisory_xact_lock(public._deletion_schema_destruction_lock_key());
  end if;
end;
$$;
