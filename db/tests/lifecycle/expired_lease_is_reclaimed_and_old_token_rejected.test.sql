-- Executor death: the lease expires, a successor reclaims at generation + 1,
-- and the old token is then rejected (stale_lease, DL4L1) by every
-- lease-verified call.
begin;
select plan(12);
\ir ../fixtures/lifecycle.sql

select tests.lc_approved('reclaim.example') as rid \gset
select tests.lc_claim(:'rid', 'exec-old') as g1 \gset

select is((select count(*)::int from community_deletion.claim('exec-new', :'rid')), 0,
  'a live lease cannot be reclaimed');
update community_deletion.requests set lease_until = now() - interval '1 second' where id = :'rid';
select throws_ok(format($$ select community_deletion.verify_token(%L, 'exec-old', %s, 'approved') $$, :'rid', :g1),
  'DL4L1', null, 'an expired lease no longer verifies');
select throws_ok(format($$ select community_deletion.heartbeat(%L, 'exec-old', %s) $$, :'rid', :g1),
  'DL4L1', null, 'an expired lease cannot be renewed');

select tests.lc_claim(:'rid', 'exec-new') as g2 \gset
select is(:g2::bigint, :g1::bigint + 1, 'the successor holds generation + 1');
select lives_ok(format($$ select community_deletion.verify_token(%L, 'exec-new', %s, 'approved') $$, :'rid', :g2),
  'the successor''s token verifies');

select throws_ok(format($$ select community_deletion.verify_token(%L, 'exec-old', %s, 'approved') $$, :'rid', :g1),
  'DL4L1', null, 'old token: verify_token refuses');
select throws_ok(format($$ select community_deletion.heartbeat(%L, 'exec-old', %s) $$, :'rid', :g1),
  'DL4L1', null, 'old token: heartbeat refuses');
select throws_ok(format($$ select community_deletion.record_failure(%L, 'exec-old', %s, 'approved', 'u', 'late') $$, :'rid', :g1),
  'DL4L1', null, 'old token: record_failure refuses');
select throws_ok(format($$ select community_deletion.block(%L, 'exec-old', %s, 'approved', 'u', 'late') $$, :'rid', :g1),
  'DL4L1', null, 'old token: block refuses');
select throws_ok(format($$ select community_deletion._advance(%L, 'exec-old', %s, 'approved', 'fenced', 1) $$, :'rid', :g1),
  'DL4L1', null, 'old token: advance refuses');
select is(community_deletion.release(:'rid', 'exec-old', :g1), false, 'old token: release is a harmless no-op');
select is((select lease_owner from community_deletion.requests where id = :'rid'), 'exec-new',
  'the successor still holds the lease');

select * from finish();
rollback;
