-- Abort takes the community advisory lock exclusively before any row lock:
-- while another transaction holds that lock (a serving writer shares it, a
-- lifecycle transition holds it exclusively), abort waits instead of
-- interleaving, and then completes. Real sessions through dblink.
\ir ../fixtures/lifecycle.sql
select plan(6);

select tests.lc_approved('abort-lock.example') as rid \gset
select community_id as c from community_deletion.requests where id = :'rid' \gset

select dblink_connect('holder', 'dbname=' || current_database()) \g /dev/null
select dblink_connect('operator', 'dbname=' || current_database()) \g /dev/null
select * from dblink('operator', 'select pg_backend_pid()') as t(pid integer) \gset operator_

-- A serving writer holds the community lock shared.
select dblink_exec('holder', 'begin') \g /dev/null
select * from dblink('holder', format('select 1 from (select community_deletion._lock_community(%L, false)) l', :'c')) as t(x int) \g /dev/null
select dblink_send_query('operator', format('select stage from community_deletion.abort(%L, %L, %L)', :'rid', 'carol', 'cancel')) \g /dev/null
select ok(tests.awaits_advisory_lock(:operator_pid), 'abort waits while another transaction holds the community lock');
select ok(dblink_is_busy('operator') = 1, 'and has not returned');
select ok(exists (select 1 from pg_locks where locktype = 'advisory' and not granted
                    and objid = (community_deletion._community_lock_key(:'c') & 4294967295)),
  'abort is queued on the community advisory lock (not on a row lock)');
select is((select stage from community_deletion.requests where id = :'rid'), 'approved',
  'nothing changed while abort waits');

select dblink_exec('holder', 'commit') \g /dev/null
select is((select stage from dblink_get_result('operator') as t(stage text)), 'aborted',
  'abort completes once the lock is released');
select dblink_get_result('operator') \g /dev/null
select is((select stage from community_deletion.requests where id = :'rid'), 'aborted', 'the abort committed');

select dblink_disconnect('holder') \g /dev/null
select dblink_disconnect('operator') \g /dev/null
select * from finish();
