-- Serving-write leases are admitted only while the community is active; the
-- lease carries the community's fence generation.
begin;
\ir ../fixtures/fence.sql
select plan(10);

select tests.seed_community('lease.example', 1) as c \gset
update public.communities set archived_at = null where id = :'c';

set local role community_deletion_app;
select (l).fence_generation as fg, (l).generation as g, (l).lease_until - (l).acquired_at as len, (l).operation as op
  from (select community_deletion.acquire_serving_lease(:'c', 'media_upload', 'relay-1', 45) as l) x \gset
reset role;
select is(:fg::bigint, 0::bigint, 'the lease carries the community''s current fence generation');
select is(:g::bigint, 1::bigint, 'a new lease is generation 1');
select is(:'len'::interval, interval '45 seconds', 'the lease lasts the requested seconds');
select is(:'op'::text, 'media_upload', 'the lease names its operation');

select throws_ok($$ select community_deletion.acquire_serving_lease('00000000-0000-4000-8000-00000000dead', 'x', 'y') $$,
  'DL1N2', null, 'an unknown community is refused (community_not_found)');
select throws_ok(format($$ select community_deletion.acquire_serving_lease(%L, ' ', 'y') $$, :'c'),
  'DL1I1', null, 'a blank operation is refused');
select throws_ok(format($$ select community_deletion.acquire_serving_lease(%L, 'x', 'y', 0) $$, :'c'),
  'DL1I1', null, 'a lease length outside 1..3600 seconds is refused');

select tests.fx_force_state(:'c', 'quiescing');
select throws_ok(format($$ select community_deletion.acquire_serving_lease(%L, 'x', 'y') $$, :'c'),
  'DL5S1', null, 'quiescing: acquisition refused (serving_lease_denied)');
select tests.fx_force_state(:'c', 'fenced', 1);
select throws_ok(format($$ select community_deletion.acquire_serving_lease(%L, 'x', 'y') $$, :'c'),
  'DL5S1', null, 'fenced: acquisition refused (serving_lease_denied)');
select tests.fx_force_state(:'c', 'tombstone', 1);
select throws_ok(format($$ select community_deletion.acquire_serving_lease(%L, 'x', 'y') $$, :'c'),
  'DL5S1', null, 'tombstone: acquisition refused (serving_lease_denied)');

select * from finish();
rollback;
