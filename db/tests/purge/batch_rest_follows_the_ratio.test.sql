-- The purge's throttle: settings.purge_batch_rest_ratio (default 0). Each
-- purge_postgres_batch returns rest_ms — its own duration times the ratio,
-- rounded; 0 when the ratio is 0 and 0 on the batch that reports done (the
-- executor finishes right away) — and the executor rests that long between
-- batches. The ratio is bounded (0..10, named constraint, 23514), only the
-- DBA sets it — the executor, operator and application roles cannot (42501:
-- an executor cannot turn its own throttle off) — and resting changes
-- nothing of what the purge removes.
begin;
\ir ../fixtures/destruction.sql
select plan(15);

select * from tests.dx_fenced_request('target.example', 3) \gset
select tests.dx_to_bindings_removed(:'request_id', :'owner', :'generation', :'fence_generation', :'community_id');
select format('%L, %L, %s, %s', :'request_id', :'owner', :'generation', :'fence_generation') as token \gset
-- The cost budget alone: batch boundaries independent of the machine's speed.
update community_deletion.settings set purge_batch_rows = 7, purge_batch_target = null;

select is((select purge_batch_rest_ratio from community_deletion.settings), 0::numeric, 'the default ratio is 0: no rest');
select is((community_deletion.purge_postgres_batch(:'request_id', :'owner', :'generation', :'fence_generation') ->> 'rest_ms')::bigint,
  0::bigint, 'with ratio 0 a batch asks for no rest');

select throws_ok('update community_deletion.settings set purge_batch_rest_ratio = -0.5', '23514',
  'new row for relation "settings" violates check constraint "settings_purge_batch_rest_ratio_is_bounded"',
  'a negative ratio is refused');
select throws_ok('update community_deletion.settings set purge_batch_rest_ratio = 10.5', '23514',
  'new row for relation "settings" violates check constraint "settings_purge_batch_rest_ratio_is_bounded"',
  'a ratio above 10 is refused');
select throws_ok('update community_deletion.settings set purge_batch_rest_ratio = null', '23502', null,
  'the ratio cannot be null');

update community_deletion.settings set purge_batch_rest_ratio = 2;
set local role community_deletion_executor;
select throws_ok('update community_deletion.settings set purge_batch_rest_ratio = 0', '42501', null,
  'the executor role cannot change the throttle');
reset role;
set local role community_deletion_operator;
select throws_ok('update community_deletion.settings set purge_batch_rest_ratio = 0', '42501', null,
  'nor can the operator role');
reset role;
set local role community_deletion_app;
select throws_ok('update community_deletion.settings set purge_batch_rest_ratio = 0', '42501', null,
  'nor the application role');
reset role;

-- Ratio 10: rest_ms is positive and at most ten times the call's duration as
-- seen from outside it (clock_timestamp() around the call bounds its own).
update community_deletion.settings set purge_batch_rest_ratio = 10;
create temp table timed (n serial, rest_ms bigint, outside_ms numeric, done boolean);
create function pg_temp.timed_batch(p_token text) returns void language plpgsql as $$
declare
  v_t0 timestamptz := clock_timestamp();
  v_result jsonb;
begin
  execute format('select community_deletion.purge_postgres_batch(%s)', p_token) into v_result;
  insert into timed (rest_ms, outside_ms, done)
  values ((v_result ->> 'rest_ms')::bigint, extract(epoch from clock_timestamp() - v_t0) * 1000, (v_result ->> 'done')::boolean);
end $$;
select pg_temp.timed_batch(:'token');
select pg_temp.timed_batch(:'token');
select ok((select bool_and(rest_ms > 0) from timed), 'with ratio 10 a batch that is not done asks for a rest');
select ok((select bool_and(rest_ms <= round(outside_ms * 10) + 1) from timed),
  'no longer than ten times the batch took');
select ok((select bool_and(not done) from timed), '(those batches were not the last)');

-- The rest scales with the ratio: the same call at ratio 0.000001 rounds to 0 ms.
update community_deletion.settings set purge_batch_rest_ratio = 0.000001;
select is((community_deletion.purge_postgres_batch(:'request_id', :'owner', :'generation', :'fence_generation') ->> 'rest_ms')::bigint,
  0::bigint, 'a tiny ratio rounds to no rest');

-- The batch that reports done asks for no rest, whatever the ratio.
update community_deletion.settings set purge_batch_rest_ratio = 10;
create temp table last_batch as
  select tests.dx_purge_until_done(:'request_id', :'owner', :'generation', :'fence_generation') as result;
select is((select (result ->> 'done')::boolean from last_batch), true, 'the loop reached the batch that reports done');
select is((select (result ->> 'rest_ms')::bigint from last_batch), 0::bigint, 'which asks for no rest');

-- Resting took nothing away from the purge: every table completed, every row gone.
select is((select coalesce(sum(row_count), 0)::int from tests.scoped_row_counts(:'community_id')), 0,
  'every scoped row of the target is gone');

select * from finish();
rollback;
