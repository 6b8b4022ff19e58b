-- community_deletion.claim: the oldest runnable, approved, unblocked, due request with a
-- free or expired lease; bumps the lease generation and attempts; returns the
-- token; zero rows when nothing is claimable.
begin;
select plan(20);
\ir ../fixtures/lifecycle.sql

select tests.lc_approved('claim-old.example') as old \gset
select tests.lc_approved('claim-new.example') as new \gset
select tests.lc_force(format($$ update community_deletion.requests set created_at = now() - interval '1 hour' where id = %L $$, :'old')) \g /dev/null

select request_id, community_id, stage, lease_owner, lease_generation, fence_generation, lease_until
  from community_deletion.claim('exec-1', null, 90) \gset
select is(:'request_id'::uuid, :'old'::uuid, 'claim-next takes the oldest runnable request');
select is(:'stage'::text, 'approved', 'the token names the stage');
select is(:'lease_owner'::text, 'exec-1', 'the token names the owner');
select is(:'lease_generation'::bigint, 1::bigint, 'the first claim is generation 1');
select ok(not :{?fence_generation}, 'no fence generation before the fence (null)');
select is(:'lease_until'::timestamptz, now() + interval '90 seconds', 'the lease lasts the requested seconds');
select is((select attempts from community_deletion.requests where id = :'old'), 1, 'attempts counts the claim');

select is((select request_id from community_deletion.claim('exec-2')), :'new'::uuid,
  'a live lease is skipped: the next claim takes the other request');
select is((select count(*)::int from community_deletion.claim('exec-3')), 0, 'nothing left: zero rows');
select is((select count(*)::int from community_deletion.claim('exec-3', :'old')), 0,
  'a specific claim of a live-leased request returns zero rows');

-- Blocked, not yet due, and not yet approved requests are not claimable.
update community_deletion.requests set lease_until = now() - interval '1 second' where id in (:'old', :'new');
update community_deletion.requests set blocked_at = now(), blocked_reason = 'held' where id = :'old';
update community_deletion.requests set next_attempt_at = now() + interval '1 minute' where id = :'new';
select is((select count(*)::int from community_deletion.claim('exec-3')), 0,
  'blocked and not-yet-due requests are not claimable');
select tests.lc_inventoried('claim-inventoried.example') as inv \gset
select is((select count(*)::int from community_deletion.claim('exec-3', :'inv')), 0,
  'an inventoried (unapproved) request is not claimable');

update community_deletion.requests set next_attempt_at = now() where id = :'new';
select is((select lease_generation from community_deletion.claim('exec-4', :'new')), 2::bigint,
  'an expired lease is reclaimed by a successor at generation + 1');
select is((select attempts from community_deletion.requests where id = :'new'), 2, 'attempts counts every claim');

select throws_ok($$ select * from community_deletion.claim('  ') $$, 'DL1I1', null, 'a blank executor id is refused');
select throws_ok($$ select * from community_deletion.claim(' exec-1') $$, 'DL1I1', null, 'an executor id with surrounding whitespace is refused');
select throws_ok($$ select * from community_deletion.claim('exec-1', null, 0) $$, 'DL1I1', null, 'a zero-second lease is refused');
select throws_ok($$ select * from community_deletion.claim('exec-1', null, 3601) $$, 'DL1I1', null, 'an over-long lease is refused');
select throws_ok(format($$ select * from community_deletion.claim('exec-1', %L) $$, gen_random_uuid()), 'DL1N1', null,
  'claiming an unknown request id is refused');

-- Terminal requests are never claimed.
select tests.lc_approved('claim-aborted.example') as ab \gset
select 1 from community_deletion.abort(:'ab', 'carol', 'cancel') \g /dev/null
select is((select count(*)::int from community_deletion.claim('exec-5', :'ab')), 0, 'an aborted request is never claimed');

select * from finish();
rollback;
