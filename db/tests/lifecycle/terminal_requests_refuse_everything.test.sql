-- aborted and retention_pending are terminal: no claim, no unblock, no
-- setup failure, no abort, no approval, no freeze is accepted against them.
begin;
select plan(12);
\ir ../fixtures/lifecycle.sql

select tests.lc_approved('terminal-aborted.example') as ab \gset
select 1 from community_deletion.abort(:'ab', 'carol', 'cancel') \g /dev/null
select tests.lc_approved('terminal-done.example') as done \gset
select tests.lc_force(format($$ update community_deletion.requests set stage = 'retention_pending', completed_at = now(),
  fence_generation = 1, blocked_at = now(), blocked_reason = 'forced for the test' where id = %L $$, :'done')) \g /dev/null

select is((select count(*)::int from community_deletion.claim('exec-1', :'ab')), 0, 'aborted: not claimable');
select is((select count(*)::int from community_deletion.claim('exec-1', :'done')), 0, 'retention_pending: not claimable');
select throws_ok(format($$ select community_deletion.unblock(%L, 'carol', 'x') $$, :'ab'), 'DL2T1', null, 'aborted: no unblock');
select throws_ok(format($$ select community_deletion.unblock(%L, 'carol', 'x') $$, :'done'), 'DL2T1', null, 'retention_pending: no unblock');
select throws_ok(format($$ select community_deletion.block_preclaim(%L, 'u', 'x') $$, :'ab'), 'DL2T1', null, 'aborted: no setup failure');
select throws_ok(format($$ select community_deletion.block_preclaim(%L, 'u', 'x') $$, :'done'), 'DL2T1', null, 'retention_pending: no setup failure');
select throws_ok(format($$ select community_deletion.abort(%L, 'carol', 'x') $$, :'ab'), 'DL2T1', null, 'aborted: no second abort');
select throws_ok(format($$ select community_deletion.abort(%L, 'carol', 'x') $$, :'done'), 'DL2T1', null, 'retention_pending: no abort');
select throws_ok(format($$ select tests.approve(%L, 'dave') $$, :'ab'), 'DL2T1', null, 'aborted: no approval');
select throws_ok(format($$ select community_deletion.freeze_inventory(%L, '{}', tests.store_identity()) $$, :'ab'), 'DL2T1', null, 'aborted: no freeze');
select throws_ok(format($$ select tests.approve(%L, 'dave') $$, :'done'), 'DL2T1', null, 'retention_pending: no approval');
select is((select count(*)::int from community_deletion.checkpoints where request_id in (:'ab', :'done') and unit_key like 'pre\_claim:%'), 0,
  'no checkpoint was written against a terminal request');

select * from finish();
rollback;
