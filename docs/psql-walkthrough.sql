-- A DBA's deletion session from psql: submit, freeze the inventory, approve
-- as a second person, inspect, list. Nothing here deletes anything: an
-- approved request waits for an executor (`deletions run ID`), and stays
-- abortable until object deletion begins.
--
-- The storage half of the inventory (object versions under the community's
-- three owned S3 prefixes) cannot be computed in SQL: PostgreSQL cannot list
-- S3. It comes from `deletions plan --host H --json`, which lists the prefixes
-- exactly as `deletions submit` does and prints the summary in the form
-- community_deletion.freeze_inventory takes ("storage_summary"). Trying it
-- on a freshly migrated database (README, "SQL API"; the seed command: README,
-- "Where communities and their data come from"):
--
--   npm run seed -- --host tenant.example
--   bin/deletions plan --host tenant.example --json > plan.json
--   psql "$DATABASE_URL" -v host=tenant.example -v requester=alice -v approver=bob \
--        -v plan=plan.json -f docs/psql-walkthrough.sql
--
-- The requester and the approver are two people with two database logins:
-- the approval is refused (DL3A1) from the login that submitted, whatever
-- name is typed, and from the same typed identity. This script connects
-- again as approver_login (default: the approver's name) for the approval
-- (psql asks for its password if the server wants one); that login needs the
-- role community_deletion_operator. When that login does not exist yet and
-- this session may create roles (trying it locally), the script creates it;
-- in production every operator has their own login already.
\set ON_ERROR_STOP on
\if :{?host} \else \set host 'tenant.example' \endif
\if :{?requester} \else \set requester 'alice' \endif
\if :{?approver} \else \set approver 'bob' \endif
\if :{?approver_login} \else \set approver_login :approver \endif
\if :{?plan} \else \set plan 'plan.json' \endif

\qecho '-- the plan `deletions plan --host' :host '--json` wrote to' :plan
\set plan_readable `test -r :'plan' && echo true || echo false`
\if :plan_readable
\else
  \warn 'no plan file: run bin/deletions plan --host HOST --json > plan.json first, and pass it with -v plan=FILE'
  select ('cannot read the plan file ' || :'plan')::uuid;   -- stops here (ON_ERROR_STOP)
\endif
\set plan_json `cat :'plan'`
-- The host's community (community_deletion.plan refuses an unknown host, DL1N2, and a
-- tombstone, DL2C1), and whether the plan file describes it.
select p ->> 'community_id' as community_id,
       (:'plan_json'::jsonb ->> 'community_id') is not distinct from (p ->> 'community_id') as plan_matches
  from community_deletion.plan(:'host') p \gset
\if :plan_matches
\else
  \warn 'the plan file describes another community: run deletions plan --host HOST --json > plan.json again'
  -- stop here (ON_ERROR_STOP), before any request is opened
  select ('plan file for community ' || coalesce(:'plan_json'::jsonb ->> 'community_id', 'none') || ', not ' || :'community_id')::uuid;
\endif

\qecho '-- what a deletion would remove: rows per table (community_deletion.plan, read-only, nothing is created)'
select t ->> 'table' as table_name, t ->> 'action' as action, (t ->> 'rows')::bigint as rows
  from jsonb_array_elements(community_deletion.plan(:'host') -> 'tables') t
 where (t ->> 'rows')::bigint > 0;
\qecho '-- ... and object versions per owned prefix, as the plan listed them in S3'
select p ->> 'prefix' as prefix, (p ->> 'object_versions')::bigint as object_versions,
       (p ->> 'delete_markers')::bigint as delete_markers, (p ->> 'total_bytes')::bigint as bytes
  from jsonb_array_elements(:'plan_json'::jsonb -> 's3' -> 'prefixes') p;

\qecho '-- submit: resolve the host (case-insensitively) and open the request'
select id as request_id, community_id, community_host, stage
  from community_deletion.submit(:'host', :'requester', 'tenant asked for deletion (ticket OPS-1234)') \gset
\qecho request :request_id for community :community_id

\qecho '-- freeze: the schema half is computed in SQL; the storage half is the plan''s storage summary'
\qecho '-- (a summary of any other community''s prefixes is refused, DL1M1). The digest binds both.'
\qecho '-- The stores the plan listed (store_identity: S3 endpoint + bucket, Redis server + database)'
\qecho '-- are recorded too (required, DL1I1 without them): every executor step must present the'
\qecho '-- same ones (DL4S1 otherwise).'
select stage, inventory_digest, store_identity
  from community_deletion.freeze_inventory(:'request_id', :'plan_json'::jsonb -> 'storage_summary',
                                           :'plan_json'::jsonb -> 'store_identity');

\qecho '-- review what will be deleted: per-table row counts frozen into the inventory'
select key as table_name, value::bigint as rows
  from community_deletion.requests r, jsonb_each_text(r.schema_manifest->'row_counts')
 where r.id = :'request_id' and value::bigint > 0
 order by key;

\qecho '-- approve (a second operator, from their own login): binds the approval to the exact digest.'
\qecho '-- Optional grace period: community_deletion.approve(id, who, note, not_before => time)'
\qecho '-- or delay => interval; nothing runs before it and abort stays possible.'
select not exists (select 1 from pg_catalog.pg_roles where rolname = :'approver_login') as create_approver_login \gset
\if :create_approver_login
  \qecho '-- (trying it) creating the second operator''s login' :approver_login
  create role :"approver_login" login;
  grant community_deletion_operator to :"approver_login";
\endif
\connect - :approver_login
select stage, next_attempt_at
  from community_deletion.approve(:'request_id', :'approver', 'reviewed row counts with the tenant owner');

\qecho '-- inspect: request, approval, checkpoints, and why it is (not) progressing'
select community_deletion.inspect(:'request_id')->>'state' as state,
       community_deletion.inspect(:'request_id')->>'explanation' as explanation;
select jsonb_pretty(community_deletion.inspect(:'request_id') - 'request');

\qecho '-- list: newest first (1..1000 rows)'
select request_id, community_host, stage, state, requested_by, approved_by, created_at
  from community_deletion.list_requests(20);

-- Later, if needed:
--   select * from community_deletion.abort(:'request_id', 'carol', 'tenant changed their mind');   -- submitted … fenced
--   select * from community_deletion.unblock(:'request_id', 'carol', 'fixed the bucket policy');   -- after a durable block
