-- Any login may take the engine's advisory lock keys (pg_advisory_lock is
-- PUBLIC). Every engine step waits at most settings.lock_timeout for a lock,
-- then fails with lock_not_available (55P03, retryable) naming the session
-- that holds it: quiesce, fence and abort behind a held community lock, the
-- purge behind a held schema/destruction lock. The writer's own lock_timeout
-- is never changed by the fence. Real sessions (dblink), committed setup.
\ir ../fixtures/destruction.sql
\ir ../fixtures/fence.sql
update community_deletion.settings set lock_timeout = interval '200 milliseconds';
select * from tests.fx_claimed('locked.example') \gset q_
select * from tests.dx_fenced_request('purge-locked.example', 1) \gset p_
select tests.dx_to_bindings_removed(:'p_request_id', :'p_owner', :'p_generation', :'p_fence_generation', :'p_community_id');
select community_deletion._community_lock_key(:'q_community_id') as q_key,
       community_deletion._schema_destruction_lock_key() as ddl_key \gset

begin;
select plan(9);
select tests.fx_connect('mallory');
select dblink_exec('mallory', 'set application_name = ''mallory-psql''');
-- The purge behind a held schema/destruction lock.
select * from dblink('mallory', format('select pg_advisory_lock(%s)::text', :'ddl_key')) as t(x text);
select throws_like(format($$ select community_deletion.purge_postgres(%L, %L, %s, %s) $$,
                          :'p_request_id', :'p_owner', :'p_generation', :'p_fence_generation'),
  '%schema/destruction lock was not granted within lock_timeout%held by pid%',
  'the purge gives up after lock_timeout behind a held schema/destruction lock, naming the holder');
select is((select stage from community_deletion.requests where id = :'p_request_id'), 'bindings_removed',
  'the request stays where it was');
select * from dblink('mallory', format('select pg_advisory_unlock(%s)::text', :'ddl_key')) as t(x text);
select lives_ok(format($$ select community_deletion.purge_postgres(%L, %L, %s, %s) $$,
                        :'p_request_id', :'p_owner', :'p_generation', :'p_fence_generation'),
  'once released, the purge runs');


select * from dblink('mallory', format('select pg_advisory_lock(%s)::text', :'q_key')) as t(x text);

select throws_ok(format($$ select community_deletion.begin_quiescing(%L, 'executor-1', %s) $$, :'q_request_id', :'q_generation'),
  '55P03', null, 'quiesce gives up after lock_timeout while another session holds the community lock');
select throws_like(format($$ select community_deletion.begin_quiescing(%L, 'executor-1', %s) $$, :'q_request_id', :'q_generation'),
  '%held by pid ' || tests.fx_pid('mallory') || ' (role ' || current_user || ', application mallory-psql)%',
  'the failure names the holder: pid, role and application');
select throws_ok(format($$ select community_deletion.abort(%L, 'carol', 'rescue') $$, :'q_request_id'),
  '55P03', null, 'abort gives up too');
select is((select deletion_state from public.communities where id = :'q_community_id'), 'active',
  'nothing changed');
select * from dblink('mallory', format('select pg_advisory_unlock(%s)::text', :'q_key')) as t(x text);
select lives_ok(format($$ select community_deletion.begin_quiescing(%L, 'executor-1', %s) $$, :'q_request_id', :'q_generation'),
  'once the lock is released, quiesce proceeds');

-- A writer's session keeps its own lock_timeout.
set local lock_timeout = '17s';
select tests.seed_community('writer.example', 1) as w \gset
insert into public.pubkey_allowlist (community_id, pubkey) values (:'w', 'writer');
select is(current_setting('lock_timeout'), '17s', 'the write fence leaves the writer''s lock_timeout alone');

select dblink_disconnect('mallory');
select * from finish();
rollback;
