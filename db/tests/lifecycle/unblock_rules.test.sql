-- community_deletion.unblock: only a blocked, non-terminal request without a live lease;
-- keeps target, approval, inventory, stage and fence generation; appends an
-- audited 'operator_unblock:' checkpoint with the previous block reason.
begin;
select plan(15);
\ir ../fixtures/lifecycle.sql

select tests.lc_approved('unblock.example') as rid \gset
select tests.lc_claim(:'rid', 'exec-1') as g \gset

select throws_ok(format($$ select community_deletion.unblock(%L, 'carol', 'nothing to do') $$, :'rid'), 'DL2B2', null,
  'an unblocked request cannot be unblocked');

-- Blocked while an executor still holds a live lease (operator hold).
update community_deletion.requests set blocked_at = now(), blocked_reason = 'operator repair required' where id = :'rid';
select throws_ok(format($$ select community_deletion.unblock(%L, 'carol', 'repaired') $$, :'rid'), 'DL4L2', null,
  'a blocked request with a live executor lease cannot be unblocked yet');
update community_deletion.requests set lease_until = now() - interval '1 second' where id = :'rid';

select throws_ok(format($$ select community_deletion.unblock(%L, '', 'repaired') $$, :'rid'), 'DL1I1', null,
  'a blank operator identity is refused');
select throws_ok(format($$ select community_deletion.unblock(%L, 'carol', '  ') $$, :'rid'), 'DL1I1', null,
  'a blank remediation reason is refused');
select throws_ok(format($$ select community_deletion.unblock(%L, 'carol', 'x') $$, gen_random_uuid()), 'DL1N1', null,
  'an unknown request is refused');

create temporary table before as select * from community_deletion.requests where id = :'rid';
select is((select row(stage, blocked_at, blocked_reason, last_error, lease_owner, next_attempt_at)::text
             from community_deletion.unblock(:'rid', ' carol ', 'bucket policy repaired')),
  row('approved', null::timestamptz, null::text, null::text, null::text, now())::text,
  'unblock clears the block and the expired lease, keeps the stage, and makes the request due now');
select is((select row(r.community_id, r.community_host, r.inventory_digest, r.fence_generation, r.lease_generation)::text
             from community_deletion.requests r where r.id = :'rid'),
  (select row(b.community_id, b.community_host, b.inventory_digest, b.fence_generation, b.lease_generation)::text from before b),
  'target, digest, fence and lease generations are kept');
select is((select count(*)::int from community_deletion.approvals where request_id = :'rid'), 1, 'the approval is kept');
select is((select row(status, stage, detail->>'unblocked_by', detail->>'reason', detail->>'previous_block')::text
             from community_deletion.checkpoints where request_id = :'rid' and unit_key like 'operator\_unblock:%'),
  row('completed', 'approved', 'carol', 'bucket policy repaired', 'operator repair required')::text,
  'an audit checkpoint records who, why and the previous block');
select throws_ok(format($$ select community_deletion.unblock(%L, 'carol', 'again') $$, :'rid'), 'DL2B2', null,
  'a second unblock is refused');
select is((select count(*)::int from community_deletion.claim('exec-2', :'rid')), 1, 'the recovered request is claimable');

-- Each unblock gets its own audit checkpoint.
select 1 from community_deletion.block(:'rid', 'exec-2', (select lease_generation from community_deletion.requests where id = :'rid'),
  'approved', 'dep', 'second failure') \g /dev/null
select 1 from community_deletion.unblock(:'rid', 'dave', 'fixed again') \g /dev/null
select is((select count(*)::int from community_deletion.checkpoints where request_id = :'rid' and unit_key like 'operator\_unblock:%'), 2,
  'every unblock appends its own audit checkpoint');

-- Terminal requests never resume.
select tests.lc_force(format($$ update community_deletion.requests set stage = 'retention_pending', completed_at = now(),
  fence_generation = 1, blocked_at = now(), blocked_reason = 'forced' where id = %L $$, :'rid')) \g /dev/null
select throws_ok(format($$ select community_deletion.unblock(%L, 'carol', 'resume') $$, :'rid'), 'DL2T1', null,
  'a completed (retention_pending) request cannot be unblocked');
select tests.lc_approved('unblock-aborted.example') as rid2 \gset
select 1 from community_deletion.abort(:'rid2', 'carol', 'cancel') \g /dev/null
select throws_ok(format($$ select community_deletion.unblock(%L, 'carol', 'resume') $$, :'rid2'), 'DL2T1', null,
  'an aborted request cannot be unblocked');

-- Unblocking a request during its grace period keeps the grace period.
select tests.lc_inventoried('unblock-grace.example') as rid3 \gset
select 1 from tests.approve(:'rid3', 'bob', null, null, interval '1 hour') \g /dev/null
select 1 from community_deletion.block_preclaim(:'rid3', 'service_setup', 'x') \g /dev/null
select 1 from community_deletion.unblock(:'rid3', 'carol', 'fixed') \g /dev/null
select is((select count(*)::int from community_deletion.claim('exec-3', :'rid3')), 0,
  'unblock does not skip the approval''s grace period');

select * from finish();
rollback;
