-- Executor API: the stores this executor is configured for must be the ones
-- the request was inventoried against. The executor calls it with its
-- current store identity (S3 endpoint + bucket, Redis server + database; see
-- community_deletion._normalize_store_identity) and lease token at the start
-- of every step — right after the claim, before any effect, and so before
-- each destructive S3, PostgreSQL and Redis phase. Refusals: a stale token
-- (DL4L1); another identity (store_mismatch, DL4S1: permanent, the message
-- names the recorded and the presented stores, the hint what to do) — the
-- executor then records a block, before anything irreversible.
--
-- A request frozen without an identity (before the store-identity migration,
-- or by a DBA's freeze_inventory without store_identity before migration
-- 000037 made it required) has it recorded here, by the first executor step
-- that presents one, with a checkpoint store_identity_recorded; from then on
-- every step is compared with it.
-- Returns the recorded canonical identity.
create or replace function community_deletion.verify_store_identity(
  request_id uuid, executor_id text, lease_generation bigint, store_identity jsonb)
  returns jsonb
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
  p_owner alias for $2;
  p_generation alias for $3;
  p_identity alias for $4;
  v_identity jsonb := community_deletion._normalize_store_identity(p_identity, 'store_identity');
  v_request community_deletion.requests;
  v_differs text[];
begin
  perform community_deletion._apply_lock_timeout();
  -- Held until commit: a claim cannot take over between the check and the record.
  perform community_deletion._lock_request(p_request_id);
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id;
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, v_request.stage);

  if v_request.store_identity is null then
    update community_deletion.requests r
       set store_identity = v_identity, store_identity_recorded_at = now(), updated_at = now()
     where r.id = p_request_id and r.store_identity is null;
    perform community_deletion._checkpoint(p_request_id, v_request.stage, 'store_identity_recorded', 'completed', p_generation,
      jsonb_build_object('store_identity', v_identity,
                         'note', 'the inventory was frozen without a store identity; recorded at the first executor step'));
    return v_identity;
  end if;

  if v_request.store_identity = v_identity then
    return v_identity;
  end if;
  select array_agg(k order by k) into v_differs
    from jsonb_object_keys(v_identity) k
   where v_request.store_identity -> k is distinct from v_identity -> k;
  raise exception 'store mismatch for deletion request % (community %): it was inventoried against %, but this executor is configured for % (differing: %); nothing was touched. Run the executor with the recorded stores (BUZZ_S3_ENDPOINT, BUZZ_S3_BUCKET, REDIS_URL with its database), then `deletions unblock %` (community_deletion.unblock)',
    p_request_id, v_request.community_id,
    community_deletion._describe_store_identity(v_request.store_identity),
    community_deletion._describe_store_identity(v_identity),
    array_to_string(v_differs, ', '), p_request_id
    using errcode = 'DL4S1',
          hint = 'If the request really belongs to other stores, abort it (up to fenced) and submit again; past fenced, run it against the recorded stores.';
end;
$$;
