-- Review hardening 2: abort and a forward transition both queue on the
-- exclusive community lock; abort (first in line) wins, and the forward
-- transition, which re-verifies its lease after taking the lock, fails with
-- stale_lease (DL4L1) instead of re-quiescing or fencing the rescued
-- community. Never a deadlock (40P01). Real sessions (dblink); committed setup.
\ir ../fixtures/fence.sql
select * from tests.fx_claimed('race-quiesce.example', 'executor-1') \gset q_
select * from tests.fx_claimed('race-fence.example', 'executor-2') \gset f_
select community_deletion.begin_quiescing(:'f_request_id', 'executor-2', :f_generation);

set statement_timeout = '120s';
begin;
select plan(10);
select tests.fx_connect('gate');
select tests.fx_connect('operator');
select tests.fx_connect('exec');
select tests.fx_pid('operator') as operator_pid \gset
select tests.fx_pid('exec') as exec_pid \gset

-- Round 1: abort vs a queued quiesce.
select dblink_exec('gate', 'begin');
select * from dblink('gate', format('select pg_advisory_xact_lock(community_deletion._community_lock_key(%L))::text', :'q_community_id')) as t(x text);
select dblink_send_query('operator', format('select tests.fx_sqlstate(%L)',
  format('select community_deletion.abort(%L, %L, %L)', :'q_request_id', 'carol', 'race')));
select ok(tests.fx_waits_for_lock(:operator_pid), 'abort queues on the community lock');
select dblink_send_query('exec', format('select tests.fx_sqlstate(%L)',
  format('select community_deletion.begin_quiescing(%L, %L, %s)', :'q_request_id', 'executor-1', :q_generation)));
select ok(tests.fx_waits_for_lock(:exec_pid), 'quiesce queues behind it');
select dblink_exec('gate', 'commit');
select is(tests.fx_result('operator'), '00000', 'abort wins the lock and commits');
select is(tests.fx_result('exec'), 'DL4L1', 'the queued quiesce re-verifies its lease and fails stale (not 40P01)');
select is((select (deletion_state, deletion_fence_generation)::text from public.communities where id = :'q_community_id'),
  '(active,1)', 'the community stays active (generation bumped), not re-quiesced');

-- Round 2: abort vs a queued fence.
select dblink_exec('gate', 'begin');
select * from dblink('gate', format('select pg_advisory_xact_lock(community_deletion._community_lock_key(%L))::text', :'f_community_id')) as t(x text);
select dblink_send_query('operator', format('select tests.fx_sqlstate(%L)',
  format('select community_deletion.abort(%L, %L, %L)', :'f_request_id', 'carol', 'race')));
select ok(tests.fx_waits_for_lock(:operator_pid), 'abort queues on the community lock');
select dblink_send_query('exec', format('select tests.fx_sqlstate(%L)',
  format('select community_deletion.fence(%L, %L, %s)', :'f_request_id', 'executor-2', :f_generation)));
select ok(tests.fx_waits_for_lock(:exec_pid), 'the fence queues behind it');
select dblink_exec('gate', 'commit');
select is(tests.fx_result('operator'), '00000', 'abort wins the lock and commits');
select is(tests.fx_result('exec'), 'DL4L1', 'the queued fence re-verifies its lease and fails stale (not 40P01)');
select is((select (deletion_state, deletion_fence_generation, archived_at is null)::text from public.communities where id = :'f_community_id'),
  '(active,1,t)', 'the community is active, archived_at restored to NULL, never fenced');

select dblink_disconnect('gate');
select dblink_disconnect('operator');
select dblink_disconnect('exec');
select * from finish();
rollback;
