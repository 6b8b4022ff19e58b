-- community_deletion.heartbeat renews only the exact owner + generation of a live,
-- unblocked lease (a blocked request cannot renew) and records executor
-- liveness; release and executor_stopped end it cleanly.
begin;
select plan(16);
\ir ../fixtures/lifecycle.sql

select tests.lc_approved('heartbeat.example') as rid \gset
select tests.lc_claim(:'rid', 'exec-1') as g \gset
update community_deletion.requests set lease_until = now() + interval '5 seconds' where id = :'rid';

select is(community_deletion.heartbeat(:'rid', 'exec-1', :g, 'worker', 120, true), now() + interval '120 seconds',
  'the owner renews the lease for the requested seconds');
select is((select lease_until from community_deletion.requests where id = :'rid'), now() + interval '120 seconds',
  'the renewed expiry is stored');
select is(
  (select row(mode, request_id, draining, stopped_at is null)::text from community_deletion.executor_heartbeats where executor_id = 'exec-1'),
  row('worker', :'rid'::uuid, true, true)::text, 'executor liveness is recorded');

select throws_ok(format($$ select community_deletion.heartbeat(%L, 'exec-2', %s) $$, :'rid', :g), 'DL4L1', null,
  'another owner cannot renew');
select throws_ok(format($$ select community_deletion.heartbeat(%L, 'exec-1', %s) $$, :'rid', :g + 1), 'DL4L1', null,
  'another generation cannot renew');
select throws_ok(format($$ select community_deletion.heartbeat(%L, 'exec-1', %s, 'sprint') $$, :'rid', :g), 'DL1I1', null,
  'an unknown executor mode is refused');
select throws_ok(format($$ select community_deletion.heartbeat(%L, 'exec-1', %s, 'run', 0) $$, :'rid', :g), 'DL1I1', null,
  'a zero-second renewal is refused');

-- A blocked request cannot renew its lease (the executor must stop).
update community_deletion.requests set blocked_at = now(), blocked_reason = 'operator hold' where id = :'rid';
select throws_ok(format($$ select community_deletion.heartbeat(%L, 'exec-1', %s) $$, :'rid', :g), 'DL4L1', null,
  'a blocked request cannot renew its lease');
select throws_ok(format($$ select community_deletion.verify_token(%L, 'exec-1', %s, 'approved') $$, :'rid', :g), 'DL4L1', null,
  'a blocked request''s token no longer verifies');
update community_deletion.requests set blocked_at = null, blocked_reason = null where id = :'rid';

select lives_ok(format($$ select community_deletion.verify_token(%L, 'exec-1', %s, 'approved') $$, :'rid', :g),
  'unblocked again, the exact token verifies');
select throws_ok(format($$ select community_deletion.verify_token(%L, 'exec-1', %s, 'fenced') $$, :'rid', :g), 'DL4L1', null,
  'a token does not verify for another stage');

select is(community_deletion.release(:'rid', 'exec-2', :g), false, 'another owner cannot release');
select is(community_deletion.release(:'rid', 'exec-1', :g), true, 'the owner releases cleanly');
select is((select row(lease_owner, lease_until, retry_count, last_error)::text from community_deletion.requests where id = :'rid'),
  row(null::text, null::timestamptz, 0, null::text)::text, 'release clears the lease without recording a failure');

select community_deletion.executor_stopped('exec-1') \g /dev/null
select is(
  (select row(request_id, draining, stopped_at is not null)::text from community_deletion.executor_heartbeats where executor_id = 'exec-1'),
  row(null::uuid, true, true)::text, 'a stopped executor is recorded as stopped and draining');
select is((select count(*)::int from community_deletion.claim('exec-3', :'rid')), 1, 'a released request is claimable at once');

select * from finish();
rollback;
