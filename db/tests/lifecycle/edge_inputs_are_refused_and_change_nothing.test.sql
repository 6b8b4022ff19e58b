-- Inputs at the edges of what the API takes are refused with DL1I1 and
-- change nothing (found by the fourth adversarial pass):
--   * approve's delay is compared as a time, not as an interval: '12 months
--     6 days' (about 371 days) is more than the 366-day cap although an
--     interval of 12 months compares as 360 days;
--   * a taxonomy sweep's start is a finite time ('-infinity' was stored);
--   * a Redis socket names its path ('unix:' alone was accepted);
--   * list_requests' host filter is not blank (it matched nothing, silently);
--   * an executor id has no control characters (it is stored as the lease
--     owner and shown on operators' terminals).
begin;
\ir ../fixtures/lifecycle.sql
select plan(12);

select tests.lc_inventoried('edges.example') as rid \gset
select throws_ok(format($$ select tests.approve(%L, 'bob', null, null, '12 months 6 days') $$, :'rid'),
  'DL1I1', null, 'a delay of 12 months 6 days (past 366 days from now) is refused');
select throws_ok(format($$ select tests.approve(%L, 'bob', null, null, '1 year 2 days') $$, :'rid'),
  'DL1I1', null, 'and so is 1 year 2 days');
select lives_ok(format($$ select tests.approve(%L, 'bob', null, null, '11 months') $$, :'rid'),
  '11 months is within the cap');
select is((select stage from community_deletion.requests where id = :'rid'), 'approved', 'and approves');

select throws_ok($$ select community_deletion.record_taxonomy_sweep('-infinity', 0, 0, '[]', 1000, false) $$,
  'DL1I1', null, 'a sweep that started at -infinity is refused');
select is((select count(*)::int from community_deletion.taxonomy_sweeps), 0, 'nothing was recorded');

select throws_ok($$ select community_deletion._normalize_store_identity('{"s3_endpoint": "http://x", "s3_bucket": "b", "redis_server": "unix:"}', 't') $$,
  'DL1I1', null, 'a Redis socket without a path is refused');
select throws_ok($$ select community_deletion._normalize_store_identity('{"s3_endpoint": "http://x", "s3_bucket": "b", "redis_server": "unix:/"}', 't') $$,
  'DL1I1', null, 'and so is the root directory');
select is(community_deletion._normalize_store_identity('{"s3_endpoint": "http://x", "s3_bucket": "b", "redis_server": "unix:/run/redis.sock"}', 't') ->> 'redis_server',
  'unix:/run/redis.sock', 'a socket path is kept');

select throws_ok($$ select * from community_deletion.list_requests(100, null, '   ') $$,
  'DL1I1', null, 'a blank host filter is refused');

select tests.lc_approved('edges-claim.example') as crid \gset
select throws_ok(format($$ select * from community_deletion.claim(E'exec\u001b[2J', %L, 60) $$, :'crid'),
  'DL1I1', null, 'an executor id with control characters is refused');
select is((select lease_owner from community_deletion.requests where id = :'crid'), null, 'and nothing was claimed');

select * from finish();
rollback;
