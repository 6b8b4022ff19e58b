-- community_deletion.approve: only an inventoried, unblocked request; the approver must
-- differ from the requester; the stored inventory must still hash to its
-- digest; records immutable approval evidence bound to the digest; moves to
-- approved.
begin;
select plan(17);
\ir ../fixtures/lifecycle.sql

select tests.lc_inventoried('approve.example', 'alice') as rid \gset

select throws_ok(format($$ select tests.approve(%L, 'alice') $$, :'rid'), 'DL3A1', null,
  'the requester cannot approve their own request');
select throws_ok(format($$ select tests.approve(%L, '  ALICE ') $$, :'rid'), 'DL3A1', null,
  'identities compare trimmed and case-insensitively');
select throws_ok(format($$ select tests.approve(%L, '   ') $$, :'rid'), 'DL1I1', null,
  'a blank approver is refused');
select throws_ok(format($$ select tests.approve(%L, 'bob') $$, gen_random_uuid()), 'DL1N1', null,
  'an unknown request is refused');

-- A tampered inventory (forced past the freeze guard) no longer matches its digest.
select tests.lc_force(format($$ update community_deletion.requests
   set inventory_manifest = jsonb_set(inventory_manifest, '{schema,row_counts,users}', '0') where id = %L $$, :'rid')) \g /dev/null
select throws_ok(format($$ select tests.approve(%L, 'bob') $$, :'rid'), 'DL3A2', null,
  'approval recomputes the digest and refuses a mismatch');
select tests.lc_force(format($$ update community_deletion.requests
   set inventory_manifest = jsonb_build_object('schema', schema_manifest, 'storage', storage_manifest) where id = %L $$, :'rid')) \g /dev/null

-- Blocked requests are not approved.
select 1 from community_deletion.block_preclaim(:'rid', 'service_setup', 'held for review') \g /dev/null
select throws_ok(format($$ select tests.approve(%L, 'bob') $$, :'rid'), 'DL2B1', null,
  'a blocked request is not approved');
select 1 from community_deletion.unblock(:'rid', 'carol', 'review done') \g /dev/null

select is((select stage from tests.approve(:'rid', ' bob ', ' looks right ')), 'approved',
  'a second operator approves: inventoried -> approved');
select is((select approved_by from community_deletion.approvals where request_id = :'rid'), 'bob',
  'the approval records the approver (trimmed)');
select is((select note from community_deletion.approvals where request_id = :'rid'), 'looks right',
  'the approval records the note');
select is(
  (select a.inventory_digest from community_deletion.approvals a where a.request_id = :'rid'),
  (select r.inventory_digest from community_deletion.requests r where r.id = :'rid'),
  'the approval is bound to the request''s exact digest');
select is(
  (select a.community_id from community_deletion.approvals a where a.request_id = :'rid'),
  (select r.community_id from community_deletion.requests r where r.id = :'rid'),
  'the approval is bound to the request''s community');
select is((select not_before from community_deletion.approvals where request_id = :'rid'), now(),
  'without a grace period the approval is effective now');
select is((select next_attempt_at from community_deletion.requests where id = :'rid'), now(),
  'the request becomes eligible at not_before');

select throws_ok(format($$ select tests.approve(%L, 'carol') $$, :'rid'), 'DL2S1', null,
  'an approved request cannot be approved again');

select tests.seed_community('approve-early.example', 1) as c2 \gset
select id as rid2 from community_deletion.submit('approve-early.example', 'alice') \gset
select throws_ok(format($$ select tests.approve(%L, 'bob') $$, :'rid2'), 'DL2S1', null,
  'a submitted request (no frozen inventory) cannot be approved');

-- The database itself refuses a self-approval or an approval at the wrong stage.
select throws_ok(format($$ insert into community_deletion.approvals
  (request_id, community_id, inventory_digest, approved_by, not_before)
  select id, community_id, inventory_digest, 'Alice', now() from community_deletion.requests where id = %L $$, :'rid2'),
  'DL2S1', null, 'a direct approval insert for a request that is not inventoried is refused');
select tests.lc_inventoried('approve-direct.example', 'alice') as rid3 \gset
select throws_ok(format($$ insert into community_deletion.approvals
  (request_id, community_id, inventory_digest, approved_by, not_before)
  select id, community_id, inventory_digest, ' alice', now() from community_deletion.requests where id = %L $$, :'rid3'),
  'DL3A1', null, 'a direct self-approval insert is refused by the database');

select * from finish();
rollback;
