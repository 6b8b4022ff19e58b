-- Approvals are immutable evidence: no column can be updated, the row cannot be
-- deleted or truncated away, and a mismatched approval is unrepresentable.
begin;
select plan(9);
\ir ../fixtures/lifecycle.sql

select tests.lc_approved('approval-frozen.example') as rid \gset
select tests.seed_community('approval-other.example', 1) as other \gset

select throws_ok(format($$ update community_deletion.approvals set approved_by = 'mallory' where request_id = %L $$, :'rid'),
  'DL6F1', null, 'the approver cannot be rewritten');
select throws_ok(format($$ update community_deletion.approvals set note = 'rewritten' where request_id = %L $$, :'rid'),
  'DL6F1', null, 'the note cannot be rewritten');
select throws_ok(format($$ update community_deletion.approvals set approved_at = now() + interval '1 hour' where request_id = %L $$, :'rid'),
  'DL6F1', null, 'the approval time cannot be rewritten');
select throws_ok(format($$ update community_deletion.approvals set not_before = now() - interval '1 hour' where request_id = %L $$, :'rid'),
  'DL6F1', null, 'the grace period cannot be shortened');
select throws_ok(format($$ update community_deletion.approvals set inventory_digest = repeat('0', 64) where request_id = %L $$, :'rid'),
  'DL6F1', null, 'the approved digest cannot be rewritten');
select throws_ok(format($$ delete from community_deletion.approvals where request_id = %L $$, :'rid'),
  'DL6F1', null, 'the approval cannot be deleted');
select throws_ok($$ truncate community_deletion.approvals cascade $$,
  'DL6F1', null, 'the approvals table cannot be truncated');

-- Mismatched approvals are unrepresentable (composite foreign key), even when
-- the guard trigger is bypassed.
select tests.lc_inventoried('approval-mismatch.example') as rid2 \gset
alter table community_deletion.approvals disable trigger _100_check_approval;
select throws_ok(format($$ insert into community_deletion.approvals
  (request_id, community_id, inventory_digest, approved_by, not_before)
  select id, community_id, repeat('0', 64), 'bob', now() from community_deletion.requests where id = %L $$, :'rid2'),
  '23503', null, 'an approval for another digest is unrepresentable');
select throws_ok(format($$ insert into community_deletion.approvals
  (request_id, community_id, inventory_digest, approved_by, not_before)
  select id, %L, inventory_digest, 'bob', now() from community_deletion.requests where id = %L $$, :'other', :'rid2'),
  '23503', null, 'an approval for another community is unrepresentable');

select * from finish();
rollback;
