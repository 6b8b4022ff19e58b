-- An executor's lease check holds until its step commits (model/README.md,
-- F1): the step locks the request row before it verifies, so a successor's
-- claim cannot take the request over between the check and the effect. The
-- race is made deterministic with locks: the stamp (or purge batch) of
-- executor 1 verified a lease that has since run out, and is held mid-step on
-- a row lock the test owns; executor 2's claim meanwhile must get nothing.
-- Before the fix it won the request, executor 1's stamp then committed under
-- the dead lease generation and executor 2's own stamp failed (DL6F1) and
-- blocked the request. Real concurrent sessions (dblink); the setup commits
-- (this file runs in its own throw-away database).
\ir ../fixtures/destruction.sql
select plan(9);

select * from tests.dx_fenced_request('target.example', 2) \gset
select tests.dx_enumerate(:'request_id', :'owner', :'generation', :'fence_generation', :'community_id',
  tests.dx_sample_entries(:'community_id'), 2) as manifest \gset
select community_deletion.freeze_destructive_manifest(:'request_id', :'owner', :'generation', :'fence_generation', :'manifest') \g /dev/null
select community_deletion.mark_drained(:'request_id', :'owner', :'generation', :'fence_generation') \g /dev/null

select dblink_connect('holder', 'dbname=' || current_database()) \g /dev/null
select dblink_connect('e1', 'dbname=' || current_database()) \g /dev/null
select dblink_connect('e2', 'dbname=' || current_database()) \g /dev/null
select * from dblink('e1', 'select pg_backend_pid()') as t(pid integer) \gset e1_
-- A claim that waited for executor 1 instead of skipping would be a bug too: fail fast.
select dblink_exec('e2', $$set lock_timeout = '3s'$$) \g /dev/null

-- 1. The stamp of chunk 0.
select dblink_exec('holder', 'begin') \g /dev/null
select * from dblink('holder', format('select chunk_no from community_deletion.manifest_keys where request_id = %L and chunk_no = 0 for update',
  :'request_id')) as t(n integer) \g /dev/null
-- Executor 1's transaction starts now; its lease ends right after (but not
-- before its now()), so its check passes while a claim would find it expired.
select dblink_exec('e1', 'begin') \g /dev/null
update community_deletion.requests set lease_until = clock_timestamp() where id = :'request_id';
select dblink_send_query('e1', format($$select community_deletion.stamp_key_chunk(%L, %L, %s, %s, 0, '{"deleted": 1}')::text$$,
  :'request_id', :'owner', :'generation', :'fence_generation')) \g /dev/null
select ok(tests.awaits_lock(:e1_pid, 'transactionid'), 'executor 1''s stamp passed its lease check and waits mid-step');
select is((select count(*)::int from dblink('e2', format('select request_id from community_deletion.claim(%L, %L, 60)', 'executor-2', :'request_id'))
             as t(request_id uuid)), 0, 'executor 2 cannot take the request over while that stamp is in flight');
select dblink_exec('holder', 'rollback') \g /dev/null
select is((select r from dblink_get_result('e1') as t(r text)), '', 'the stamp completes');
select is_empty($$ select * from dblink_get_result('e1') as t(r text) $$, 'executor 1''s session is idle again');
select dblink_exec('e1', 'commit') \g /dev/null
select is((select lease_generation from community_deletion.checkpoints where request_id = :'request_id' and unit_key = 'chunk:0'),
  :'generation'::bigint, 'chunk 0 was stamped by executor 1, whose lease was current when it checked');
select is((select count(*)::int from dblink('e2', format('select request_id from community_deletion.claim(%L, %L, 3600)', 'executor-2', :'request_id'))
             as t(request_id uuid)), 1, 'after the stamp committed, executor 2 takes the request over');
select lease_generation as g2 from community_deletion.requests where id = :'request_id' \gset
select is((select chunk_no from community_deletion.next_key_chunk(:'request_id', 'executor-2', :'g2', :'fence_generation')), 1,
  'executor 2 goes on with chunk 1: nothing is stamped twice, nothing blocks');

-- 2. The same for a purge batch (executor 2 now holds the lease and runs it).
select tests.dx_stamp_all(:'request_id', 'executor-2', :'g2', :'fence_generation') \g /dev/null
select community_deletion.mark_bindings_removed(:'request_id', 'executor-2', :'g2', :'fence_generation', '{}') \g /dev/null
select dblink_exec('holder', 'begin') \g /dev/null
select * from dblink('holder', format('select 1 from public.product_feedback where community_id = %L limit 1 for update',
  :'community_id')) as t(n integer) \g /dev/null
select dblink_exec('e1', 'begin') \g /dev/null
update community_deletion.requests set lease_until = clock_timestamp() where id = :'request_id';
select dblink_send_query('e1', format('select community_deletion.purge_postgres_batch(%L, %L, %s, %s)::text',
  :'request_id', 'executor-2', :'g2', :'fence_generation')) \g /dev/null
select ok(tests.awaits_lock(:e1_pid, 'transactionid'), 'executor 2''s purge batch passed its lease check and waits mid-batch');
select is((select count(*)::int from dblink('e2', format('select request_id from community_deletion.claim(%L, %L, 60)', 'executor-3', :'request_id'))
             as t(request_id uuid)), 0, 'a third executor cannot take the request over while that batch is in flight');
select dblink_exec('holder', 'rollback') \g /dev/null
select * from dblink_get_result('e1') as t(r text) \g /dev/null
select * from dblink_get_result('e1') as t(r text) \g /dev/null
select dblink_exec('e1', 'commit') \g /dev/null

select dblink_disconnect('holder') \g /dev/null
select dblink_disconnect('e1') \g /dev/null
select dblink_disconnect('e2') \g /dev/null
select * from finish();
