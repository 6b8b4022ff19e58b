-- Transient failures back off exponentially (capped, with up to 10% jitter);
-- the 8th consecutive failure at one stage blocks durably; a blocked request is
-- not claimable; unblock clears it; a stage advance resets the streak, and a
-- failure at the next stage starts a new streak.
begin;
select plan(23);
\ir ../fixtures/lifecycle.sql

select tests.lc_approved('retry.example') as rid \gset

create temporary table outcomes (n integer, result jsonb);
do $$
declare
  v_request uuid := (select id from community_deletion.requests where community_host = 'retry.example');
  v_generation bigint;
  n integer;
begin
  for n in 1..8 loop
    update community_deletion.requests set next_attempt_at = now() where id = v_request and blocked_at is null;
    select c.lease_generation into v_generation from community_deletion.claim('exec-' || n, v_request) c;
    insert into outcomes values (n, community_deletion.record_failure(
      v_request, 'exec-' || n, v_generation, 'approved', 'dependency', 'dependency unavailable ' || n));
  end loop;
end;
$$;

select is((select array_agg((result->>'retry_count')::int order by n) from outcomes), array[1, 2, 3, 4, 5, 6, 7, 8],
  'consecutive failures at one stage count 1..8');
select is((select array_agg((result->>'blocked')::boolean order by n) from outcomes),
  array[false, false, false, false, false, false, false, true], 'only the 8th failure blocks');
-- delay n = min(15 min, 5 s * 2^(n-1)) plus up to 10% jitter
select ok((select bool_and((result->>'next_attempt_at')::timestamptz
                           between now() + least(interval '15 minutes', interval '5 seconds' * power(2, n - 1))
                               and now() + least(interval '15 minutes', interval '5 seconds' * power(2, n - 1)) * 1.1)
             from outcomes where n < 8),
  'retry n waits min(max_delay, base * 2^(n-1)) plus at most 10% jitter');
select ok((select (result->>'next_attempt_at')::timestamptz >= now() + interval '5 seconds' * 64 from outcomes where n = 7)
          and (select (result->>'next_attempt_at')::timestamptz <= now() + interval '15 minutes' * 1.1 from outcomes where n = 7),
  'the 7th retry is 320 s (under the 15 min cap)');
select is((select count(*)::int from outcomes where n < 8 and (result->>'next_attempt_at')::timestamptz <= now()), 0,
  'every retry is in the future');

select is((select row(retry_count, retry_stage, blocked_at is not null, lease_owner)::text
             from community_deletion.requests where id = :'rid'),
  row(8, 'approved', true, null::text)::text, 'the request is blocked at the exhausted stage with the lease released');
select matches((select blocked_reason from community_deletion.requests where id = :'rid'), 'dependency unavailable 8',
  'the block reason carries the last error');
select is((select row(status, attempts, error)::text from community_deletion.checkpoints
            where request_id = :'rid' and unit_key = 'dependency'),
  row('failed', 8, 'dependency unavailable 8')::text, 'the unit''s failed checkpoint counts all 8 attempts');
select is(community_deletion.inspect(:'rid')->>'state', 'blocked', 'inspect reports blocked');

update community_deletion.requests set next_attempt_at = now() - interval '1 second' where id = :'rid';
select is((select count(*)::int from community_deletion.claim('exec-9', :'rid')), 0, 'a blocked request is not claimable');

select is((select row(blocked_at, retry_count, retry_stage, last_error, stage)::text
             from community_deletion.unblock(:'rid', 'carol', 'dependency repaired')),
  row(null::timestamptz, 0, null::text, null::text, 'approved')::text,
  'unblock clears the block and the streak and keeps the stage');

select tests.lc_claim(:'rid', 'exec-10') as g \gset
select ok(:'g'::bigint > 0, 'the unblocked request is claimable again');
select is((community_deletion.record_failure(:'rid', 'exec-10', :g, 'approved', 'dependency', 'flaky again'))->>'retry_count', '1',
  'after unblock the streak restarts at 1');

update community_deletion.requests set next_attempt_at = now() where id = :'rid';
select tests.lc_claim(:'rid', 'exec-11') as g \gset
select is((community_deletion.record_failure(:'rid', 'exec-11', :g, 'approved', 'dependency', 'flaky'))->>'retry_count', '2',
  'the streak continues at the same stage');
update community_deletion.requests set next_attempt_at = now() where id = :'rid';
select tests.lc_claim(:'rid', 'exec-12') as g \gset
select lives_ok(format($$ select community_deletion._advance(%L, 'exec-12', %s, 'approved', 'fenced', 1) $$, :'rid', :g),
  'progress: the request advances to fenced');
select is((select row(stage, retry_count, retry_stage)::text from community_deletion.requests where id = :'rid'),
  row('fenced', 0, null::text)::text, 'the stage advance resets the streak');
select is((community_deletion.record_failure(:'rid', 'exec-12', :g, 'fenced', 'disconnect', 'redis down'))->>'retry_count', '1',
  'a failure at the next stage starts a new streak at 1');
select is((select retry_stage from community_deletion.requests where id = :'rid'), 'fenced',
  'the streak is tracked per stage');

-- A failure at another stage than the streak's restarts the count.
update community_deletion.requests set retry_stage = 'approved', retry_count = 7, next_attempt_at = now() where id = :'rid';
select tests.lc_claim(:'rid', 'exec-13') as g \gset
select is((community_deletion.record_failure(:'rid', 'exec-13', :g, 'fenced', 'disconnect', 'redis down'))->>'blocked', 'false',
  'failures at different stages are not consecutive');

select throws_ok(format($$ select community_deletion.record_failure(%L, 'exec-13', %s, 'fenced', 'u', 'x') $$, :'rid', :g),
  'DL4L1', null, 'recording a failure releases the lease: the same token cannot record twice');
update community_deletion.requests set next_attempt_at = now() where id = :'rid';
select tests.lc_claim(:'rid', 'exec-14') as g \gset
select throws_ok(format($$ select community_deletion.record_failure(%L, 'exec-14', %s, 'fenced', 'u', '  ') $$, :'rid', :g),
  'DL1I1', null, 'a blank error is refused');
select throws_ok(format($$ select community_deletion.record_failure(%L, 'exec-14', %s, 'fenced', '', 'x') $$, :'rid', :g),
  'DL1I1', null, 'a blank unit key is refused');

-- The cap: a long streak never waits more than retry_max_delay (+10%).
update community_deletion.settings set max_consecutive_failures = 50;
update community_deletion.requests set retry_stage = 'fenced', retry_count = 40 where id = :'rid';
select (community_deletion.record_failure(:'rid', 'exec-14', :g, 'fenced', 'u', 'x'))->>'next_attempt_at' as capped \gset
select ok(:'capped'::timestamptz between now() + interval '15 minutes' and now() + interval '16 minutes 30 seconds',
  'a long streak is capped at retry_max_delay plus jitter');

select * from finish();
rollback;
