-- docs/psql-walkthrough.sql works as written: a DBA can submit, freeze with a
-- hand-written storage summary, approve as a second person, inspect and list
-- from psql alone, with two logins. This file runs that exact script (output discarded).
-- The script commits (it is a real session) and reconnects as the approving
-- login; this database is a private clone, and the checks run afterwards in
-- a session of the test's own.
select tests.seed_community('walkthrough.example', 2) as target \gset
\set host 'WALKTHROUGH.example'
\set requester 'alice'
\set approver 'bob'
\set approver_login 'cd_test_approver'
\o /dev/null
\ir ../../../docs/psql-walkthrough.sql
\o
\connect - postgres

begin;
select plan(8);
select is(:'community_id'::uuid, :'target'::uuid, 'the walkthrough resolved the host to the community');
select is((select stage from community_deletion.requests where id = :'request_id'), 'approved',
  'the walkthrough leaves the request approved');
select is((select (approved_by, approved_login)::text from community_deletion.approvals where request_id = :'request_id'),
  '(bob,cd_test_approver)', 'approved by the second operator, from the second login');
select is((select requested_login from community_deletion.requests where id = :'request_id'), 'postgres',
  'submitted from the first login');
select is((select requested_by from community_deletion.requests where id = :'request_id'), 'alice',
  'requested by the first operator');
select is((select storage_manifest->'prefixes'->0->>'prefix' from community_deletion.requests where id = :'request_id'),
  '_meta/' || :'target' || '/', 'the hand-written storage summary was accepted');
select is(community_deletion.inspect(:'request_id')->>'state', 'runnable', 'inspect says it is ready for an executor');
select is((select request_id from community_deletion.list_requests(1)), :'request_id'::uuid, 'list shows it first');

select * from finish();
rollback;
