-- A request's target, requester, frozen inventory and digest never change once
-- set (so its digest cannot drift from its approval); generations never go
-- back; requests and checkpoints are never deleted; terminal requests are frozen.
begin;
set local client_min_messages = warning;
select plan(20);
\ir ../fixtures/lifecycle.sql

select tests.lc_approved('frozen.example') as rid \gset
select tests.seed_community('frozen-other.example', 1) as other \gset

select throws_ok(format($$ update community_deletion.requests set community_id = %L where id = %L $$, :'other', :'rid'),
  'DL6F1', null, 'the target community cannot be retargeted');
select throws_ok(format($$ update community_deletion.requests set community_host = 'frozen-other.example' where id = %L $$, :'rid'),
  'DL6F1', null, 'the target host cannot change');
select throws_ok(format($$ update community_deletion.requests set requested_by = 'bob' where id = %L $$, :'rid'),
  'DL6F1', null, 'the requester cannot change (which would allow self-approval after the fact)');
select throws_ok(format($$ update community_deletion.requests set schema_manifest = '{}' where id = %L $$, :'rid'),
  'DL6F1', null, 'the frozen schema manifest cannot change');
select throws_ok(format($$ update community_deletion.requests set storage_manifest = '{}' where id = %L $$, :'rid'),
  'DL6F1', null, 'the frozen storage manifest cannot change');
select throws_ok(format($$ update community_deletion.requests set inventory_manifest = '{}' where id = %L $$, :'rid'),
  'DL6F1', null, 'the frozen inventory cannot change');
select throws_ok(format($$ update community_deletion.requests set inventory_digest = repeat('1', 64) where id = %L $$, :'rid'),
  'DL6F1', null, 'the digest cannot drift from its approval');
select throws_ok(format($$ update community_deletion.requests set inventory_frozen_at = now() - interval '1 day' where id = %L $$, :'rid'),
  'DL6F1', null, 'the freeze time cannot change');
select throws_ok(format($$ update community_deletion.requests set inventory_digest = null where id = %L $$, :'rid'),
  'DL6F1', null, 'the digest cannot be cleared');

-- Independently of the trigger, the approval's composite foreign key pins the digest.
alter table community_deletion.requests disable trigger _100_protect_frozen_fields;
select throws_ok(format($$ update community_deletion.requests set inventory_digest = repeat('1', 64) where id = %L $$, :'rid'),
  '23503', null, 'the composite foreign key also pins the approved digest');
alter table community_deletion.requests enable trigger _100_protect_frozen_fields;

select 1 from community_deletion.claim('exec-1', :'rid') \g /dev/null
select throws_ok(format($$ update community_deletion.requests set lease_generation = 0 where id = %L $$, :'rid'),
  'DL6F1', null, 'the lease generation never goes back (an old token never becomes current again)');
select tests.lc_force(format($$ update community_deletion.requests set stage = 'fenced', fence_generation = 3 where id = %L $$, :'rid')) \g /dev/null
select throws_ok(format($$ update community_deletion.requests set fence_generation = 2 where id = %L $$, :'rid'),
  'DL6F1', null, 'the fence generation never goes back');
select throws_ok(format($$ update community_deletion.requests set fence_generation = null where id = %L $$, :'rid'),
  'DL6F1', null, 'the fence generation cannot be cleared');

select throws_ok(format($$ delete from community_deletion.requests where id = %L $$, :'rid'),
  'DL6F1', null, 'a request cannot be deleted');
select throws_ok($$ truncate community_deletion.requests cascade $$,
  'DL6F1', null, 'the requests table cannot be truncated');

select community_deletion._checkpoint(:'rid', 'fenced', 'unit-a', 'completed', 1) \g /dev/null
select throws_ok(format($$ delete from community_deletion.checkpoints where request_id = %L $$, :'rid'),
  'DL6F1', null, 'a checkpoint cannot be deleted');
select throws_ok(format($$ update community_deletion.checkpoints set unit_key = 'unit-b' where request_id = %L $$, :'rid'),
  'DL6F1', null, 'a checkpoint''s identity cannot change');
select throws_ok($$ truncate community_deletion.checkpoints $$,
  'DL6F1', null, 'the checkpoints table cannot be truncated');

-- Terminal requests never change again.
select tests.lc_approved('frozen-terminal.example') as rid2 \gset
select 1 from community_deletion.abort(:'rid2', 'carol', 'not needed') \g /dev/null
select throws_ok(format($$ update community_deletion.requests set next_attempt_at = now() + interval '1 day' where id = %L $$, :'rid2'),
  'DL6F1', null, 'an aborted request cannot change');
select throws_ok(format($$ update community_deletion.requests set blocked_at = now(), blocked_reason = 'x' where id = %L $$, :'rid2'),
  'DL6F1', null, 'an aborted request cannot be blocked or otherwise re-armed');

select * from finish();
rollback;
