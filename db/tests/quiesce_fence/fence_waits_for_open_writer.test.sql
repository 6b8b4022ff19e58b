-- docs/design.md#ordering: a writer holds the community lock shared until it commits; quiesce
-- and fence take it exclusively, so each orders after every write that started
-- first. After the fence, the next write is refused (55000). Real concurrent
-- sessions (dblink); the setup is committed (own database per file).
\ir ../fixtures/fence.sql
select * from tests.fx_claimed('open-writer.example', 'executor-1') \gset
select (l).id as lease_id, (l).generation as lease_gen, (l).fence_generation as lease_fence
  from (select community_deletion.acquire_serving_lease(:'community_id', 'media_upload', 'relay-1', 600) as l) x \gset

set statement_timeout = '120s';
begin;
select plan(11);
select tests.fx_connect('writer');
select tests.fx_connect('exec');
select tests.fx_pid('exec') as exec_pid \gset

-- 1. An ordinary writer is open when quiesce starts.
-- (An UPDATE that leaves community_id alone takes no row lock on communities:
-- only the advisory lock orders it against quiesce.)
select dblink_exec('writer', 'begin');
select dblink_exec('writer', format(
  $$ update public.users set display_name = 'open-writer' where community_id = %L $$, :'community_id'));
select dblink_send_query('exec', format('select tests.fx_sqlstate(%L)',
  format('select community_deletion.begin_quiescing(%L, %L, %s)', :'request_id', 'executor-1', :generation)));
select ok(tests.fx_waits_for_lock(:exec_pid), 'quiesce waits for the community advisory lock held by the open writer');
select is((select deletion_state from public.communities where id = :'community_id'), 'active',
  'while the writer is open the community is still active');
select dblink_exec('writer', 'commit');
select is(tests.fx_result('exec'), '00000', 'after the writer commits, quiesce completes');
select ok(exists (select 1 from public.users where community_id = :'community_id' and display_name = 'open-writer'),
  'the write that started first committed');

-- 2. An admitted serving writer finishes its final mutation (guard, write,
--    release, one transaction) while the fence is already waiting.
select dblink_exec('writer', 'begin');
select * from dblink('writer', format($$ select community_deletion.guard_serving_write(%L, 'relay-1', %s, %s)::text $$,
  :'lease_id', :lease_gen, :lease_fence)) as t(x text);
select dblink_exec('writer', format(
  $$ update public.users set display_name = 'final-upload' where community_id = %L $$, :'community_id'));
select * from dblink('writer', format($$ select community_deletion.release_serving_lease(%L, 'relay-1', %s, %s)::text $$,
  :'lease_id', :lease_gen, :lease_fence)) as t(x text);
select dblink_send_query('exec', format('select tests.fx_sqlstate(%L)',
  format('select community_deletion.fence(%L, %L, %s)', :'request_id', 'executor-1', :generation)));
select ok(tests.fx_waits_for_lock(:exec_pid), 'the fence waits for the open guarded writer');
select is((select deletion_state from public.communities where id = :'community_id'), 'quiescing',
  'while it is open the community is still quiescing');
select dblink_exec('writer', 'commit');
select is(tests.fx_result('exec'), '00000', 'after the writer commits (lease released), the fence completes');
select ok(exists (select 1 from public.users where community_id = :'community_id' and display_name = 'final-upload'),
  'the admitted final write committed before the fence');
select is((select (deletion_state, deletion_fence_generation)::text from public.communities where id = :'community_id'),
  '(fenced,1)', 'the community is fenced at generation 1');

-- 3. Afterwards every write is refused.
select is((select t.s from dblink('writer', format('select tests.fx_sqlstate(%L)', format(
  $$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'too-late') $$, :'community_id'))) as t(s text)),
  '55000', 'the next write by the same writer is refused (55000)');
select is((select t.s from dblink('writer', format('select tests.fx_sqlstate(%L)', format(
  $$ select community_deletion.acquire_serving_lease(%L, 'upload', 'late') $$, :'community_id'))) as t(s text)),
  'DL5S1', 'a serving-write lease is refused after the fence (DL5S1)');

select dblink_disconnect('writer');
select dblink_disconnect('exec');
select * from finish();
rollback;
