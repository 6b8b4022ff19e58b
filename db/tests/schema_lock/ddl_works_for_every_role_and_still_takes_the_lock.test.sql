-- The engine never breaks the host's DDL: every DDL PostgreSQL allows a role
-- still works for it with the engine installed — a temporary table for the
-- application role, an index and a column for a non-superuser table owner, a
-- new table for a non-superuser migration role — and DDL on non-temporary
-- objects still takes the schema-destruction lock exclusively, whoever issues
-- it (the event trigger functions call only what PUBLIC may execute).
-- Committed setup (this database is a private clone), so the transaction
-- below starts without the schema-destruction lock.
-- Roles are cluster-wide: their names are this database's own, and they are
-- dropped at the end.
select 'cd_ddl_owner_' || substr(md5(current_database()), 1, 10) as owner_role,
       'cd_ddl_migrator_' || substr(md5(current_database()), 1, 10) as migrator_role \gset
create role :"owner_role" nologin;
create role :"migrator_role" nologin;
-- PostgreSQL itself requires CREATE on the schema for CREATE INDEX.
grant create on schema public to :"owner_role", :"migrator_role";
create table public.owner_things (id integer primary key, label text);
alter table public.owner_things owner to :"owner_role";

begin;
select plan(14);

-- Whether this backend holds the schema-destruction lock exclusively.
create function pg_temp.holds_ddl_lock() returns boolean language sql as $$
  select exists (select 1 from pg_locks l
                  where l.pid = pg_backend_pid() and l.locktype = 'advisory' and l.granted
                    and l.mode = 'ExclusiveLock'
                    and l.objid = (community_deletion._schema_destruction_lock_key() & 4294967295)
                    and l.classid = ((community_deletion._schema_destruction_lock_key() >> 32) & 4294967295))
$$;
grant execute on function pg_temp.holds_ddl_lock() to public;

-- The application role: temporary objects only, no lock.
set local role community_deletion_app;
select lives_ok($$ create temp table app_scratch (x integer) $$, 'the application role creates a temporary table');
select lives_ok($$ create index on app_scratch (x) $$, 'and indexes it');
select lives_ok($$ create temp view app_view as select x from app_scratch $$, 'and creates a temporary view');
select lives_ok($$ drop table app_scratch cascade $$, 'and drops them');
select ok(not pg_temp.holds_ddl_lock(), 'temporary objects do not take the schema-destruction lock');
reset role;

-- A non-superuser table owner.
set local role :"owner_role";
select lives_ok($$ create index owner_things_label_idx on public.owner_things (label) $$,
  'a table owner creates an index on its table');
select ok(pg_temp.holds_ddl_lock(), 'which takes the schema-destruction lock exclusively');
select lives_ok($$ alter table public.owner_things add column note text $$, 'and alters its table');
select lives_ok($$ drop index public.owner_things_label_idx $$, 'and drops its index');
reset role;

-- A non-superuser migration role.
set local role :"migrator_role";
select lives_ok($$ create table public.migrated_things (id integer primary key, payload text) $$,
  'a migration role creates a table');
select ok(pg_temp.holds_ddl_lock(), 'and holds the schema-destruction lock exclusively');
select lives_ok($$ create function public.migrated_fn() returns integer language sql as 'select 1' $$,
  'and a function');
select lives_ok($$ drop table public.migrated_things $$, 'and drops its table');
reset role;

-- GRANT/COMMENT change no table, fence or index (they take no lock).
set local role :"owner_role";
select lives_ok($$ comment on table public.owner_things is 'owned' $$, 'a table owner comments on its table');
reset role;

select * from finish();
rollback;
drop table public.owner_things;
revoke create on schema public from :"owner_role", :"migrator_role";
drop owned by :"owner_role", :"migrator_role";
drop role :"owner_role";
drop role :"migrator_role";
