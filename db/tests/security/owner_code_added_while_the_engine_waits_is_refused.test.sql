-- begin_quiescing and fence validate the catalog, then lock the community's
-- row, then update public.communities. A trigger added in between — while the
-- engine waits for the row — would run as the engine owner if only the
-- validation had looked. _refuse_invoker_code checks again right before the
-- UPDATE, under ROW EXCLUSIVE, so it is refused (DL7C1) and never runs.
-- Made deterministic with real sessions: 'holder' locks the community's row,
-- 'engine' runs the step and is seen waiting for that row (after its
-- validation), 'ddl' commits the trigger, then 'holder' lets go.
-- Where the engine's event triggers are installed (a superuser's install),
-- the DDL also takes the schema/destruction lock and waits for the engine's
-- step to end; on a managed server there are none (docs/managed.md), and
-- this re-check is what stands. So the event triggers are disabled here.
-- Committed setup (this database is a private clone): no event triggers, the
-- owner role (named after this database, dropped at the end), its trigger
-- function, two claimed requests, a lock timeout long enough for any machine.
select 'cd_wait_owner_' || substr(md5(current_database()), 1, 10) as owner_role \gset
\ir ../fixtures/destruction.sql
\ir ../fixtures/fence.sql
create role :"owner_role" nologin;
select format('alter event trigger %I disable', evtname) from pg_event_trigger where evtname like '\_1%' \gexec
create sequence public.owner_code_calls;
grant usage on sequence public.owner_code_calls to public;
create function public.owner_late_trigger() returns trigger language plpgsql as $$
begin
  perform nextval('public.owner_code_calls');
  return new;
end $$;
alter function public.owner_late_trigger() owner to :"owner_role";
update community_deletion.settings set lock_timeout = interval '10 minutes';

select tests.seed_community('late-quiesce.example', 1) as quiesce_community \gset
select tests.seed_community('late-fence.example', 1) as fence_community \gset
create function pg_temp.claimed(p_host text) returns table (request_id uuid, generation bigint) language plpgsql as $$
declare
  v_request community_deletion.requests;
begin
  v_request := community_deletion.submit(p_host, 'alice@ops', 'late code test');
  v_request := community_deletion.freeze_inventory(v_request.id, tests.dx_empty_summary(v_request.community_id), tests.store_identity());
  perform tests.approve(v_request.id, 'bob@ops');
  return query select v_request.id, c.lease_generation from community_deletion.claim('executor-1', v_request.id, 3600) c;
end $$;
select request_id as quiesce_request, generation as quiesce_generation from pg_temp.claimed('late-quiesce.example') \gset
select request_id as fence_request, generation as fence_generation from pg_temp.claimed('late-fence.example') \gset
select community_deletion.begin_quiescing(:'fence_request', 'executor-1', :fence_generation);

-- No enclosing transaction: each statement here commits, so this session
-- holds no lock on public.communities while 'ddl' drops the trigger.
select plan(10);

-- The async result on p_conn, or its error as 'SQLSTATE: message'; either
-- way the connection is drained for the next query.
create function pg_temp.remote_result(p_conn text) returns text language plpgsql as $$
declare
  v text;
begin
  begin
    v := tests.fx_result(p_conn);
  exception when others then
    v := sqlstate || ': ' || sqlerrm;
    perform * from dblink_get_result(p_conn, false) as t(r text);
  end;
  return v;
end $$;

select tests.fx_connect('holder');
select tests.fx_connect('engine');
select tests.fx_connect('ddl');
select tests.fx_pid('engine') as engine_pid \gset

-- One step under the race: 'holder' locks p_community's row, 'engine' runs
-- p_step (begin_quiescing or fence) for the request, and once it is seen
-- waiting for the row (its validation passed), 'ddl' commits the owner's
-- UPDATE trigger on public.communities; then 'holder' lets go. Returns
-- whether the engine waited, what CREATE TRIGGER said and the engine's
-- result ('SQLSTATE: message' on an error); drops the trigger again.
create function pg_temp.late_trigger_race(p_step text, p_community uuid, p_request uuid, p_generation bigint, p_engine_pid integer)
  returns table (waited boolean, created text, result text) language plpgsql as $$
begin
  perform dblink_exec('holder', 'begin');
  perform count(*) from dblink('holder', format('select 1 from public.communities where id = %L for update', p_community)) as t(x integer);
  perform dblink_send_query('engine', format('select community_deletion.%I(%L, %L, %s)::text', p_step, p_request, 'executor-1', p_generation));
  waited := tests.awaits_lock(p_engine_pid);
  created := dblink_exec('ddl', 'create trigger zz_late_update before update on public.communities for each row execute function public.owner_late_trigger()');
  perform dblink_exec('holder', 'commit');
  result := pg_temp.remote_result('engine');
  perform dblink_exec('ddl', 'drop trigger zz_late_update on public.communities');
  return next;
end $$;

-- begin_quiescing.
select * from pg_temp.late_trigger_race('begin_quiescing', :'quiesce_community', :'quiesce_request', :quiesce_generation, :engine_pid) \gset quiesce_
select ok(:'quiesce_waited'::boolean, 'begin_quiescing has validated the catalog and waits for the community''s row');
select is(:'quiesce_created'::text, 'CREATE TRIGGER',
  'meanwhile another session adds an owner''s UPDATE trigger to public.communities (nothing stops it)');
select matches(:'quiesce_result'::text,
  '^DL7C1: .*public\.communities.*trigger zz_late_update runs public\.owner_late_trigger\(\)',
  'begin_quiescing re-checks right before its UPDATE and refuses (DL7C1, naming the trigger)');
select is((select deletion_state from public.communities where id = :'quiesce_community'), 'active',
  'the community is still active');
select is((select is_called from public.owner_code_calls), false, 'the owner''s trigger never ran');

-- fence (the community is quiescing).
select * from pg_temp.late_trigger_race('fence', :'fence_community', :'fence_request', :fence_generation, :engine_pid) \gset fence_
select ok(:'fence_waited'::boolean, 'fence has validated the catalog and waits for the community''s row');
select is(:'fence_created'::text, 'CREATE TRIGGER', 'meanwhile the owner''s trigger is added');
select matches(:'fence_result'::text,
  '^DL7C1: .*public\.communities.*trigger zz_late_update runs public\.owner_late_trigger\(\)',
  'fence re-checks right before its UPDATE and refuses (DL7C1)');
select is((select deletion_state from public.communities where id = :'fence_community'), 'quiescing',
  'the community is still quiescing, not fenced');
select is((select is_called from public.owner_code_calls), false, 'the owner''s trigger never ran');

select dblink_disconnect('holder');
select dblink_disconnect('engine');
select dblink_disconnect('ddl');
select * from finish();
drop trigger if exists zz_late_update on public.communities;
drop function public.owner_late_trigger();
drop role :"owner_role";
