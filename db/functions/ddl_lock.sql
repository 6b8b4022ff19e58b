-- The schema/destruction lock taken explicitly, for servers without the
-- engine's event triggers (a managed server: only a superuser may create an
-- event trigger; community_deletion.installation_report() says
-- "ddl_lock": "explicit"). Call it FIRST in every migration transaction
-- that changes the schema — as the event trigger _100_lock_schema_destruction
-- would — so the migration waits for a running purge or absence proof and
-- none starts before it commits: it takes the lock EXCLUSIVELY until the end
-- of the calling transaction (called outside a transaction block it is
-- released at once and protects nothing). `deletions migrate` in managed mode
-- calls the same lock at the top of every migration it runs; docs/managed.md
-- shows the hook for other migration tools. Destructive transactions
-- re-validate the catalog after taking the lock shared, so a migration that
-- skips this call cannot change what a purge deletes from under it — it can
-- only make the purge refuse (catalog_drift, DL7C1) instead of wait.
create or replace function community_deletion.ddl_lock()
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  perform pg_catalog.pg_advisory_xact_lock(community_deletion._schema_destruction_lock_key());
end;
$$;
