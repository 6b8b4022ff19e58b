-- The PostgreSQL purge runs in bounded batches (community_deletion.purge_postgres_batch):
-- each call removes at most settings.purge_batch_rows rows (a cost: parent
-- tables' rows weigh more, see batch_budget_is_weighted_by_referencing_foreign_keys) — provenance nulled
-- first, then the scoped tables in purge order — and upserts each table's
-- checkpoint with its running total in the same transaction, so at every
-- point the totals equal what is gone; a batch that does not commit (a crash
-- inside it) changes nothing; finish_postgres_purge refuses until every table
-- is done (DL6P1), then tombstones and advances with the totals; the
-- bystander never changes; old tokens and blocked requests are refused
-- between batches.
begin;
\ir ../fixtures/destruction.sql
select plan(25);

select tests.seed_community('bystander.example', 3) as bystander \gset
select * from tests.dx_fenced_request('target.example', 3) \gset
select tests.dx_to_bindings_removed(:'request_id', :'owner', :'generation', :'fence_generation', :'community_id');
select tests.community_fingerprint(:'bystander') as bystander_before \gset
select sum(row_count)::int as target_rows from tests.scoped_row_counts(:'community_id') \gset
select ((select count(*) from public.product_feedback where community_id = :'community_id')
      + (select count(*) from public.rate_limit_violations where community_id = :'community_id'))::int as provenance_rows \gset
select format('%L, %L, %s, %s', :'request_id', :'owner', :'generation', :'fence_generation') as token \gset
-- The cost budget alone (no time target): batch sizes independent of the machine's speed.
update community_deletion.settings set purge_batch_rows = 7, purge_batch_target = null;

-- Rows gone vs. the checkpoints' running totals.
create function pg_temp.gone_equals_totals(p_request uuid, p_community uuid, p_target_rows int) returns boolean
  language sql as $$
  select p_target_rows - (select coalesce(sum(row_count), 0) from tests.scoped_row_counts(p_community))
       = (select coalesce(sum((detail ->> 'rows')::bigint), 0) from community_deletion.checkpoints
           where request_id = p_request and stage = 'bindings_removed' and unit_key like 'purge:%')
$$;

select ok(:target_rows > 3 * 7, format('the target holds %s scoped rows: several batches', :target_rows));

-- A batch that does not commit changes nothing.
savepoint crash;
select community_deletion.purge_postgres_batch(:'request_id', :'owner', :'generation', :'fence_generation');
select community_deletion.purge_postgres_batch(:'request_id', :'owner', :'generation', :'fence_generation');
rollback to savepoint crash;
select is((select sum(row_count)::int from tests.scoped_row_counts(:'community_id')), :target_rows,
  'batches rolled back (a crash inside them) deleted nothing');
select is((select count(*)::int from community_deletion.checkpoints where request_id = :'request_id' and stage = 'bindings_removed'), 0,
  'and left no checkpoint');

select throws_ok(format('select community_deletion.finish_postgres_purge(%s)', :'token'), 'DL6P1', null,
  'finishing before any batch is refused: purge_pending');

select throws_ok(format('select community_deletion.purge_postgres_batch(%L, %L, %s, %s)',
  :'request_id', :'owner', :'generation'::bigint - 1, :'fence_generation'), 'DL4L1', null, 'an older lease generation runs no batch');
select throws_ok(format('select community_deletion.purge_postgres_batch(%L, %L, %s, %s)',
  :'request_id', :'owner', :'generation', :'fence_generation'::bigint + 1), 'DL4L1', null, 'a wrong fence generation runs no batch');

-- Run the batches one by one, checking each.
create temp table batches (n serial, result jsonb, remaining int, consistent boolean);
select set_config('tests.request_id', :'request_id', true), set_config('tests.owner', :'owner', true),
       set_config('tests.generation', :'generation', true), set_config('tests.fence_generation', :'fence_generation', true),
       set_config('tests.community_id', :'community_id', true), set_config('tests.target_rows', :'target_rows', true);
do $$
declare
  v_result jsonb;
begin
  for i in 1..1000 loop
    v_result := community_deletion.purge_postgres_batch(current_setting('tests.request_id')::uuid, current_setting('tests.owner'),
      current_setting('tests.generation')::bigint, current_setting('tests.fence_generation')::bigint);
    insert into batches (result, remaining, consistent)
    values (v_result,
            (select sum(row_count)::int from tests.scoped_row_counts(current_setting('tests.community_id')::uuid)),
            pg_temp.gone_equals_totals(current_setting('tests.request_id')::uuid, current_setting('tests.community_id')::uuid,
                                       current_setting('tests.target_rows')::int));
    exit when (v_result ->> 'done')::boolean;
    if i = 2 then
      -- Between batches a finish is still refused.
      begin
        perform community_deletion.finish_postgres_purge(current_setting('tests.request_id')::uuid, current_setting('tests.owner'),
          current_setting('tests.generation')::bigint, current_setting('tests.fence_generation')::bigint);
        insert into batches (result) values ('{"finish": "accepted"}');
      exception when sqlstate 'DL6P1' then null;
      end;
    end if;
  end loop;
end $$;

select is((select count(*)::int from batches where result ? 'finish'), 0, 'finish between batches was refused (DL6P1)');
select ok((select bool_and((result ->> 'rows')::int <= 7) from batches), 'no batch removed more than purge_batch_rows rows');
-- The budget is a cost: a scoped row costs 1 + the foreign keys referencing
-- its table, a provenance row 1 (batch_budget_is_weighted_by_referencing_foreign_keys).
create temp table weights as
select community_deletion._table_label(t.schema_name, t.table_name) as label,
       1 + (select count(*) from pg_constraint c
             where c.contype = 'f' and c.confrelid = format('%I.%I', t.schema_name, t.table_name)::regclass)::int as weight
  from community_deletion.registered_tables t where t.kind = 'scoped';
select ok((select bool_and((result ->> 'cost')::int <= greatest(7, (select max(weight) from weights))) from batches where result ? 'cost'),
  'no batch costs more than the budget (or one row of a table heavier than it)');
select is((select sum((result ->> 'cost')::int)::int from batches where result ? 'cost'),
  :provenance_rows + (select sum(((cp.detail ->> 'rows')::int) * w.weight)::int from community_deletion.checkpoints cp
         join weights w on cp.unit_key = 'purge:' || w.label
        where cp.request_id = :'request_id' and cp.stage = 'bindings_removed'),
  'the batches cost, in all, every row times its weight (provenance rows 1)');
select ok((select bool_and(consistent) from batches), 'after every batch the checkpoint totals equal the rows gone');
select is((select max(remaining) filter (where n = 1) from batches), :target_rows - greatest(0, 7 - :provenance_rows),
  'the first batch nulled provenance first, then began the scoped tables');
select ok((select bool_and(a.remaining >= b.remaining) from batches a join batches b on b.n = a.n + 1), 'rows only ever go');
select is((select (result ->> 'purged_rows')::int from batches order by n desc limit 1), :target_rows,
  'the last batch reports every scoped row purged');
select is((select (result ->> 'inventoried_rows')::int from batches order by n desc limit 1), :target_rows,
  'against the rows the frozen inventory counted');
select is((select stage from community_deletion.requests where id = :'request_id'), 'bindings_removed',
  'the batches do not move the stage');
select is((select deletion_state from public.communities where id = :'community_id'), 'fenced',
  'nor tombstone the community');
select is((select count(*)::int from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'bindings_removed' and unit_key like 'purge:%' and status = 'completed'), 28,
  'every scoped table has a completed checkpoint');
select ok((select bool_or(attempts > 1 and (detail ->> 'batches')::int = attempts) from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'bindings_removed' and unit_key like 'purge:%'),
  'a table larger than a batch spans several, counted in its checkpoint');

select is(community_deletion.finish_postgres_purge(:'request_id', :'owner', :'generation', :'fence_generation') -> 'deleted' ->> 'events',
  '4', 'finish returns the totals over every batch (events: 3 plus the read-state row)');
select is((select stage from community_deletion.requests where id = :'request_id'), 'postgres_purged', 'bindings_removed -> postgres_purged');
select is((select deletion_state from public.communities where id = :'community_id'), 'tombstone', 'the community is a tombstone');
select is((select (detail -> 'deleted' ->> 'events')::int from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'bindings_removed' and unit_key = 'postgres_tombstone_committed'),
  4, 'the tombstone checkpoint records the per-table totals');
select throws_ok(format('select community_deletion.purge_postgres_batch(%s)', :'token'), 'DL4L1', null,
  'a batch after the finish is refused');
select is(tests.community_fingerprint(:'bystander'), :'bystander_before', 'the bystander is byte-identical');

select * from finish();
rollback;
