-- Without event triggers (a managed server: only a superuser may create
-- one) the schema/destruction lock is taken explicitly:
-- community_deletion.ddl_lock() takes it EXCLUSIVELY until the end of the
-- transaction, for any role, so a migration calling it first waits for a
-- running purge as if the event trigger had fired. The installation report
-- says which mechanism protects this database. Disabling the event triggers
-- (as a superuser, rolled back with the test) stands in for a managed install.
begin;
select plan(11);

create function pg_temp.holds_ddl_lock(p_mode text) returns boolean language sql as $$
  select exists (select 1 from pg_locks l
                  where l.pid = pg_backend_pid() and l.locktype = 'advisory' and l.granted
                    and l.mode = p_mode
                    and l.objid = (community_deletion._schema_destruction_lock_key() & 4294967295)
                    and l.classid = ((community_deletion._schema_destruction_lock_key() >> 32) & 4294967295))
$$;
grant execute on function pg_temp.holds_ddl_lock(text) to public;

select is(community_deletion.installation_report() - 'write_fence' - 'degraded' - 'rls_exemption',
  '{"ddl_lock": "event_trigger", "ddl_guard": "event_trigger", "superuser_install": true}'::jsonb,
  'installed by a superuser: the event triggers take the lock and guard registered tables');
select is(community_deletion.installation_report() ->> 'write_fence', community_deletion.write_fence_implementation(),
  'the report names the write fence in use');
select ok(not (community_deletion.installation_report() -> 'degraded' @> '[{"what": "DDL lock"}]'),
  'the DDL lock is not degraded');
select is((community_deletion.installation_report() -> 'degraded' @> '[{"what": "native fence", "state": "no"}]'),
  community_deletion.write_fence_implementation() <> 'native',
  'the native fence is reported degraded exactly when it is not installed');

alter event trigger _100_lock_schema_destruction disable;
alter event trigger _110_guard_registered_tables disable;
select is(community_deletion.installation_report() ->> 'ddl_lock', 'explicit', 'without the event trigger: explicit');
select is(community_deletion.installation_report() ->> 'ddl_guard', 'catalog_validation', 'and the DDL guard is catalog validation');
select ok(community_deletion.installation_report() -> 'degraded'
            @> '[{"what": "DDL lock", "state": "explicit"}, {"what": "DDL guard", "state": "catalog validation"}]',
  'both listed as degraded, with why');
select matches(community_deletion.installation_report() #>> '{degraded,0,why}' || (community_deletion.installation_report() ->> 'degraded'),
  'community_deletion\.ddl_lock\(\)', 'the remedy is named');

-- Any role may take the lock (a migration role is no engine role).
set local role community_deletion_app;
select ok(not pg_temp.holds_ddl_lock('ExclusiveLock'), 'not held before');
select lives_ok($$ select community_deletion.ddl_lock() $$, 'ddl_lock() as a role without engine rights');
select ok(pg_temp.holds_ddl_lock('ExclusiveLock'), 'holds the schema/destruction lock exclusively until the end of the transaction');
reset role;

select * from finish();
rollback;
