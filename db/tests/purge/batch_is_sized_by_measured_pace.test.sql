-- A purge batch is sized by time as well as by cost (settings.purge_batch_target,
-- community_deletion._purge_batch): a unit never measured starts with a
-- probe of 100 rows (10 when the batch has already spent something), every
-- later statement takes what fits in the time left at the unit's measured
-- pace but at most four times its previous statement, a statement that
-- would fit fewer than 100 rows is not started once the batch has spent
-- something (the batch ends), the pace is carried to the next batch in the
-- checkpoint (us_per_row, last_rows), once the time is spent the batch ends,
-- and a batch that has removed nothing yet always moves one row. The cost
-- budget stays a hard cap.
-- Time is made irrelevant to the outcome by its extremes: a target of an hour
-- is never reached, one of a microsecond is spent before the first statement.
begin;
\ir ../fixtures/destruction.sql
select plan(32);

-- The setting.
select is((select pg_get_expr(d.adbin, d.adrelid) from pg_attrdef d
             join pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum
            where d.adrelid = 'community_deletion.settings'::regclass and a.attname = 'purge_batch_target'),
          $$'00:00:00.25'::interval$$, 'purge_batch_target defaults to 250 ms');
select is((select purge_batch_target from community_deletion.settings), interval '250 milliseconds', 'and is 250 ms here');
select throws_ok($$update community_deletion.settings set purge_batch_target = interval '0'$$, '23514', null,
  'a zero target is refused');
select throws_ok($$update community_deletion.settings set purge_batch_target = interval '2 minutes'$$, '23514', null,
  'a target over a minute is refused');
select lives_ok($$update community_deletion.settings set purge_batch_target = null$$, 'null (the cost budget alone) is accepted');
select throws_ok($$select community_deletion._purge_batch(gen_random_uuid(), gen_random_uuid(), 'bindings_removed', 1, 10, interval '-1 second')$$,
  'DL1I1', null, 'a negative target is refused by the batch itself');

-- Three fenced communities at bindings_removed, each with about a thousand audit_log rows
-- (a table nothing references: weight 1) on top of a few rows in every scoped table.
create function pg_temp.pace_request(p_host text) returns table (request_id uuid, community_id uuid, generation bigint, rows_total bigint)
  language plpgsql as $$
declare
  v record;
  c uuid := tests.seed_community(p_host, 2);
begin
  insert into public.audit_log (community_id, actor, action) select c, 'pace', 'seeded' from generate_series(1, 1000);
  select * into v from tests.dx_fence(p_host);
  perform tests.dx_to_bindings_removed(v.request_id, v.owner, v.generation, v.fence_generation, v.community_id);
  return query select v.request_id, v.community_id, v.generation,
    (select sum(row_count) from tests.scoped_row_counts(v.community_id))::bigint;
end;
$$;
-- Every batch until one is done (at most 5,000), numbered.
create function pg_temp.batches(p_request uuid, p_community uuid, p_generation bigint, p_budget bigint, p_target interval)
  returns table (n int, result jsonb) language plpgsql as $$
begin
  for i in 1..5000 loop
    n := i;
    result := pg_temp.batch(p_request, p_community, p_generation, p_budget, p_target);
    return next;
    exit when (result ->> 'done')::boolean;
  end loop;
end;
$$;
create function pg_temp.unit(p_request uuid, p_unit text) returns community_deletion.checkpoints
  language sql as $$
  select * from community_deletion.checkpoints where request_id = p_request and stage = 'bindings_removed' and unit_key = p_unit
$$;
select set_config('community_deletion.read_state_hard_delete', 'on', true);
-- One batch as the engine runs it: the fence lets only the engine's owner role
-- write a fenced community (purge_postgres_batch is security definer).
create function pg_temp.batch(p_request uuid, p_community uuid, p_generation bigint, p_budget bigint, p_target interval)
  returns jsonb language plpgsql as $$
declare
  v jsonb;
begin
  set local role community_deletion_owner;
  v := community_deletion._purge_batch(p_request, p_community, 'bindings_removed', p_generation, p_budget, p_target);
  reset role;
  return v;
end;
$$;

-- A. Time to spare: one batch does everything, each unit in statements of
-- 10 (the probe of a unit reached after the provenance units spent
-- something), then 40, 160, ... until one finds fewer rows than allowed.
select request_id as a_request, community_id as a_community, generation as a_generation, rows_total as a_rows
  from pg_temp.pace_request('pace-a.example') \gset
select count(*) as a_audit from public.audit_log where community_id = :'a_community' \gset
select ok(:a_audit between 851 and 3409, format('audit_log holds %s rows of A: 10, 40, 160, 640 and the rest', :a_audit));
select is(pg_temp.batch(:'a_request', :'a_community', :a_generation, 1000000, interval '1 hour')
            ->> 'done', 'false', 'with an hour to spare one batch removes every row but is not done');
select is((select sum(row_count)::bigint from tests.scoped_row_counts(:'a_community')), 0::bigint, 'nothing of A is left');
select is(pg_temp.batch(:'a_request', :'a_community', :a_generation, 1000000, interval '1 hour'),
          '{"rows": 0, "cost": 0, "done": true}'::jsonb,
  'the next batch finds every table empty (after the batch that emptied it) and is done');
select is((select (status, (detail ->> 'rows')::bigint, (detail ->> 'batches')::int, (detail ->> 'last_rows')::bigint)::text
             from pg_temp.unit(:'a_request', 'purge:audit_log')),
          ('completed', :a_audit, 2, :a_audit - 850)::text,
  'audit_log went in statements of 10, 40, 160, 640 and the rest (under 2,560), then the next batch found it empty');
select is((select count(*)::int from community_deletion.checkpoints
            where request_id = :'a_request' and stage = 'bindings_removed' and unit_key like 'purge:%'
              and (detail ->> 'last_rows')::bigint <> (detail ->> 'rows')::bigint),
          1, 'every other table fit in its probe');
select ok((select bool_and((detail ->> 'us_per_row')::numeric > 0) from community_deletion.checkpoints
            where request_id = :'a_request' and stage = 'bindings_removed' and (detail ->> 'rows')::bigint > 0),
  'each table that had rows recorded its measured pace');

-- B. A microsecond: spent before the first statement, so every batch moves
-- exactly one row (the progress guarantee) and then ends.
select request_id as b_request, community_id as b_community, generation as b_generation, rows_total as b_rows
  from pg_temp.pace_request('pace-b.example') \gset
select (select count(*) from public.product_feedback where community_id = :'b_community')
     + (select count(*) from public.rate_limit_violations where community_id = :'b_community') as b_provenance \gset
create temp table b_batches as
  select * from pg_temp.batches(:'b_request', :'b_community', :b_generation, 1000000, interval '1 microsecond');
select is((select count(*)::int from b_batches where not (result ->> 'done')::boolean and (result ->> 'rows')::int <> 1), 0,
  'with the time spent at once every batch but the last moved exactly one row');
select is((select sum((result ->> 'rows')::bigint)::bigint from b_batches), (:b_rows + :b_provenance)::bigint,
  'and the batches, one row each, removed (or nulled) every row');
select is((select count(*)::int from b_batches), (:b_rows + :b_provenance)::int + 1,
  'one batch per row, then one that found the last table empty');
select is((select sum((detail ->> 'rows')::bigint)::bigint from community_deletion.checkpoints
            where request_id = :'b_request' and stage = 'bindings_removed' and unit_key like 'purge:%'),
          :b_rows::bigint, 'the checkpoints total every row purged');

-- C. The pace carries over: a unit whose checkpoint says its last statement
-- moved 10 rows at 1 ns a row starts the next batch with 40, then 160, 640, ...
select request_id as c_request, community_id as c_community, generation as c_generation, rows_total as c_rows
  from pg_temp.pace_request('pace-c.example') \gset
select (select count(*) from public.product_feedback where community_id = :'c_community')
     + (select count(*) from public.rate_limit_violations where community_id = :'c_community') as c_provenance \gset
select count(*) as c_audit from public.audit_log where community_id = :'c_community' \gset
select community_deletion._checkpoint(:'c_request', 'bindings_removed', 'purge:audit_log', 'started', :c_generation,
  '{"rows": 0, "batches": 0, "us_per_row": 0.001, "last_rows": 10}');
select ok(:c_audit between 841 and 3399, format('audit_log holds %s rows of C: 40, 160, 640, then the rest', :c_audit));
select is((pg_temp.batch(:'c_request', :'c_community', :c_generation, 1000000, interval '1 hour')
            ->> 'rows')::bigint, (:c_rows + :c_provenance)::bigint, 'one batch with an hour to spare removes the rest of C');
select is((select (status, (detail ->> 'rows')::bigint, (detail ->> 'batches')::int, (detail ->> 'last_rows')::bigint)::text
             from pg_temp.unit(:'c_request', 'purge:audit_log')),
          ('started', :c_audit, 1, :c_audit - 840)::text,
  'audit_log resumed at four times its recorded last statement: 40, 160, 640 and the rest');

-- E. A statement that would not fit is not started once the batch has
-- spent something: with audit_log's pace recorded as 1,000 s a row (measured
-- on a statement of 1,000 rows) an hour fits 3 of its rows, under a probe's
-- worth, so the batch that reaches it after the provenance and earlier units
-- ends there without touching it (the old floor took 100 rows: 100,000 s).
-- The next batch, whose first statement is audit_log's, takes what fits (3
-- rows: no floor for a pace measured on a statement as large as a probe),
-- then, at the pace that statement measured, 12, 48, 192, and the rest.
select request_id as e_request, community_id as e_community, generation as e_generation
  from pg_temp.pace_request('pace-e.example') \gset
select count(*) as e_audit from public.audit_log where community_id = :'e_community' \gset
select community_deletion._checkpoint(:'e_request', 'bindings_removed', 'purge:audit_log', 'started', :e_generation,
  '{"rows": 0, "batches": 0, "us_per_row": 1000000000, "last_rows": 1000}');
select ok(:e_audit between 256 and 1023, format('audit_log holds %s rows of E: 3, 12, 48, 192 and the rest', :e_audit));
select ok((select (result ->> 'rows')::int > 0 and not (result ->> 'done')::boolean
             from (select pg_temp.batch(:'e_request', :'e_community', :e_generation, 1000000, interval '1 hour') as result) b),
  'the first batch removed the rows before audit_log and is not done');
select is((select (status, (detail ->> 'rows')::bigint, (detail ->> 'batches')::int, (detail ->> 'last_rows')::bigint)::text
             from pg_temp.unit(:'e_request', 'purge:audit_log')),
          ('started', 0, 0, 1000)::text,
  'and ended at audit_log without a statement: 3 rows fit in the hour left, under a probe''s worth');
select is((select count(*)::int from public.audit_log where community_id = :'e_community'), :e_audit,
  'every audit_log row of E is still there');
select pg_temp.batch(:'e_request', :'e_community', :e_generation, 1000000, interval '1 hour') \g /dev/null
select is((select (status, (detail ->> 'rows')::bigint, (detail ->> 'batches')::int, (detail ->> 'last_rows')::bigint)::text
             from pg_temp.unit(:'e_request', 'purge:audit_log')),
          ('started', :e_audit, 1, :e_audit - 255)::text,
  'the next batch began with audit_log: 3 rows (what fits), then 12, 48, 192 and the rest');

-- F. At a batch's first statement the floor holds for a pace measured on a
-- statement smaller than a probe (its fixed cost, such as a lookup walking
-- many dead index entries, must not shrink the next statement towards a
-- single row): the same 1,000 s a row, measured on 50 rows, gives 100 rows,
-- then 400, then the rest.
select request_id as f_request, community_id as f_community, generation as f_generation
  from pg_temp.pace_request('pace-f.example') \gset
select count(*) as f_audit from public.audit_log where community_id = :'f_community' \gset
select community_deletion._checkpoint(:'f_request', 'bindings_removed', 'purge:audit_log', 'started', :f_generation,
  '{"rows": 0, "batches": 0, "us_per_row": 1000000000, "last_rows": 50}');
select ok(:f_audit between 501 and 2099, format('audit_log holds %s rows of F: 100, 400 and the rest', :f_audit));
select pg_temp.batch(:'f_request', :'f_community', :f_generation, 1000000, interval '1 hour') \g /dev/null
select is((select (detail ->> 'batches')::int from pg_temp.unit(:'f_request', 'purge:audit_log')), 0,
  'the first batch ended at audit_log without a statement');
select pg_temp.batch(:'f_request', :'f_community', :f_generation, 1000000, interval '1 hour') \g /dev/null
select is((select (detail ->> 'last_rows')::bigint from pg_temp.unit(:'f_request', 'purge:audit_log')), (:f_audit - 500)::bigint,
  'the next went in statements of 100 (the floor, not the 3 its recorded pace fits in an hour), 400 and the rest');

-- G. A statement aims at half the time left when that is a probe's worth or
-- more: with audit_log's pace recorded as 10 s a row (measured on 1,000 rows)
-- an hour and a second fits 360 of its rows; the statement takes 180 (fewer
-- by one per 20 s the batch has run), then — at the pace it measured — four
-- times that, then the rest.
select request_id as g_request, community_id as g_community, generation as g_generation
  from pg_temp.pace_request('pace-g.example') \gset
select count(*) as g_audit from public.audit_log where community_id = :'g_community' \gset
select community_deletion._checkpoint(:'g_request', 'bindings_removed', 'purge:audit_log', 'started', :g_generation,
  '{"rows": 0, "batches": 0, "us_per_row": 10000000, "last_rows": 1000}');
select ok(:g_audit between 901 and 4249, format('audit_log holds %s rows of G: about 180, four times that and the rest', :g_audit));
select pg_temp.batch(:'g_request', :'g_community', :g_generation, 1000000, interval '1 hour 1 second') \g /dev/null
select ok((select :g_audit - (detail ->> 'last_rows')::bigint between 850 and 900 and (:g_audit - (detail ->> 'last_rows')::bigint) % 5 = 0
             from pg_temp.unit(:'g_request', 'purge:audit_log')),
  'audit_log went in a statement of half what fits in the time left (about 180, not 360), four times that, and the rest');

-- D. The cost budget stays a hard cap: with an hour to spare and a budget of
-- 150, no batch costs more than 150 (or one row of a table heavier than it).
select request_id as d_request, community_id as d_community, generation as d_generation, rows_total as d_rows
  from pg_temp.pace_request('pace-d.example') \gset
create temp table d_batches as
  select * from pg_temp.batches(:'d_request', :'d_community', :d_generation, 150, interval '1 hour');
select ok((select bool_and((result ->> 'cost')::int <= greatest(150,
             (select max(1 + (select count(*) from pg_constraint c
                               where c.contype = 'f' and c.confrelid = format('%I.%I', t.schema_name, t.table_name)::regclass))
                from community_deletion.registered_tables t)))
             from d_batches),
  'no batch cost more than the budget (or one row of the heaviest table)');
select is((select sum((detail ->> 'rows')::bigint)::bigint from community_deletion.checkpoints
            where request_id = :'d_request' and stage = 'bindings_removed' and unit_key like 'purge:%'),
          :d_rows::bigint, 'and the purge is whole');

select * from finish();
rollback;
