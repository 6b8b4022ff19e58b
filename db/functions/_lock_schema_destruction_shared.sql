-- Takes the schema/destruction lock SHARED until the end of the transaction,
-- waiting at most lock_timeout (_apply_lock_timeout); a wait that runs out
-- raises lock_not_available (55P03, retryable) naming who holds the lock (a
-- migration, or any login that took the key). Call it first in every
-- destructive transaction, then community_deletion.validate_catalog().
create or replace function community_deletion._lock_schema_destruction_shared()
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_key bigint := community_deletion._schema_destruction_lock_key();
begin
  perform community_deletion._apply_lock_timeout();
  perform pg_catalog.pg_advisory_xact_lock_shared(v_key);
exception when lock_not_available then
  raise exception 'community deletion: the schema/destruction lock was not granted within lock_timeout %; held by %',
    pg_catalog.current_setting('lock_timeout'), community_deletion._advisory_lock_holders(v_key)
    using errcode = '55P03',
          hint = 'A migration (or another session holding the key) runs; retried with backoff.';
end;
$$;
