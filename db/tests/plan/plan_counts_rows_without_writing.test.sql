-- community_deletion.plan(host): what a deletion would remove from
-- PostgreSQL, read-only. Per registered table (provenance first, then the
-- scoped tables in purge order, children before parents) the target's rows —
-- never a bystander's; an unknown host is refused (DL1N2), a tombstone is
-- refused clearly (DL2C1); it creates no request, writes nothing (no
-- transaction id is assigned) and is granted to operators.
begin;
\ir ../fixtures/fence.sql
select plan(18);

select tests.seed_community('Target.Example', 3) as c \gset
select tests.seed_community('bystander.example', 5) as b \gset
select tests.seed_community('gone.example', 1) as g \gset
select tests.fx_force_state(:'g', 'tombstone', 2);
-- An extra row of the target in one table: counts are per table, not a constant.
insert into public.reactions (community_id, event_id, pubkey, content)
  select community_id, event_id, pubkey, '-' from public.reactions where community_id = :'c' limit 1;

select community_deletion.plan('  target.EXAMPLE ') as p \gset

select is(:'p'::jsonb ->> 'community_id', :'c', 'the host resolves case-insensitively, as submit does');
select is(:'p'::jsonb ->> 'deletion_state', 'active', 'the plan names the community''s lifecycle state');
select is(:'p'::jsonb -> 'open_request', 'null'::jsonb, 'no open request');

-- Every scoped and provenance table is listed, each with the target's rows as counted directly.
select set_eq(
  $$ select t ->> 'table', (t ->> 'rows')::bigint from jsonb_array_elements((select community_deletion.plan('target.example')) -> 'tables') t
      where t ->> 'kind' = 'scoped' $$,
  format($$ select table_name, row_count from tests.scoped_row_counts(%L) $$, :'c'),
  'per scoped table: exactly the target''s rows');
select is((select (t ->> 'rows')::bigint from jsonb_array_elements(:'p'::jsonb -> 'tables') t where t ->> 'table' = 'reactions'),
  4::bigint, 'an extra row is counted (3 seeded + 1)');
select is((:'p'::jsonb ->> 'rows_to_delete')::bigint,
  (select sum(row_count)::bigint from tests.scoped_row_counts(:'c')), 'rows_to_delete is the sum over the scoped tables');
select set_eq(
  $$ select t ->> 'table' from jsonb_array_elements((select community_deletion.plan('target.example')) -> 'tables') t $$,
  $$ select community_deletion._table_label(schema_name, table_name) from community_deletion.registered_tables where kind in ('scoped', 'provenance') $$,
  'every scoped and provenance table is listed, no excluded one');
select ok((select bool_and((t ->> 'rows')::bigint > 0) from jsonb_array_elements(:'p'::jsonb -> 'tables') t where t ->> 'kind' = 'provenance')
          and (:'p'::jsonb ->> 'rows_to_unlink')::bigint > 0,
  'provenance rows are counted (their community column is nulled, rows kept)');

-- Purge order: provenance first, then scoped by purge_order (the order _purge_batch deletes in).
select is(
  (select array_agg(t ->> 'table' order by o) from jsonb_array_elements(:'p'::jsonb -> 'tables') with ordinality x(t, o)),
  (select array_agg(l order by phase, po, l collate "C")
     from (select case kind when 'provenance' then 1 else 2 end as phase, coalesce(purge_order, 0) as po,
                  community_deletion._table_label(schema_name, table_name) as l
             from community_deletion.registered_tables where kind in ('scoped', 'provenance')) r),
  'tables come in purge order: provenance, then scoped by purge_order');
select ok(
  (select min(o) filter (where t ->> 'table' = 'reactions') < min(o) filter (where t ->> 'table' = 'events')
     from jsonb_array_elements(:'p'::jsonb -> 'tables') with ordinality x(t, o)),
  'children before parents: reactions before events');

-- The bystander's rows are not in the target's plan, and its own plan counts only its own.
select is((select (t ->> 'rows')::bigint from jsonb_array_elements(community_deletion.plan('bystander.example') -> 'tables') t where t ->> 'table' = 'reactions'),
  5::bigint, 'the bystander''s plan counts its own rows only');

select throws_ok($$ select community_deletion.plan('nowhere.example') $$, 'DL1N2', null, 'an unknown host is refused');
select throws_ok($$ select community_deletion.plan('gone.example') $$, 'DL2C1',
  format('community gone.example (%s) was deleted at %s: it is a tombstone, there is nothing left to delete',
         :'g', (select deleted_at from public.communities where id = :'g')),
  'a tombstone is refused, saying it was deleted');
select throws_ok($$ select community_deletion.plan('  ') $$, 'DL1I1', null, 'a blank host is refused');

-- Nothing written: plan() in a fresh transaction assigns no transaction id and creates no request.
commit;
begin;
select community_deletion.plan('target.example') \g /dev/null
select is(txid_current_if_assigned(), null, 'plan writes nothing: no transaction id was assigned');
select is((select count(*)::int from community_deletion.requests), 0, 'plan creates no request');
select ok(has_function_privilege('community_deletion_operator', 'community_deletion.plan(text)', 'execute'),
  'plan is granted to operators');
-- (Volatile only to lock: it checks the registered tables for code the
-- planner would run as the engine under SHARE UPDATE EXCLUSIVE,
-- security/owner_code_never_runs_as_the_engine.)
select is((select count(*)::int from community_deletion.registered_tables t
            where t.kind in ('scoped', 'provenance')
              and not exists (select 1 from pg_locks l
                               where l.pid = pg_backend_pid() and l.locktype = 'relation' and l.granted
                                 and l.relation = format('%I.%I', t.schema_name, t.table_name)::regclass
                                 and l.mode = 'ShareUpdateExclusiveLock')),
  0,
  'the registered tables are held SHARE UPDATE EXCLUSIVE (no read or write waits for it)');
select * from finish();
rollback;
