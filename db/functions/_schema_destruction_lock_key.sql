-- Schema/destruction serialisation (docs/design.md#catalog). One fixed, deployment-wide
-- advisory key: destructive transactions (catalog re-validation + purge, absence
-- proof) hold it SHARED for their whole transaction; any DDL holds it EXCLUSIVE
-- from its first DDL command to the end of its transaction (event trigger
-- _100_lock_schema_destruction), whatever tool issued it. So a migration waits
-- for a running purge, and a purge waits for a running migration and then
-- validates the committed catalog. Shared holders do not block each other.
-- The key must never change: ASCII "cd-ddl-1" = 0x63642d64646c2d31.

create or replace function community_deletion._schema_destruction_lock_key()
  returns bigint
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select 7161899216630721841::bigint
$$;
