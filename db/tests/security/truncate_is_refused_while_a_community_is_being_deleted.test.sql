-- TRUNCATE fires no row trigger, so the statement fence never sees it. A
-- registered scoped table refuses TRUNCATE (55000) while any community that is
-- not active — quiescing, fenced, a tombstone — has rows in it; with only
-- active communities the host's TRUNCATE goes ahead. The race with a
-- community entering quiescing is ordered by a table lock: begin_quiescing
-- waits for a TRUNCATE in progress, and a TRUNCATE after it sees quiescing.
-- Runs on both fence implementations. Committed setup, real sessions (dblink).
\ir ../fixtures/fence.sql
select tests.seed_community('trunc-active.example', 1) as active \gset
select tests.seed_community('trunc-target.example', 1) as target \gset
select * from tests.fx_claimed('trunc-race.example') \gset claim_

begin;
select plan(10);

savepoint s;
select lives_ok($$ truncate public.pubkey_allowlist $$, 'with only active communities, TRUNCATE goes ahead');
rollback to savepoint s;

savepoint s;
select tests.fx_force_state(:'target', 'fenced', 1);
select throws_ok($$ truncate public.pubkey_allowlist $$, '55000', null, 'a fenced community''s rows stop a TRUNCATE');
select throws_ok($$ truncate public.pubkey_allowlist, public.users cascade $$, '55000', null, 'also among several tables');
select tests.fx_force_state(:'target', 'quiescing', 0);
select throws_ok($$ truncate public.pubkey_allowlist $$, '55000', null, 'so do a quiescing community''s rows');
select tests.fx_force_state(:'target', 'tombstone', 1);
select throws_ok($$ truncate public.pubkey_allowlist $$, '55000', null, 'and rows left behind for a tombstone');
set local role community_deletion_app;
select throws_ok($$ truncate public.pubkey_allowlist $$, '42501', null, 'the application role may not TRUNCATE at all');
reset role;
select tests.lc_force(format('delete from public.pubkey_allowlist where community_id = %L', :'target'));
select lives_ok($$ truncate public.pubkey_allowlist $$, 'once the non-active community has no rows there, TRUNCATE goes ahead');
rollback to savepoint s;

-- The race: a TRUNCATE in progress, then quiescing.
select tests.fx_connect('truncator');
select tests.fx_connect('executor');
select tests.fx_pid('executor') as executor_pid \gset
select dblink_exec('truncator', 'begin');
select dblink_exec('truncator', 'truncate public.pubkey_allowlist');
select dblink_send_query('executor', format('select tests.fx_sqlstate(%L)', format(
  'select community_deletion.begin_quiescing(%L, %L, %s)', :'claim_request_id', 'executor-1', :'claim_generation')));
select ok(tests.awaits_lock(:executor_pid, 'relation'), 'begin_quiescing waits for the TRUNCATE in progress');
select dblink_exec('truncator', 'commit');
select is(tests.fx_result('executor'), '00000', 'then quiesces');
select throws_ok($$ truncate public.users cascade $$, '55000', null,
  'and a TRUNCATE after it sees the quiescing community''s rows');

select dblink_disconnect('truncator');
select dblink_disconnect('executor');
select * from finish();
rollback;
