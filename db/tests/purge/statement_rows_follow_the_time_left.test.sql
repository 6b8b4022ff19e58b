-- How many rows a bounded purge batch's next statement takes by time
-- (community_deletion._purge_rows_by_time), rule by rule, from given inputs:
-- no clock is read, so every branch — including those a real batch reaches
-- only at a moment it cannot choose (a unit first met with less than half
-- the target left) — is checked exactly. batch_is_sized_by_measured_pace
-- checks that _purge_batch follows these numbers.
begin;
select plan(29);

create temp table cases (
  n serial,
  target_us numeric, left_us numeric, spent boolean, rate numeric, last_rows bigint,
  expected bigint, rule text);
insert into cases (target_us, left_us, spent, rate, last_rows, expected, rule) values
  -- No time target: the cost budget alone sizes the batch.
  (null, 1000, false, 10, 100, null, 'no target: no limit by time'),
  (null, 1000, true, null, null, null, 'no target, later statement: no limit by time'),
  -- A batch's first statement.
  (250000, 0, false, 10, 1000, 1, 'first statement, time spent: one row (every batch makes progress)'),
  (250000, -5000, false, null, null, 1, 'first statement, time overspent, never measured: one row'),
  (250000, 250000, false, null, null, 100, 'first statement, never measured: a probe of 100'),
  (250000, 250000, false, 10, null, 100, 'first statement, a pace without its statement size: a probe'),
  (250000, 250000, false, 10, 1000, 4000, 'first statement: at most four times the previous statement'),
  (250000, 250000, false, 10, 5000, 12500, 'first statement: half the time left at the measured pace'),
  (250000, 250000, false, 1000, 50, 125, 'first statement, pace measured on 50 rows: what fits when over 100'),
  (250000, 250000, false, 5000, 50, 100, 'first statement, pace measured on 50 rows: raised to 100'),
  (250000, 250000, false, 5000, 20, 80, 'first statement, pace measured on 20 rows: the floor, capped at 4 × 20'),
  (250000, 250000, false, 100000, 200, 2, 'first statement, rows dearer than half the time: all of it'),
  (250000, 250000, false, 1000000, 200, 1, 'first statement, one row dearer than the target: one row'),
  -- Later statements of a batch that has spent something.
  (250000, 0, true, 10, 1000, 0, 'later statement, time spent: none (the batch ends)'),
  (250000, -1, true, null, null, 0, 'later statement, time overspent, never measured: none'),
  (250000, 130000, true, null, null, 10, 'later statement, never measured, over half the target left: a probe of 10'),
  (250000, 125000, true, null, null, 10, 'later statement, never measured, exactly half left: a probe of 10'),
  (250000, 120000, true, null, null, 0, 'later statement, never measured, under half the target left: none'),
  (250000, 100000, true, 10, 1000, 4000, 'later statement: at most four times the previous statement'),
  (250000, 100000, true, 10, 2000, 5000, 'later statement: half the time left at the measured pace'),
  (250000, 150000, true, 1000, 100, 150, 'later statement, half under 100 rows: all the time left'),
  (250000, 150000, true, 2000, 100, 0, 'later statement, under 100 rows fit: none (no floor mid-batch)'),
  (250000, 150000, true, 1000, 10, 40, 'later statement: growth capped at 4 × 10 even under 100 rows'),
  (250000, 1000, true, 0, 100000, 400000, 'a pace of 0 counts as 0.001 µs a row');

select is(community_deletion._purge_rows_by_time(target_us, left_us, spent, rate, last_rows), expected, rule)
  from cases order by n;

-- Where the function sits: internal, immutable, search_path pinned, no
-- role but the owner may call it.
select is((select provolatile from pg_proc where oid = 'community_deletion._purge_rows_by_time(numeric, numeric, boolean, numeric, bigint)'::regprocedure),
  'i'::"char", 'immutable: a function of its inputs');
select ok((select proconfig @> array['search_path=pg_catalog, pg_temp'] from pg_proc
            where oid = 'community_deletion._purge_rows_by_time(numeric, numeric, boolean, numeric, bigint)'::regprocedure),
  'search_path pinned');
select ok(not has_function_privilege('community_deletion_executor',
  'community_deletion._purge_rows_by_time(numeric, numeric, boolean, numeric, bigint)', 'execute'),
  'the executor role cannot call it');
select ok(not has_function_privilege('community_deletion_app',
  'community_deletion._purge_rows_by_time(numeric, numeric, boolean, numeric, bigint)', 'execute'),
  'nor the application role');
select is((select count(*)::int from cases), 24, '(every case above was checked)');

select * from finish();
rollback;
