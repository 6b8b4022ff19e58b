-- A temporary object named like a built-in must never steer an engine
-- function. PostgreSQL resolves unqualified TYPE names through the session's
-- temporary schema first unless search_path lists pg_temp explicitly after
-- pg_catalog; a client who may create temporary objects (every role) could
-- plant e.g. a pg_temp.text domain whose CHECK runs its own code — inside a
-- security-definer function, as the engine owner. Every engine function pins
-- search_path = pg_catalog, pg_temp (or, for three inlined SQL helpers, names
-- every type schema-qualified).
--
-- For each client role (application, operator, executor), a fresh session
-- (PL/pgSQL resolves a function's names when the session first runs it) in
-- which the role first plants domains named like the built-in types the
-- engine uses, functions named like built-ins and an operator; then a whole
-- deletion runs there (every stage function, the fence on writes, serving
-- leases, abort, unblock, inspection, catalog checks), partly as that role.
-- A spy records every use of a planted object: it must record nothing. The
-- last session shows the spy does see an unpinned function.
-- Committed setup (this database is a private clone), real sessions (dblink).
\ir ../fixtures/destruction.sql
\ir ../fixtures/fence.sql

create table tests.spy_log (session text, who text, what text);
grant insert, select on tests.spy_log to public;
grant usage on schema tests to public;
grant usage on schema tests to community_deletion_app, community_deletion_operator, community_deletion_executor;
grant execute on all functions in schema tests to community_deletion_app, community_deletion_operator, community_deletion_executor;

-- Plants, in the calling session and as the current role, temporary
-- look-alikes of the types, functions and an operator the engine names
-- without a schema, and the spy they all report to.
create function tests.plant(p_session text) returns void language plpgsql
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_type text;
begin
  execute format('create function pg_temp.spy(p_what pg_catalog.text) returns pg_catalog.bool language sql as %L',
                 format('insert into tests.spy_log values (%L, current_user, p_what) returning true', p_session));
  foreach v_type in array array['text', 'uuid', 'jsonb', 'json', 'timestamptz', 'bytea', 'regclass', 'regprocedure',
                                'regnamespace', 'regtype', 'name', 'xid8', 'int8', 'int4', 'int2', 'bool', 'numeric',
                                'float8', 'varchar', 'bpchar', 'oid', 'interval', 'timestamp', 'date'] loop
    execute format('create domain pg_temp.%I as pg_catalog.%I check (pg_temp.spy(%L))', v_type, v_type, 'domain ' || v_type);
  end loop;
  create function pg_temp.now() returns pg_catalog.timestamptz language sql
    as $f$ select pg_catalog.now() where pg_temp.spy('now()') $f$;
  create function pg_temp.btrim(pg_catalog.text) returns pg_catalog.text language sql
    as $f$ select $1 where pg_temp.spy('btrim()') $f$;
  create function pg_temp.jsonb_build_object(variadic pg_catalog.text[]) returns pg_catalog.jsonb language sql
    as $f$ select '{}'::pg_catalog.jsonb where pg_temp.spy('jsonb_build_object()') $f$;
  create function pg_temp.text_eq(pg_catalog.text, pg_catalog.text) returns pg_catalog.bool language sql
    as $f$ select pg_temp.spy('operator =') and pg_catalog.texteq($1, $2) $f$;
  create operator pg_temp.= (leftarg = pg_catalog.text, rightarg = pg_catalog.text, function = pg_temp.text_eq);
end;
$$;

-- One whole deletion (and the refusal paths around it); the parts a client
-- role calls run as that role. The test's own code (this function and the
-- fixtures it calls) resolves names with pg_catalog first, so whatever the
-- spy records came from an engine function.
create function tests.exercise(p_host text) returns void language plpgsql
  set search_path = pg_catalog, pg_temp
as $$
declare
  t record;
  v_lease community_deletion.serving_write_leases;
  v_other uuid;
begin
  -- the application: ordinary writes through the fence, serving leases
  v_other := tests.seed_community('other-' || p_host, 1);
  execute 'set local role community_deletion_app';
  insert into public.pubkey_allowlist (community_id, pubkey) values (v_other, 'planted-' || p_host);
  update public.pubkey_allowlist set pubkey = pubkey || '-x' where community_id = v_other;
  perform community_deletion.community_write_allowed(v_other);
  perform community_deletion.assert_community_write_allowed(v_other);
  perform community_deletion.validate_serving_catalog();
  v_lease := community_deletion.acquire_serving_lease(v_other, 'upload', 'relay-1', 60);
  perform community_deletion.renew_serving_lease(v_lease.id, 'relay-1', v_lease.generation, v_lease.fence_generation, 60);
  perform community_deletion.verify_serving_lease(v_lease.id, 'relay-1', v_lease.generation, v_lease.fence_generation);
  perform community_deletion.release_serving_lease(v_lease.id, 'relay-1', v_lease.generation, v_lease.fence_generation);
  execute 'reset role';

  -- operator and executor: the whole lifecycle (the fixtures call the real API)
  select * into t from tests.dx_fenced_request(p_host, 1);
  execute 'set local role community_deletion_app';
  begin
    insert into public.pubkey_allowlist (community_id, pubkey) values (t.community_id, 'refused');
    raise exception 'the fence let a write through';
  exception when sqlstate '55000' then null;
  end;
  execute 'reset role';
  perform tests.dx_to_bindings_removed(t.request_id, t.owner, t.generation, t.fence_generation, t.community_id);
  execute 'set local role community_deletion_executor';
  perform community_deletion.verify_token(t.request_id, t.owner, t.generation, 'bindings_removed');
  perform * from community_deletion.lease_state(t.request_id, t.owner, t.generation);
  perform community_deletion.heartbeat(t.request_id, t.owner, t.generation, 'run', 3600, false);
  perform community_deletion.purge_postgres(t.request_id, t.owner, t.generation, t.fence_generation);
  perform community_deletion.mark_cache_purged(t.request_id, t.owner, t.generation, t.fence_generation, '{}');
  perform community_deletion.verify_postgres_absence(t.request_id, t.owner, t.generation, t.fence_generation);
  perform community_deletion.mark_logically_verified(t.request_id, t.owner, t.generation, t.fence_generation, '{}');
  perform community_deletion.mark_retention_pending(t.request_id, t.owner, t.generation, t.fence_generation, '{}');
  perform community_deletion.executor_stopped(t.owner);
  execute 'reset role';

  -- the operator: inspection, catalog checks, block → unblock → abort, retries
  execute 'set local role community_deletion_operator';
  perform community_deletion.inspect(t.request_id);
  perform * from community_deletion.request_status(t.request_id);
  perform * from community_deletion.request_checkpoints(t.request_id);
  perform * from community_deletion.list_requests(10);
  perform community_deletion.validate_catalog();
  perform * from community_deletion.storage_taxonomy_rules();
  perform community_deletion.serving_lease_stats();
  perform community_deletion.reap_serving_leases(10);
  execute 'reset role';
  select * into t from tests.dx_fenced_request('aborted-' || p_host, 1);
  execute 'set local role community_deletion_executor';
  perform community_deletion.block(t.request_id, t.owner, t.generation, 'fenced', 'probe', 'permanent');
  execute 'set local role community_deletion_operator';
  perform community_deletion.unblock(t.request_id, 'carol', 'remediated');
  perform community_deletion.abort(t.request_id, 'carol', 'changed our mind');
  execute 'reset role';
  select * into t from tests.dx_fenced_request('retried-' || p_host, 1);
  execute 'set local role community_deletion_executor';
  perform community_deletion.record_failure(t.request_id, t.owner, t.generation, 'fenced', 'probe', 'transient');
  execute 'reset role';
end;
$$;

-- Function the last session runs to prove the spy sees an unpinned lookup.
create function tests.unpinned_probe() returns text language plpgsql set search_path = '' as $$
declare
  v text := 'probe';
begin
  return v;
end;
$$;
grant execute on function tests.unpinned_probe() to public;

-- Runs, in a fresh session, plant (as p_role) then p_work (as the superuser).
create function tests.in_fresh_session(p_session text, p_role text, p_work text) returns text language plpgsql as $$
declare
  v_result text;
begin
  perform tests.fx_connect(p_session);
  perform dblink_exec(p_session, format('set role %I', p_role));
  perform * from dblink(p_session, format('select tests.plant(%L)::text', p_session)) as t(x text);
  perform dblink_exec(p_session, 'reset role');
  select t.r into v_result from dblink(p_session, format('select tests.fx_sqlstate(%L)', p_work)) as t(r text);
  perform dblink_disconnect(p_session);
  return v_result;
end;
$$;

begin;
select plan(6);

select is(tests.in_fresh_session('app', 'community_deletion_app', $$ select tests.exercise('app.example') $$),
  '00000', 'a whole deletion runs in a session where the application role planted look-alikes');
select is(tests.in_fresh_session('operator', 'community_deletion_operator', $$ select tests.exercise('operator.example') $$),
  '00000', 'a whole deletion runs in a session where the operator role planted look-alikes');
select is(tests.in_fresh_session('executor', 'community_deletion_executor', $$ select tests.exercise('executor.example') $$),
  '00000', 'a whole deletion runs in a session where the executor role planted look-alikes');
select is_empty($$ select session, who, what from tests.spy_log where session in ('app', 'operator', 'executor') $$,
  'no planted object was used by any engine function');

select is(tests.in_fresh_session('probe', 'community_deletion_app', $$ select tests.unpinned_probe() $$),
  '00000', 'a function with search_path '''' runs in a planted session');
select isnt_empty($$ select 1 from tests.spy_log where session = 'probe' and what = 'domain text' $$,
  'and the spy sees it resolve text to the planted domain (the check can fail)');

select * from finish();
rollback;
