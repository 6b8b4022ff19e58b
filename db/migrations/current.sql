-- Enter migration here
-- A request bound to its stores, and what the approver approves (issue 14,
-- items 1-2): the store identity a request was inventoried against
-- (requests.store_identity, recorded by freeze_inventory, verified by every
-- executor step through verify_store_identity, store_mismatch DL4S1);
-- approve(digest => prefix) binds the digest the approver reviewed
-- (DL3A2); freeze_destructive_manifest records what appeared or vanished
-- since approval (requests.destructive_difference).
alter table community_deletion.requests
  add column if not exists store_identity jsonb,
  add column if not exists store_identity_recorded_at timestamptz,
  add column if not exists destructive_difference jsonb;

alter table community_deletion.requests
  drop constraint if exists requests_store_identity_shape;
alter table community_deletion.requests
  add constraint requests_store_identity_shape check (
    (store_identity is null) = (store_identity_recorded_at is null)
    and (store_identity is null
         or (jsonb_typeof(store_identity) = 'object'
             and store_identity ?& array['s3_endpoint', 's3_bucket', 'redis_server', 'redis_db'])));
alter table community_deletion.requests
  drop constraint if exists requests_destructive_difference_shape;
alter table community_deletion.requests
  add constraint requests_destructive_difference_shape check (
    destructive_difference is null
    or (jsonb_typeof(destructive_difference) = 'object'
        and destructive_difference ?& array['changed', 'tables', 'prefixes']));

comment on column community_deletion.requests.store_identity is
  'The stores the inventory was taken from (S3 endpoint + bucket, Redis server + database), canonical; every executor step must present the same (verify_store_identity).';
comment on column community_deletion.requests.destructive_difference is
  'Per table rows and per prefix object versions that appeared or vanished between the approved inventory and the post-fence destructive manifest.';

-- New signatures (an extra defaulted argument): the old ones go.
drop function if exists community_deletion.freeze_inventory(uuid, jsonb);
drop function if exists community_deletion.approve(uuid, text, text, timestamptz, interval);

--!include functions/_normalize_store_identity.sql
--!include functions/_describe_store_identity.sql
--!include functions/_inventory_difference.sql
--!include functions/freeze_inventory.sql
--!include functions/approve.sql
--!include functions/verify_store_identity.sql
--!include functions/freeze_destructive_manifest.sql
--!include functions/tg_requests__protect_frozen_fields.sql
--!include engine/grants.sql
--!include engine/comments.sql
