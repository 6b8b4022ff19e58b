-- Takes the schema/destruction lock SHARED until the end of the transaction.
-- Call it first in every destructive transaction, then community_deletion.validate_catalog().
create or replace function community_deletion._lock_schema_destruction_shared()
  returns void
  language sql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.pg_advisory_xact_lock_shared(community_deletion._schema_destruction_lock_key())
$$;
