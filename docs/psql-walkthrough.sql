-- A DBA's deletion session from psql alone: submit, freeze the inventory with
-- a hand-written storage summary, approve as a second person, inspect, list.
-- Nothing here deletes anything: an approved request waits for an executor
-- (`deletions run ID`), and stays abortable until object deletion begins.
--
--   psql "$DATABASE_URL" -v host=tenant.example -v requester=alice -v approver=bob \
--        -v approver_login=bob_db_login -f docs/psql-walkthrough.sql
--
-- The requester and the approver are two people with two database logins:
-- the approval is refused (DL3A1) from the login that submitted, whatever
-- name is typed, and from the same typed identity. This script connects
-- again as approver_login for the approval (psql asks for its password if
-- the server wants one); that login needs the role community_deletion_operator.
\set ON_ERROR_STOP on
\if :{?host} \else \set host 'tenant.example' \endif
\if :{?requester} \else \set requester 'alice' \endif
\if :{?approver} \else \set approver 'bob' \endif
\if :{?approver_login} \else \set approver_login 'bob' \endif

\qecho '-- submit: resolve the host (case-insensitively) and open the request'
select id as request_id, community_id, community_host, stage
  from community_deletion.submit(:'host', :'requester', 'tenant asked for deletion (ticket OPS-1234)') \gset
\qecho request :request_id for community :community_id

\qecho '-- freeze: the schema half is computed in SQL; the storage half is the summary of'
\qecho '-- the three owned prefixes (docs/manifest-format.md). This tenant never uploaded'
\qecho '-- media or pushed git, so every prefix is empty: 0 objects, 0 bytes, and the'
\qecho '-- digest of the empty key stream, sha256("") = e3b0c442…b855. For a tenant with'
\qecho '-- objects, take the summary the `deletions` CLI prints for the request.'
select stage, inventory_digest
  from community_deletion.freeze_inventory(:'request_id', format($summary$
    {"version": 1, "chunk_size": 10000, "prefixes": [
      {"prefix": "_meta/%1$s/",    "object_count": 0, "total_bytes": 0,
       "keys_digest": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"prefix": "_uploads/%1$s/", "object_count": 0, "total_bytes": 0,
       "keys_digest": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"prefix": "repos/%1$s/",    "object_count": 0, "total_bytes": 0,
       "keys_digest": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}
    ]}$summary$, :'community_id')::jsonb);

\qecho '-- review what will be deleted: per-table row counts of the target'
select key as table_name, value::bigint as rows
  from community_deletion.requests r, jsonb_each_text(r.schema_manifest->'row_counts')
 where r.id = :'request_id' and value::bigint > 0
 order by key;

\qecho '-- approve (a second operator, from their own login): binds the approval to the exact digest.'
\qecho '-- Optional grace period: community_deletion.approve(id, who, note, not_before => time)'
\qecho '-- or delay => interval; nothing runs before it and abort stays possible.'
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
--   select * from community_deletion.abort(:'request_id', 'carol', 'tenant changed their mind');   -- at approved or fenced only
--   select * from community_deletion.unblock(:'request_id', 'carol', 'fixed the bucket policy');   -- after a durable block
