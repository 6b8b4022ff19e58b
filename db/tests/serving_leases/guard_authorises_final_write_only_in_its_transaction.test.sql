-- community_deletion.guard_serving_write authorises the final database mutation of an
-- admitted serving effect while the community is quiescing: only in the
-- transaction that called it, only for the lease's community, only at the
-- lease's fence generation. The authorisation is a row only the engine can
-- write (keyed by the transaction id), not a setting a client could forge.
-- Real sessions acting as the application role (dblink); committed setup.
\ir ../fixtures/fence.sql
select tests.seed_community('q.example', 1) as q \gset
select tests.seed_community('q2.example', 1) as q2 \gset
select tests.seed_community('active.example', 1) as a \gset
select (l).id as lease_id, (l).generation as g, (l).fence_generation as fg
  from (select community_deletion.acquire_serving_lease(:'q', 'media_upload', 'relay-1') as l) x \gset
select (community_deletion.acquire_serving_lease(:'a', 'media_upload', 'relay-1')).id as a_lease \gset
select tests.fx_force_state(:'q', 'quiescing');
select tests.fx_force_state(:'q2', 'quiescing');
-- The sessions below run as the application role and need the test helpers.
grant usage on schema tests to community_deletion_app;
grant execute on all functions in schema tests to community_deletion_app;

set statement_timeout = '120s';
begin;
select plan(11);
select tests.fx_connect('app1');
select tests.fx_connect('app2');
select tests.fx_connect('admin');
select dblink_exec('app1', 'set role community_deletion_app');
select dblink_exec('app2', 'set role community_deletion_app');

create function pg_temp.run(p_conn text, variadic p_sql text[]) returns text language sql as $$
  select t.s from dblink(p_conn, 'select ' || (select string_agg(format('tests.fx_sqlstate(%L)', x), $q$ || ',' || $q$)
                                               from unnest(p_sql) x)) as t(s text)
$$;

select is(pg_temp.run('app1',
  format($$ select community_deletion.guard_serving_write(%L, 'relay-1', %s, %s) $$, :'lease_id', :g, :fg),
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'final-write') $$, :'q')),
  '00000,00000', 'guard, then the final write to the quiescing community, in one transaction: admitted');
select ok(exists (select 1 from public.pubkey_allowlist where community_id = :'q' and pubkey = 'final-write'),
  'the guarded write committed');

select is(pg_temp.run('app2',
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'unguarded') $$, :'q')),
  '55000', 'another transaction without the guard is refused');
select is(pg_temp.run('app1',
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'next-transaction') $$, :'q')),
  '55000', 'the authorisation does not outlive its transaction (same session, next transaction)');
select is(pg_temp.run('app1',
  format($$ select community_deletion.guard_serving_write(%L, 'relay-1', %s, %s) $$, :'lease_id', :g, :fg),
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'other-community') $$, :'q2')),
  '00000,55000', 'the authorisation covers only the lease''s community');
select is(pg_temp.run('app1',
  format($$ select community_deletion.guard_serving_write(%L, 'relay-2', %s, %s) $$, :'lease_id', :g, :fg)),
  'DL5S1', 'the guard refuses a lease that is not exactly the caller''s (serving_lease_denied)');
select is(pg_temp.run('app1',
  format($$ select community_deletion.guard_serving_write(%L, 'relay-1', %s, %s) $$, :'a_lease', 1, 0),
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'active-guarded') $$, :'a')),
  '00000,00000', 'on an active community the guard passes and the write proceeds');
select is(pg_temp.run('app1',
  $$ select count(*) from community_deletion.serving_write_grants $$),
  '42501', 'the application role cannot read or write the grants table');

select * from dblink('admin', format('select tests.fx_force_state(%L, %L, 1)::text', :'q', 'fenced')) as t(x text);
select is(pg_temp.run('app1',
  format($$ select community_deletion.guard_serving_write(%L, 'relay-1', %s, %s) $$, :'lease_id', :g, :fg),
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'after-fence') $$, :'q')),
  'DL5S1,55000', 'after the fence the guard refuses and the write is fenced');

select cmp_ok((select count(*)::int from community_deletion.serving_write_grants), '>=', 2,
  'grants of committed transactions remain as inert rows');
select community_deletion.reap_serving_leases(10);
select is((select count(*)::int from community_deletion.serving_write_grants), 0,
  'the reaper prunes grants of finished transactions');

select dblink_disconnect('app1');
select dblink_disconnect('app2');
select dblink_disconnect('admin');
select * from finish();
rollback;
