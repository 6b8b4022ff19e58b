-- docs/psql-walkthrough.sql works as written: a DBA can submit, freeze with a
-- hand-written storage summary, approve as a second person, inspect and list
-- from psql alone. This file runs that exact script (output discarded).
begin;
select plan(7);

select tests.seed_community('walkthrough.example', 2) as target \gset
\set host 'WALKTHROUGH.example'
\set requester 'alice'
\set approver 'bob'
\o /dev/null
\ir ../../../docs/psql-walkthrough.sql
\o

select is(:'community_id'::uuid, :'target'::uuid, 'the walkthrough resolved the host to the community');
select is((select stage from community_deletion.requests where id = :'request_id'), 'approved',
  'the walkthrough leaves the request approved');
select is((select approved_by from community_deletion.approvals where request_id = :'request_id'), 'bob',
  'approved by the second operator');
select is((select requested_by from community_deletion.requests where id = :'request_id'), 'alice',
  'requested by the first operator');
select is((select storage_manifest->'prefixes'->0->>'prefix' from community_deletion.requests where id = :'request_id'),
  '_meta/' || :'target' || '/', 'the hand-written storage summary was accepted');
select is(community_deletion.inspect(:'request_id')->>'state', 'runnable', 'inspect says it is ready for an executor');
select is((select request_id from community_deletion.list_requests(1)), :'request_id'::uuid, 'list shows it first');

select * from finish();
rollback;
