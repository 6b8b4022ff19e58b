-- community_deletion._advance moves a leased request exactly one stage (DL2S1 otherwise,
-- DL4L1 when the guarded update matches nothing) and clears the retry streak;
-- community_deletion._checkpoint upserts one unit, counting attempts.
begin;
select plan(13);
\ir ../fixtures/lifecycle.sql

select tests.lc_approved('advance.example') as rid \gset
select tests.lc_claim(:'rid', 'exec-1') as g \gset

select throws_ok(format($$ select community_deletion._advance(%L, 'exec-1', %s, 'approved', 'drained', 1) $$, :'rid', :g),
  'DL2S1', null, 'advancing two stages is refused');
select throws_ok(format($$ select community_deletion._advance(%L, 'exec-1', %s, 'approved', 'inventoried') $$, :'rid', :g),
  'DL2S1', null, 'advancing backwards is refused');
select throws_ok(format($$ select community_deletion._advance(%L, 'exec-1', %s, 'fenced', 'drained') $$, :'rid', :g),
  'DL4L1', null, 'advancing from a stage the request is not at matches nothing: stale');

update community_deletion.requests set retry_stage = 'approved', retry_count = 3, last_error = 'flaky' where id = :'rid';
select lives_ok(format($$ select community_deletion._advance(%L, 'exec-1', %s, 'approved', 'fenced', 7) $$, :'rid', :g),
  'the lease holder advances approved -> fenced with a fence generation');
select is(
  (select row(stage, fence_generation, retry_count, retry_stage, last_error)::text from community_deletion.requests where id = :'rid'),
  row('fenced', 7::bigint, 0, null::text, null::text)::text,
  'the advance records the stage and fence generation and clears the retry streak');

update community_deletion.requests set blocked_at = now(), blocked_reason = 'hold' where id = :'rid';
select throws_ok(format($$ select community_deletion._advance(%L, 'exec-1', %s, 'fenced', 'drained') $$, :'rid', :g),
  'DL4L1', null, 'a blocked request does not advance');
update community_deletion.requests set blocked_at = null, blocked_reason = null, lease_until = now() - interval '1 second' where id = :'rid';
select throws_ok(format($$ select community_deletion._advance(%L, 'exec-1', %s, 'fenced', 'drained') $$, :'rid', :g),
  'DL4L1', null, 'an expired lease does not advance');

-- Entering retention_pending completes the request and releases the lease.
select tests.lc_force(format($$ update community_deletion.requests
  set stage = 'logically_verified', lease_until = now() + interval '1 minute' where id = %L $$, :'rid')) \g /dev/null
select lives_ok(format($$ select community_deletion._advance(%L, 'exec-1', %s, 'logically_verified', 'retention_pending') $$, :'rid', :g),
  'logically_verified -> retention_pending');
select is(
  (select row(stage, completed_at, lease_owner)::text from community_deletion.requests where id = :'rid'),
  row('retention_pending', now(), null::text)::text, 'retention_pending completes the request and drops the lease');

select community_deletion._checkpoint(:'rid', 'drained', 'chunk:0', 'started', 1) \g /dev/null
select is((select row(status, attempts, completed_at)::text from community_deletion.checkpoints where unit_key = 'chunk:0'),
  row('started', 1, null::timestamptz)::text, 'a first checkpoint is inserted with one attempt');
select community_deletion._checkpoint(:'rid', 'drained', 'chunk:0', 'failed', 2, '{"why": "timeout"}', 'timeout') \g /dev/null
select is((select row(status, attempts, lease_generation, detail, error)::text from community_deletion.checkpoints where unit_key = 'chunk:0'),
  row('failed', 2, 2::bigint, '{"why": "timeout"}'::jsonb, 'timeout')::text, 'a repeat counts an attempt and overwrites the outcome');
select community_deletion._checkpoint(:'rid', 'drained', 'chunk:0', 'completed', 3, '{"deleted": 10}') \g /dev/null
select is((select row(status, attempts, completed_at, error)::text from community_deletion.checkpoints where unit_key = 'chunk:0'),
  row('completed', 3, now(), null::text)::text, 'completion stamps completed_at and clears the error');
select is((select count(*)::int from community_deletion.checkpoints where request_id = :'rid'), 1,
  'one row per (request, stage, unit)');

select * from finish();
rollback;
