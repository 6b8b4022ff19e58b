-- approved stage, step 1 (docs/design.md#lifecycle): persist "quiescing" so no new serving-write
-- lease is admitted while admitted ones may renew and finish. Order matters:
-- verify the lease, take the community lock EXCLUSIVELY (waits for every open
-- writer and acquisition holding it shared), verify the lease AGAIN (an abort
-- that won the lock while we waited has terminalised the request and bumped the
-- generation: we must fail with stale_lease DL4L1, never re-quiesce a rescued
-- community), take the schema/destruction lock shared and then ACCESS SHARE
-- on every scoped table (a TRUNCATE in progress finishes first, a later one
-- sees quiescing), re-check the catalog
-- (catalog_drift DL7C1: never start closing a tenant whose tables are not all
-- fenced), capture the pre-quiesce archived_at once, then move the
-- community active → quiescing (archived_at set if it was not). Idempotent
-- while the community is already quiescing. Checkpoint
-- approved/quiesce_serving_writes.
create or replace function community_deletion.begin_quiescing(request_id uuid, executor_id text, lease_generation bigint)
  returns void
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
  v_request community_deletion.requests;
  v_community public.communities;
begin
  perform community_deletion._require_read_committed('community_deletion.begin_quiescing');
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_community_for_transition(v_request.community_id);
  perform community_deletion._lock_request(p_request_id);
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion._lock_scoped_tables_shared();
  perform community_deletion.validate_catalog();
  select c.* into v_community from public.communities c where c.id = v_request.community_id for update;
  if v_community.deletion_state is distinct from 'active' and v_community.deletion_state is distinct from 'quiescing' then
    raise exception 'community % of request % is %, it cannot enter quiescing',
      v_request.community_id, p_request_id, coalesce(v_community.deletion_state, 'missing')
      using errcode = 'DL2C1';
  end if;
  update community_deletion.requests r
     set pre_quiesce_archived_at = v_community.archived_at,
         quiescing_started_at = now(),
         updated_at = now()
   where r.id = p_request_id and r.quiescing_started_at is null;
  perform community_deletion._refuse_invoker_code('public.communities', 'update');
  update public.communities c
     set deletion_state = 'quiescing',
         archived_at = coalesce(c.archived_at, now())
   where c.id = v_request.community_id and c.deletion_state in ('active', 'quiescing')
     and c.deletion_fence_generation = v_community.deletion_fence_generation;
  if not found then
    raise exception 'community % of request % changed while entering quiescing', v_request.community_id, p_request_id
      using errcode = 'DL4L1';
  end if;
  perform community_deletion._checkpoint(p_request_id, 'approved', 'quiesce_serving_writes', 'completed', p_generation,
    pg_catalog.jsonb_build_object('community_state', 'quiescing',
                                  'fence_generation', v_community.deletion_fence_generation,
                                  'pre_quiesce_archived_at', v_community.archived_at));
end;
$$;
