-- Operator API: freezes the inventory of a submitted request and moves it to
-- inventoried. The schema half is computed here in SQL after validating the
-- catalog (DL7C1 on drift); the storage half is the driver's summary of the
-- three owned prefixes, validated and canonicalised (DL1M1). The canonical
-- inventory is {"schema": …, "storage": …}; its digest is the lowercase hex
-- SHA-256 of its jsonb text, which approval later recomputes and binds to.
-- store_identity: the stores the storage summary was enumerated from (S3
-- endpoint + bucket, Redis server + database), normalised and recorded on the
-- request (community_deletion._normalize_store_identity); every executor step
-- must present the same (community_deletion.verify_store_identity). It is
-- required (invalid_argument, DL1I1, before anything is recorded): a request
-- frozen without one would adopt the first executor's stores, and nothing in
-- the inventory can tell a mistyped Redis server or database from the right
-- one — the engine would purge and prove an empty namespace (the keys kept).
-- `deletions plan --json` prints the identity beside the storage summary.
-- Only the login that submitted the request freezes its inventory
-- (not_the_requester, DL3A3): the approver, from another login, must not
-- produce what they then approve (docs/security.md#two-person-rule). A
-- request submitted before logins were recorded has no login to compare.
create or replace function community_deletion.freeze_inventory(
  request_id uuid, storage_summary jsonb, store_identity jsonb default null)
  returns community_deletion.requests
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_storage_manifest alias for $2;
  p_store_identity alias for $3;
  v_request community_deletion.requests;
  v_state text;
  v_schema jsonb;
  v_storage jsonb;
  v_inventory jsonb;
  v_store_identity jsonb;
begin
  perform community_deletion._apply_lock_timeout();
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is terminal (%)', p_request_id, v_request.stage using errcode = 'DL2T1';
  end if;
  if v_request.stage <> 'submitted' then
    raise exception 'deletion request % is at stage %, the inventory is frozen only at submitted',
      p_request_id, v_request.stage
      using errcode = 'DL2S1';
  end if;
  if v_request.blocked_at is not null then
    raise exception 'deletion request % is blocked: %', p_request_id, v_request.blocked_reason
      using errcode = 'DL2B1', hint = 'Remediate the cause, then run community_deletion.unblock.';
  end if;
  if v_request.requested_login is not null and v_request.requested_login <> session_user then
    raise exception 'deletion request % was submitted by the database login %; the login % cannot freeze its inventory',
      p_request_id, v_request.requested_login, session_user
      using errcode = 'DL3A3',
            hint = 'The requester freezes the inventory (deletions submit, from their own login); a second operator approves it.';
  end if;
  select c.deletion_state into v_state from public.communities c
   where c.id = v_request.community_id and c.deleted_at is null;
  if v_state is distinct from 'active' then
    raise exception 'community % of deletion request % is %, not active',
      v_request.community_id, p_request_id, coalesce(v_state, 'deleted')
      using errcode = 'DL2C1';
  end if;

  if p_store_identity is null or pg_catalog.jsonb_typeof(p_store_identity) = 'null' then
    raise exception 'store_identity is required: the S3 endpoint and bucket and the Redis server and database the storage summary was enumerated from'
      using errcode = 'DL1I1',
            hint = 'Pass store_identity => the "store_identity" object `deletions plan --json` prints (docs/psql-walkthrough.sql); without it an executor configured for another Redis database would prove an empty namespace.';
  end if;
  v_store_identity := community_deletion._normalize_store_identity(p_store_identity, 'store_identity');

  perform community_deletion.validate_catalog();
  v_storage := community_deletion._canonical_storage_summary(v_request.community_id, p_storage_manifest);
  v_schema := community_deletion._schema_manifest(v_request.community_id);
  v_inventory := jsonb_build_object('schema', v_schema, 'storage', v_storage);

  update community_deletion.requests r
     set stage = 'inventoried',
         schema_manifest = v_schema,
         storage_manifest = v_storage,
         inventory_manifest = v_inventory,
         inventory_digest = community_deletion._inventory_digest(v_inventory),
         inventory_frozen_at = now(),
         store_identity = v_store_identity,
         store_identity_recorded_at = case when v_store_identity is null then null else now() end,
         last_error = null,
         last_error_at = null,
         updated_at = now()
   where r.id = p_request_id and r.stage = 'submitted' and r.blocked_at is null
  returning r.* into v_request;
  return v_request;
end;
$$;
