-- docs/design.md#catalog: destructive transactions hold the schema/destruction lock shared,
-- any DDL (whatever tool issues it) takes it exclusively through the event
-- trigger. A running destructive transaction holds a CREATE TABLE back until
-- it commits; a running migration holds the destructive transaction back,
-- which then validates the committed catalog and fails closed. Shared holders
-- do not block each other. Real sessions (dblink), committed setup.
\ir ../fixtures/fence.sql

set statement_timeout = '120s';
begin;
select plan(14);
select tests.fx_connect('destroy');
select tests.fx_connect('destroy2');
select tests.fx_connect('migrate');

-- 1. destructive transaction first
select dblink_exec('destroy', 'begin');
select * from dblink('destroy', 'select community_deletion._lock_schema_destruction_shared()::text') as t(x text);
select is((select t.x from dblink('destroy2', 'select tests.fx_sqlstate($q$select community_deletion._lock_schema_destruction_shared()$q$)') as t(x text)),
  '00000', 'another destructive transaction takes the shared lock at the same time');
select tests.fx_pid('migrate') as migrate_pid \gset
select dblink_send_query('migrate', format('select tests.fx_sqlstate(%L)',
  'create table public.lock_probe (community_id uuid not null, payload text)'));
select ok(tests.fx_waits_for_lock(:migrate_pid), 'CREATE TABLE waits while a destructive transaction holds the lock');
select is(to_regclass('public.lock_probe'), null, 'the table does not exist yet');
select dblink_exec('destroy', 'commit');
select is(tests.fx_result('migrate'), '00000', 'the DDL proceeds once the destructive transaction commits');
select isnt(to_regclass('public.lock_probe'), null, 'the table exists');

-- 2. migration first (DDL open, not yet committed)
select dblink_exec('migrate', 'begin');
select dblink_exec('migrate', 'create table public.lock_probe_2 (community_id uuid not null, payload text)');
select tests.fx_pid('destroy') as destroy_pid \gset
select dblink_send_query('destroy', format('select tests.fx_sqlstate(%L)',
  'select community_deletion._lock_schema_destruction_shared(); select community_deletion.validate_catalog()'));
select ok(tests.fx_waits_for_lock(:destroy_pid), 'a destructive transaction waits for an open migration');
select dblink_exec('migrate', 'commit');
select is(tests.fx_result('destroy'), 'DL7C1',
  'it then validates the committed catalog and fails closed on the new tables');

-- 3. any DDL takes the lock, and an ALTER TABLE takes it BEFORE any table lock
--    (the destructive transaction already reads the table: were the ALTER to
--    hold its table lock first, the two could deadlock).
select dblink_exec('destroy', 'begin');
select * from dblink('destroy', 'select community_deletion._lock_schema_destruction_shared()::text') as t(x text);
select * from dblink('destroy', 'select count(*)::text from public.pubkey_allowlist') as t(x text);
select dblink_send_query('migrate', format('select tests.fx_sqlstate(%L)',
  'alter table public.pubkey_allowlist add column note text'));
select ok(tests.fx_waits_for_lock(:migrate_pid), 'ALTER TABLE waits on the schema/destruction lock, not on the table');
select dblink_exec('destroy', 'rollback');
select is(tests.fx_result('migrate'), '00000', 'and proceeds afterwards');
select dblink_exec('destroy', 'begin');
select * from dblink('destroy', 'select community_deletion._lock_schema_destruction_shared()::text') as t(x text);
select dblink_send_query('migrate', format('select tests.fx_sqlstate(%L)',
  'drop trigger _010_community_write_fence on public.pubkey_allowlist'));
select ok(tests.fx_waits_for_lock(:migrate_pid), 'dropping a fence trigger also waits for the destructive transaction');
select dblink_exec('destroy', 'rollback');
select is(tests.fx_result('migrate'), 'DL7C2', 'and is then refused by the DDL guard (the fence stays)');

select dblink_exec('destroy', 'begin');
select * from dblink('destroy', 'select community_deletion._lock_schema_destruction_shared()::text') as t(x text);
select dblink_send_query('migrate', format('select tests.fx_sqlstate(%L)', 'drop table public.lock_probe'));
select ok(tests.fx_waits_for_lock(:migrate_pid), 'dropping a table also waits for the destructive transaction');
select dblink_exec('destroy', 'rollback');
select is(tests.fx_result('migrate'), '00000', 'and proceeds afterwards');

-- 4. temporary objects take no lock (pgTAP's own plan() creates some)
select dblink_exec('destroy', 'begin');
select * from dblink('destroy', 'select community_deletion._lock_schema_destruction_shared()::text') as t(x text);
select is((select t.x from dblink('migrate', format('select tests.fx_sqlstate(%L)',
  'create temp table scratch (a int); create index on scratch (a); drop table scratch')) as t(x text)),
  '00000', 'temporary tables, their indexes and drops do not wait for a destructive transaction');
select dblink_exec('destroy', 'rollback');

select dblink_disconnect('destroy');
select dblink_disconnect('destroy2');
select dblink_disconnect('migrate');
select * from finish();
rollback;
