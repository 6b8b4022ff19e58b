-- docs/psql-walkthrough.sql works as written: a DBA can review the plan,
-- submit, freeze with the storage summary `deletions plan --json` printed,
-- approve as a second person, inspect and list from psql alone, with two
-- logins. This file runs that exact script (output discarded) with a plan
-- file shaped as `deletions plan --json` writes it (for this community, which
-- has no objects, the summary of three empty prefixes); the end-to-end test
-- test/e2e/psql-walkthrough-as-the-readme-shows.test.ts runs the README's
-- commands themselves (seed, the real plan, psql) on a freshly migrated database.
-- The script commits (it is a real session) and reconnects as the approving
-- login; this database is a private clone, and the checks run afterwards in
-- a session of the test's own.
\ir ../fixtures/lifecycle.sql
select tests.seed_community('walkthrough.example', 2) as target \gset
\set plan '/tmp/cd-psql-walkthrough-' :DBNAME '.json'
\pset tuples_only on
\pset format unaligned
\o :plan
select jsonb_build_object('host', 'walkthrough.example', 'community_id', :'target',
                          's3', jsonb_build_object('prefixes', '[]'::jsonb),
                          'storage_summary', tests.lc_storage_summary(:'target'),
                          'store_identity', tests.store_identity());
\o
\set host 'WALKTHROUGH.example'
\set requester 'alice'
\set approver 'bob'
\set approver_login 'cd_test_approver'
\o /dev/null
\ir ../../../docs/psql-walkthrough.sql
\o
\connect - postgres
\set removed `rm -f :'plan' && echo removed`

begin;
select plan(9);
select is(:'community_id'::uuid, :'target'::uuid, 'the walkthrough resolved the host to the community');
select is((select stage from community_deletion.requests where id = :'request_id'), 'approved',
  'the walkthrough leaves the request approved');
select is((select (approved_by, approved_login)::text from community_deletion.approvals where request_id = :'request_id'),
  '(bob,cd_test_approver)', 'approved by the second operator, from the second login');
select is((select requested_login from community_deletion.requests where id = :'request_id'), 'postgres',
  'submitted from the first login');
select is((select requested_by from community_deletion.requests where id = :'request_id'), 'alice',
  'requested by the first operator');
select is((select storage_manifest from community_deletion.requests where id = :'request_id'),
  tests.lc_storage_summary(:'target'), 'the plan file''s storage summary was frozen');
select is(community_deletion.inspect(:'request_id')->>'state', 'runnable', 'inspect says it is ready for an executor');
select is((select request_id from community_deletion.list_requests(1)), :'request_id'::uuid, 'list shows it first');
select is(:'removed'::text, 'removed', 'the plan file is cleaned up');

select * from finish();
rollback;
