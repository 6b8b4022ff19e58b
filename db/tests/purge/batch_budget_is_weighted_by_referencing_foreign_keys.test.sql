-- The purge batch's budget (settings.purge_batch_rows) is a cost, not a row
-- count: a row of a scoped table costs 1 + the number of foreign keys that
-- reference the table (deleting a parent row runs one check or ON DELETE
-- action per referencing foreign key), a provenance row costs 1. So with a
-- budget of N a batch that starts on a parent table with k referencing
-- foreign keys removes floor(N / (1 + k)) rows of it (at least one, at most
-- ceil(N / (1 + k))), a batch on a table nothing references removes N, and
-- no batch costs more than the budget (or one row of a table heavier than
-- it). Totals and completion stay exact.
begin;
\ir ../fixtures/destruction.sql
select plan(14);

select * from tests.dx_fenced_request('target.example', 30) \gset
select tests.dx_to_bindings_removed(:'request_id', :'owner', :'generation', :'fence_generation', :'community_id');
select sum(row_count)::int as target_rows from tests.scoped_row_counts(:'community_id') \gset
-- The cost budget alone (no time target), so batch sizes do not depend on the
-- machine's speed (batch_is_sized_by_measured_pace covers the time target).
update community_deletion.settings set purge_batch_rows = 22, purge_batch_target = null;

-- Referencing foreign keys per registered table, straight from the catalog.
create temp table weights as
select 'purge:' || community_deletion._table_label(t.schema_name, t.table_name) as unit_key,
       (select count(*) from pg_constraint c
         where c.contype = 'f' and c.confrelid = format('%I.%I', t.schema_name, t.table_name)::regclass)::int as k
  from community_deletion.registered_tables t where t.kind = 'scoped'
union all
-- Nulling a provenance row's community column costs 1, like a row nothing references.
select 'clear_provenance:' || community_deletion._table_label(t.schema_name, t.table_name), 0
  from community_deletion.registered_tables t where t.kind = 'provenance';

select ok((select k from weights where unit_key = 'purge:users') >= 2, 'users is a parent referenced by several foreign keys');
select ok((select k from weights where unit_key = 'purge:events') >= 2, 'events is a parent referenced by several foreign keys');
select is((select k from weights where unit_key = 'purge:audit_log'), 0, 'audit_log is referenced by no foreign key');

-- Run the batches, recording what each one did to every checkpoint.
create temp table touched (n int, unit_key text, rows_before bigint, rows_after bigint, status_after text);
create temp table batch_results (n int, result jsonb);
select set_config('tests.token', format('%L::uuid, %L, %s, %s', :'request_id', :'owner', :'generation', :'fence_generation'), true);
do $$
declare
  v_result jsonb;
begin
  for i in 1..2000 loop
    create temp table before_cp on commit drop as
      select unit_key, coalesce((detail ->> 'rows')::bigint, 0) as rows, status from community_deletion.checkpoints
       where stage = 'bindings_removed';
    execute format('select community_deletion.purge_postgres_batch(%s)', current_setting('tests.token')) into v_result;
    insert into batch_results values (i, v_result);
    insert into touched
      select i, a.unit_key, coalesce(b.rows, 0), (a.detail ->> 'rows')::bigint, a.status
        from community_deletion.checkpoints a left join before_cp b using (unit_key)
       where a.stage = 'bindings_removed' and a.unit_key <> 'postgres_tombstone_committed'
         and (b.unit_key is null or b.rows <> (a.detail ->> 'rows')::bigint or b.status <> a.status);
    drop table before_cp;
    exit when (v_result ->> 'done')::boolean;
  end loop;
end $$;

-- Batches that began on one unit and stopped inside it: their rows are that unit's whole allowance.
create temp view single as
select t.unit_key, t.rows_after - t.rows_before as rows, w.k
  from touched t join weights w using (unit_key)
 where t.status_after = 'started' and (select count(*) from touched o where o.n = t.n) = 1;

select cmp_ok((select count(*)::int from single where unit_key = 'purge:users'), '>', 0, 'some batches ran on users alone');
select is((select max(rows)::int from single where unit_key = 'purge:users'),
  (select greatest(1, 22 / (1 + k)) from weights where unit_key = 'purge:users'),
  'a batch on users removes budget / (1 + its referencing foreign keys) rows');
select ok((select bool_and(rows <= ceil(22.0 / (1 + k))) from single where unit_key in ('purge:users', 'purge:events')),
  'a batch on a parent table never removes more than ceil(budget / (1 + k)) of its rows');
select is((select max(rows)::int from single where unit_key = 'purge:events'),
  (select greatest(1, 22 / (1 + k)) from weights where unit_key = 'purge:events'),
  'a batch on events removes budget / (1 + its referencing foreign keys) rows');
create temp view child_batches as
select t.n, sum(t.rows_after - t.rows_before)::int as rows
  from touched t join weights w using (unit_key)
 group by t.n
-- (stopped inside a table: a later batch removed more of it; a batch that
-- emptied a table and stopped before a heavier one ran out of rows, not budget)
having bool_and(w.k = 0)
   and bool_or(t.status_after = 'started'
               and exists (select 1 from touched o
                            where o.unit_key = t.unit_key and o.n > t.n and o.rows_after > o.rows_before));
select cmp_ok((select count(*)::int from child_batches), '>', 0, 'some batches ran on tables nothing references only');
select ok((select bool_and(rows = 22) from child_batches),
  'such a batch removes the whole budget of rows');

-- Every batch's cost (rows x weight over what it touched) stays within the budget.
select ok((select bool_and(c.cost <= greatest(22, c.heaviest))
             from (select t.n, sum((t.rows_after - t.rows_before) * (1 + w.k)) as cost, max(1 + w.k) as heaviest
                     from touched t join weights w using (unit_key) group by t.n) c),
  'no batch costs more than the budget (or one row of a heavier table)');
select ok((select bool_and((r.result ->> 'cost')::bigint = coalesce(c.cost, 0))
             from batch_results r
             left join (select t.n, sum((t.rows_after - t.rows_before) * (1 + w.k)) as cost
                          from touched t join weights w using (unit_key) group by t.n) c on c.n = r.n),
  'each batch reports its cost: its rows weighted (provenance rows cost 1)');

select is((select (result ->> 'purged_rows')::int from batch_results order by n desc limit 1), :target_rows,
  'the totals still count every scoped row');
select is((select sum(row_count)::int from tests.scoped_row_counts(:'community_id')), 0, 'and every row is gone');
select lives_ok(format('select community_deletion.finish_postgres_purge(%L, %L, %s, %s)',
  :'request_id', :'owner', :'generation', :'fence_generation'), 'and the finish proves it and tombstones');

select * from finish();
rollback;
