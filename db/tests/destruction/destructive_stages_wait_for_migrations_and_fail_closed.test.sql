-- Destructive stages serialise with migrations through the schema-destruction
-- lock: a purge (and an absence proof) started while a migration is creating
-- a community table waits for the migration, then re-validates the committed
-- catalog and refuses, naming the table, leaving the request where it was;
-- once the table is gone the same call succeeds. Real concurrent sessions
-- (dblink), so the setup commits; the database is private to this file.
\ir ../fixtures/destruction.sql
select plan(19);

select * from tests.dx_fenced_request('target.example', 1) \gset
select tests.dx_to_bindings_removed(:'request_id', :'owner', :'generation', :'fence_generation', :'community_id');
select format('%L, %L, %s, %s', :'request_id', :'owner', :'generation', :'fence_generation') as token \gset

-- SQLSTATE and message of p_sql's error, or null.
create function pg_temp.error_of(p_sql text) returns text language plpgsql as $$
begin
  execute p_sql;
  return null;
exception when others then
  return sqlstate || ' ' || sqlerrm;
end;
$$;

select dblink_connect('migration', 'dbname=' || current_database());
select dblink_connect('executor', 'dbname=' || current_database());
select * from dblink('executor', 'select pg_backend_pid()') as t(pid integer) \gset executor_

-- 1. The purge waits for an in-flight migration, then fails closed on its table.
select dblink_exec('migration', 'begin');
select dblink_exec('migration', 'create table public.probe_migrated (community_id uuid not null, payload text)');
select dblink_exec('migration', 'create index probe_migrated_community_idx on public.probe_migrated (community_id)');
select ok(exists (select 1 from pg_locks l join dblink('migration', 'select pg_backend_pid()') as m(pid integer) on m.pid = l.pid
                   where l.locktype = 'advisory' and l.mode = 'ExclusiveLock' and l.granted),
  'the migration''s DDL holds the schema-destruction lock exclusively');

select dblink_send_query('executor', format('select community_deletion.purge_postgres(%s)::text', :'token'));
select ok(tests.awaits_advisory_lock(:executor_pid), 'the purge waits for the migration');
select is(dblink_is_busy('executor'), 1, 'the purge is still running while the migration is open');
select is((select stage from community_deletion.requests where id = :'request_id'), 'bindings_removed',
  'nothing moved while the purge waited');

select dblink_exec('migration', 'commit');
select throws_ok($$ select * from dblink_get_result('executor') as t(r text) $$,
  'DL7C1', null, 'after the migration commits, the purge refuses on the new community table');
select is_empty($$ select * from dblink_get_result('executor') as t(r text) $$, 'the executor session is idle again');
select ok(pg_temp.error_of(format('select community_deletion.purge_postgres(%s)', :'token')) like 'DL7C1 %probe_migrated%',
  'the refusal names the table');
select is((select stage from community_deletion.requests where id = :'request_id'), 'bindings_removed',
  'the request stays at bindings_removed');
select isnt((select sum(row_count)::int from tests.scoped_row_counts(:'community_id')), 0, 'no target row was deleted');

drop table public.probe_migrated;
select lives_ok(format('select community_deletion.purge_postgres(%s)', :'token'), 'with the table dropped the purge succeeds');
select is((select stage from community_deletion.requests where id = :'request_id'), 'postgres_purged',
  'bindings_removed -> postgres_purged');
select community_deletion.mark_cache_purged(:'request_id', :'owner', :'generation', :'fence_generation', '{"unlinked": 0}');

-- 2. The same for the absence proof: a table committed after the purge fails it closed.
select dblink_exec('migration', 'begin');
select dblink_exec('migration', 'create table public.probe_after_purge (community_id uuid not null, payload text)');
select dblink_exec('migration', 'create index probe_after_purge_community_idx on public.probe_after_purge (community_id)');
select dblink_send_query('executor', format('select community_deletion.verify_postgres_absence(%s)::text', :'token'));
select ok(tests.awaits_advisory_lock(:executor_pid), 'the absence proof waits for the migration');
select dblink_exec('migration', 'commit');
select throws_ok($$ select * from dblink_get_result('executor') as t(r text) $$,
  'DL7C1', null, 'after the migration commits, the absence proof refuses on the new table');
select is_empty($$ select * from dblink_get_result('executor') as t(r text) $$, 'the executor session is idle again');
select ok(pg_temp.error_of(format('select community_deletion.verify_postgres_absence(%s)', :'token')) like 'DL7C1 %probe_after_purge%',
  'the refusal names the table');
select is((select stage from community_deletion.requests where id = :'request_id'), 'cache_purged',
  'the request stays at cache_purged');

drop table public.probe_after_purge;
select lives_ok(format('select community_deletion.verify_postgres_absence(%s)', :'token'), 'with the table dropped the proof passes');
select lives_ok(format($$ select community_deletion.mark_logically_verified(%s, '{"s3": "empty"}') $$, :'token'),
  'cache_purged -> logically_verified');
select lives_ok(format($$ select community_deletion.mark_retention_pending(%s, '{}') $$, :'token'),
  'logically_verified -> retention_pending');

select dblink_disconnect('migration');
select dblink_disconnect('executor');
select * from finish();
