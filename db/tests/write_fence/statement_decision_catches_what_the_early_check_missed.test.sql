-- The early row check is only an early refusal: it takes no lock, and later
-- BEFORE ROW triggers run after it. The statement-level decision — the lock,
-- then a fresh lookup of every community in the rows actually written — is
-- what holds:
--   * a community that stops being active while a statement that already
--     passed the early check is still running (real sessions) is caught at the
--     end of the statement, and none of its rows survives;
--   * a later BEFORE ROW trigger that moves a row into a fenced community
--     after the early check is judged by the row it finally wrote.
-- Committed setup (a clone per file), then real concurrent sessions (dblink).
\ir ../fixtures/fence.sql
select tests.seed_community('mid-statement.example', 1) as c \gset
grant usage on schema tests to community_deletion_app;
grant execute on all functions in schema tests to community_deletion_app;

set statement_timeout = '120s';
begin;
select plan(6);
select tests.fx_connect('writer');
select tests.fx_connect('admin');

-- Row 1 passes the early check at once; row 2 is produced only once the
-- 'admin' session releases a test lock, so the statement is provably still
-- running (the writer is queued on that lock) when the community changes.
select * from dblink('admin', 'select pg_advisory_lock(4242)::text') as t(x text);
select tests.fx_pid('writer') as writer_pid \gset
select dblink_exec('writer', 'set role community_deletion_app');
select dblink_send_query('writer', format('select tests.fx_sqlstate(%L)', format(
  $$ insert into public.pubkey_allowlist (community_id, pubkey)
     select %L, 'mid-' || g from generate_series(1, 2) g
      where g = 1 or (select true from pg_advisory_xact_lock_shared(4242)) $$, :'c')));
select ok(tests.fx_waits_for_lock(:writer_pid), 'the statement is under way (row 1 written, row 2 waiting)');
-- Meanwhile the community stops being active (committed by another session).
select * from dblink('admin', format('select tests.fx_force_state(%L, %L, 0)::text', :'c', 'quiescing')) as t(x text);
select * from dblink('admin', 'select pg_advisory_unlock(4242)::text') as t(x text);
select is(tests.fx_result('writer'), '55000',
  'a statement whose community left active after its early check is refused at its end');
select is((select count(*)::int from public.pubkey_allowlist where community_id = :'c' and pubkey like 'mid-%'), 0,
  'none of its rows survives');
select * from dblink('admin', format('select tests.fx_force_state(%L, %L, 0)::text', :'c', 'active')) as t(x text);
select lives_ok(format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'after') $$, :'c'),
  'the community, active again, accepts writes');

-- A later BEFORE ROW trigger moves the row after the early check passed it.
select tests.seed_community('mover-fenced.example', 1) as f \gset
select tests.fx_force_state(:'f', 'fenced', 1);
create function tests.move_row() returns trigger language plpgsql
as $$ begin new.community_id := current_setting('tests.move_to')::uuid; return new; end $$;
create trigger _020_tests_move_row before insert on public.pubkey_allowlist
  for each row when (new.pubkey = 'move-me') execute function tests.move_row();
select set_config('tests.move_to', :'f', true);
set local role community_deletion_app;
select throws_ok(format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'move-me') $$, :'c'),
  '55000', null, 'a row moved into a fenced community by a later trigger is refused');
reset role;
select is((select count(*)::int from public.pubkey_allowlist where pubkey = 'move-me'), 0, 'the moved row was not written');

select dblink_disconnect('writer');
select dblink_disconnect('admin');
select * from finish();
rollback;
