-- Keeps a request's evidence immutable (frozen_row, DL6F1): the target
-- (community_id, host), who asked and why, and creation time never change; the
-- frozen inventory (schema/storage/inventory manifests, digest, freeze time),
-- the destructive manifest (and its difference from the approved inventory),
-- the store identity and the pre-quiesce capture change only from unset to
-- set; lease and fence generations never go backwards (an old token must
-- never become current again); a terminal request (aborted,
-- retention_pending) never changes at all. Because the digest cannot change,
-- it cannot drift from the approval bound to it.
create or replace function community_deletion.tg_requests__protect_frozen_fields()
  returns trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_field text;
begin
  if community_deletion._stage_is_terminal(old.stage) and new is distinct from old then
    v_field := 'any column (the request is terminal: ' || old.stage || ')';
  elsif new.id is distinct from old.id then
    v_field := 'id';
  elsif new.community_id is distinct from old.community_id then
    v_field := 'community_id';
  elsif new.community_host is distinct from old.community_host then
    v_field := 'community_host';
  elsif new.requested_by is distinct from old.requested_by then
    v_field := 'requested_by';
  elsif new.requested_login is distinct from old.requested_login then
    v_field := 'requested_login';
  elsif new.reason is distinct from old.reason then
    v_field := 'reason';
  elsif new.created_at is distinct from old.created_at then
    v_field := 'created_at';
  elsif old.schema_manifest is not null and new.schema_manifest is distinct from old.schema_manifest then
    v_field := 'schema_manifest';
  elsif old.storage_manifest is not null and new.storage_manifest is distinct from old.storage_manifest then
    v_field := 'storage_manifest';
  elsif old.inventory_manifest is not null and new.inventory_manifest is distinct from old.inventory_manifest then
    v_field := 'inventory_manifest';
  elsif old.inventory_digest is not null and new.inventory_digest is distinct from old.inventory_digest then
    v_field := 'inventory_digest';
  elsif old.inventory_frozen_at is not null and new.inventory_frozen_at is distinct from old.inventory_frozen_at then
    v_field := 'inventory_frozen_at';
  elsif old.destructive_storage_manifest is not null
        and new.destructive_storage_manifest is distinct from old.destructive_storage_manifest then
    v_field := 'destructive_storage_manifest';
  elsif old.destructive_storage_frozen_at is not null
        and new.destructive_storage_frozen_at is distinct from old.destructive_storage_frozen_at then
    v_field := 'destructive_storage_frozen_at';
  elsif old.store_identity is not null
        and (new.store_identity is distinct from old.store_identity
             or new.store_identity_recorded_at is distinct from old.store_identity_recorded_at) then
    v_field := 'store_identity';
  elsif old.destructive_difference is not null
        and new.destructive_difference is distinct from old.destructive_difference then
    v_field := 'destructive_difference';
  elsif old.quiescing_started_at is not null
        and (new.quiescing_started_at is distinct from old.quiescing_started_at
             or new.pre_quiesce_archived_at is distinct from old.pre_quiesce_archived_at) then
    v_field := 'the pre-quiesce capture (quiescing_started_at, pre_quiesce_archived_at)';
  elsif new.lease_generation < old.lease_generation then
    v_field := 'lease_generation (it never decreases)';
  elsif old.fence_generation is not null
        and (new.fence_generation is null or new.fence_generation < old.fence_generation) then
    v_field := 'fence_generation (it never decreases)';
  end if;
  if v_field is not null then
    raise exception 'deletion request % is frozen: % cannot change', old.id, v_field
      using errcode = 'DL6F1';
  end if;
  return new;
end;
$$;
