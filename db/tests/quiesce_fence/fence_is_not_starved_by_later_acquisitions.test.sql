-- Sustained admission cannot starve the fence: once quiesce waits for the
-- exclusive community lock, later serving-lease acquisitions queue BEHIND it
-- (PostgreSQL grants conflicting lock requests in arrival order) and, once
-- quiescing is committed, are refused; 100 refused attempts later the fence
-- still completes. Real concurrent sessions (dblink), committed setup.
\ir ../fixtures/fence.sql
select * from tests.fx_claimed('starve.example', 'executor-1') \gset

set statement_timeout = '120s';
begin;
select plan(8);
select tests.fx_connect('writer');
select tests.fx_connect('exec');
select tests.fx_connect('late');

-- An open writer holds the lock shared; quiesce queues for it exclusively.
select dblink_exec('writer', 'begin');
select * from dblink('writer', format($$ select community_deletion.assert_community_write_allowed(%L)::text $$, :'community_id')) as t(x text);
select tests.fx_pid('exec') as exec_pid \gset
select dblink_send_query('exec', format('select tests.fx_sqlstate(%L)',
  format('select community_deletion.begin_quiescing(%L, %L, %s)', :'request_id', 'executor-1', :generation)));
select ok(tests.fx_waits_for_lock(:exec_pid), 'quiesce waits behind the open writer');

-- A later acquisition (shared) does not jump the queued exclusive request.
select tests.fx_pid('late') as late_pid \gset
select dblink_send_query('late', format('select tests.fx_sqlstate(%L)',
  format($$ select community_deletion.acquire_serving_lease(%L, 'upload', 'late-owner') $$, :'community_id')));
select ok(tests.fx_waits_for_lock(:late_pid), 'a later serving-lease acquisition queues behind the waiting quiesce');

select dblink_exec('writer', 'commit');
select is(tests.fx_result('exec'), '00000', 'quiesce completes once the writer commits');
select is(tests.fx_result('late'), 'DL5S1', 'the queued acquisition is then refused: the community is quiescing');

-- 100 more attempts, all refused, admit nothing.
select is(
  (select count(*)::int from generate_series(1, 100) i
    where tests.fx_sqlstate(format($$ select community_deletion.acquire_serving_lease(%L, 'sustained', 'owner-%s') $$,
                                   :'community_id', i)) = 'DL5S1'),
  100, '100 acquisition attempts after quiesce are all refused (DL5S1)');
select is((select count(*)::int from community_deletion.serving_write_leases where community_id = :'community_id'), 0,
  'no lease was admitted');
select is(community_deletion.fence(:'request_id', 'executor-1', :generation), 1::bigint,
  'the fence still completes (generation 1): sustained admission cannot starve it');
select is((select deletion_state from public.communities where id = :'community_id'), 'fenced', 'the community is fenced');

select dblink_disconnect('writer');
select dblink_disconnect('exec');
select dblink_disconnect('late');
select * from finish();
rollback;
