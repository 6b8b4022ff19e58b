-- Grace period: community_deletion.approve takes not_before or a delay (not both), never
-- earlier than the configured minimum; claim ignores the request until then,
-- inspect says so, and abort stays possible. The requested time is at most
-- 366 days ahead and finite (DL1I1, never a timestamp overflow).
begin;
select plan(22);
\ir ../fixtures/lifecycle.sql

select tests.lc_inventoried('grace.example') as rid \gset
select tests.lc_inventoried('grace-delay.example') as rid2 \gset
select tests.lc_inventoried('grace-past.example') as rid3 \gset
select tests.lc_inventoried('grace-min.example') as rid4 \gset

select throws_ok(format($$ select tests.approve(%L, 'bob', null, now() + interval '1 hour', interval '1 hour') $$, :'rid'),
  'DL1I1', null, 'not_before and delay together are refused');
select throws_ok(format($$ select tests.approve(%L, 'bob', null, null, interval '-1 minute') $$, :'rid'),
  'DL1I1', null, 'a negative delay is refused');
select throws_ok(format($$ select tests.approve(%L, 'bob', null, null, interval '367 days') $$, :'rid'),
  'DL1I1', null, 'a delay of more than 366 days is refused');
select throws_ok(format($$ select tests.approve(%L, 'bob', null, null, interval '300000 years') $$, :'rid'),
  'DL1I1', null, 'a delay past the end of timestamps is refused as an argument, not a timestamp overflow');
select throws_ok(format($$ select tests.approve(%L, 'bob', null, 'infinity') $$, :'rid'),
  'DL1I1', null, 'an infinite not_before is refused');
select throws_ok(format($$ select tests.approve(%L, 'bob', null, '-infinity') $$, :'rid'),
  'DL1I1', null, 'a not_before of -infinity is refused');
select throws_ok(format($$ select tests.approve(%L, 'bob', null, now() + interval '367 days') $$, :'rid'),
  'DL1I1', null, 'a not_before more than 366 days ahead is refused');
select lives_ok(format($$ select tests.approve(%L, 'bob', null, now() + interval '366 days') $$,
                       tests.lc_inventoried('grace-far.example')),
  'a not_before 366 days ahead is accepted');

select 1 from tests.approve(:'rid', 'bob', null, now() + interval '2 hours') \g /dev/null
select is((select not_before from community_deletion.approvals where request_id = :'rid'), now() + interval '2 hours',
  'an explicit not_before is recorded on the approval');
select is((select next_attempt_at from community_deletion.requests where id = :'rid'), now() + interval '2 hours',
  'the request is not eligible before not_before');
select is((select count(*)::int from community_deletion.claim('exec-1', :'rid')), 0, 'claim ignores a request in its grace period');
select is((select count(*)::int from community_deletion.claim('exec-1')), 0, 'claim-next ignores it too');
select is(community_deletion.inspect(:'rid')->>'state', 'grace_period', 'inspect reports the grace period');
select matches(community_deletion.inspect(:'rid')->>'explanation', 'grace period until', 'inspect explains until when');

-- Even if next_attempt_at is forced earlier, the approval's not_before still gates the claim.
update community_deletion.requests set next_attempt_at = now() - interval '1 second' where id = :'rid';
select is((select count(*)::int from community_deletion.claim('exec-1', :'rid')), 0,
  'the approval''s not_before gates the claim, not only next_attempt_at');

select is((select stage from community_deletion.abort(:'rid', 'carol', 'changed our mind during the grace period')), 'aborted',
  'abort is possible during the grace period');

select 1 from tests.approve(:'rid2', 'bob', null, null, interval '30 minutes') \g /dev/null
select is((select not_before from community_deletion.approvals where request_id = :'rid2'), now() + interval '30 minutes',
  'a delay sets not_before = now() + delay');

select 1 from tests.approve(:'rid3', 'bob', null, now() - interval '1 day') \g /dev/null
select is((select not_before from community_deletion.approvals where request_id = :'rid3'), now(),
  'with a zero minimum a past not_before means now');
select is((select count(*)::int from community_deletion.claim('exec-1', :'rid3')), 1, 'and the request is claimable at once');

update community_deletion.settings set approval_grace_period = interval '1 day';
select throws_ok(format($$ select tests.approve(%L, 'bob', null, now() - interval '1 minute') $$, :'rid4'),
  'DL1I1', null, 'with a non-zero minimum a past not_before is refused');
select 1 from tests.approve(:'rid4', 'bob', null, null, interval '1 hour') \g /dev/null
select is((select not_before from community_deletion.approvals where request_id = :'rid4'), now() + interval '1 day',
  'a requested time earlier than the configured minimum is raised to it');
select is(community_deletion.inspect(:'rid4')->>'state', 'grace_period', 'the default grace period shows in inspect');

select * from finish();
rollback;
