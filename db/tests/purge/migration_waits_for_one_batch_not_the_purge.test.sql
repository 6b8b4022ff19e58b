-- With the batched purge a migration waits for at most the batch in flight,
-- never for the whole purge: a batch holds the schema-destruction lock shared
-- only for its own transaction, DDL (which takes it exclusively) queues
-- behind that one batch, and between batches DDL runs at once. A request
-- blocked between batches stops there: the next batch is refused and deletes
-- nothing. Real concurrent sessions (dblink), so the setup commits; the
-- database is private to this file.
\ir ../fixtures/destruction.sql
select plan(12);

select * from tests.dx_fenced_request('target.example', 3) \gset
select tests.dx_to_bindings_removed(:'request_id', :'owner', :'generation', :'fence_generation', :'community_id');
select format('%L, %L, %s, %s', :'request_id', :'owner', :'generation', :'fence_generation') as token \gset
update community_deletion.settings set purge_batch_rows = 5;
select sum(row_count)::int as target_rows from tests.scoped_row_counts(:'community_id') \gset

select dblink_connect('migration', 'dbname=' || current_database());
select dblink_connect('executor', 'dbname=' || current_database());
select * from dblink('migration', 'select pg_backend_pid()') as t(pid integer) \gset migration_
-- A migration that waited longer than this would mean the test is broken, not slow.
select dblink_exec('migration', $$set lock_timeout = '5min'$$);

-- 1. A batch in flight (its transaction open): DDL waits for exactly that batch.
select dblink_exec('executor', 'begin');
select * from dblink('executor', format('select community_deletion.purge_postgres_batch(%s)::text', :'token')) as t(r text);
select dblink_send_query('migration', 'create table public.probe_during_batch (id integer)');
select ok(tests.awaits_advisory_lock(:migration_pid), 'DDL waits while a batch is open');
select is(dblink_is_busy('migration'), 1, 'the migration has not finished');
select dblink_exec('executor', 'commit');
select is((select r from dblink_get_result('migration') as t(r text)), 'CREATE TABLE', 'the batch committed: the DDL ran');
select is_empty($$ select * from dblink_get_result('migration') as t(r text) $$, 'the migration session is idle again');
select ok(to_regclass('public.probe_during_batch') is not null, 'the table exists');

-- 2. Between batches nothing holds the lock: DDL runs at once.
select community_deletion.purge_postgres_batch(:'request_id', :'owner', :'generation', :'fence_generation') -> 'done' as done_1 \gset
select community_deletion.purge_postgres_batch(:'request_id', :'owner', :'generation', :'fence_generation') -> 'done' as done_2 \gset
select is(dblink_exec('migration', 'create table public.probe_between_batches (id integer)'), 'CREATE TABLE',
  'between batches DDL does not wait for the purge');
select is((select stage from community_deletion.requests where id = :'request_id'), 'bindings_removed',
  'the purge is still under way');
select ok((select sum(row_count)::int from tests.scoped_row_counts(:'community_id')) < :target_rows,
  'and has deleted some rows');
drop table public.probe_during_batch, public.probe_between_batches;

-- 3. Blocked between batches: the next batch is refused and deletes nothing.
select community_deletion.block(:'request_id', :'owner', :'generation', 'bindings_removed', 'purge_postgres_batch', 'operator stop');
select sum(row_count)::int as rows_when_blocked from tests.scoped_row_counts(:'community_id') \gset
select throws_ok(format('select community_deletion.purge_postgres_batch(%s)', :'token'), 'DL4L1', null,
  'a blocked request runs no further batch');
select throws_ok(format('select community_deletion.finish_postgres_purge(%s)', :'token'), 'DL4L1', null,
  'nor finishes');
select is((select sum(row_count)::int from tests.scoped_row_counts(:'community_id')), :rows_when_blocked,
  'no row went after the block');
select throws_ok(format($$ select community_deletion.abort(%L, 'carol@ops', 'changed my mind') $$, :'request_id'), 'DL2S1', null,
  'abort stays refused mid-purge (rows are already gone)');

select dblink_disconnect('migration');
select dblink_disconnect('executor');
select * from finish();
