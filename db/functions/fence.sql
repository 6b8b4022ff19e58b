-- approved stage, step 2 (docs/design.md#lifecycle, docs/design.md#write-fence): close the fence. Same lock discipline
-- as community_deletion.begin_quiescing (verify, community lock EXCLUSIVE, verify again,
-- catalog re-check under the shared schema/destruction lock: every scoped table
-- must carry the fence at the moment it closes, DL7C1 otherwise).
-- Requires the community to be quiescing (wrong_stage DL2S1: call
-- community_deletion.begin_quiescing first) and no live serving-write lease
-- (serving_not_drained DL5D1, retryable, message and DETAIL name the count and
-- operations). Then: fence generation + 1, community fenced, request fenced with
-- that generation, checkpoint approved/activate_fence. Returns the new fence
-- generation — the token every later stage presents.
create or replace function community_deletion.fence(request_id uuid, executor_id text, lease_generation bigint)
  returns bigint
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
  v_live bigint;
  v_operations text[];
  v_new_generation bigint;
begin
  perform community_deletion._require_read_committed('community_deletion.fence');
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_community_for_transition(v_request.community_id);
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  select c.* into v_community from public.communities c where c.id = v_request.community_id for update;
  if v_community.deletion_state is distinct from 'quiescing' then
    raise exception 'community % of request % is %, not quiescing: it cannot be fenced yet',
      v_request.community_id, p_request_id, coalesce(v_community.deletion_state, 'missing')
      using errcode = 'DL2S1',
            hint = 'Call community_deletion.begin_quiescing first.';
  end if;
  -- Unreleased serving leases, live or expired within the grace: a writer
  -- may still be finishing (_serving_writes_in_flight). A lease ends at the
  -- latest at _serving_lease_deadline (quiescing's start plus the cap).
  v_operations := community_deletion._serving_writes_in_flight(v_request.community_id);
  select count(*) into v_live
    from community_deletion.serving_write_leases l
   where l.community_id = v_request.community_id
     and community_deletion._serving_lease_end(l.lease_until, v_request.community_id)
         + (select s.serving_lease_grace from community_deletion.settings s) >= now();
  if v_live > 0 then
    raise exception 'community % of request % is not drained: % serving-write lease(s) not released (%)',
      v_request.community_id, p_request_id, v_live, pg_catalog.array_to_string(v_operations, ', ')
      using errcode = 'DL5D1',
            detail = pg_catalog.jsonb_build_object('community_id', v_request.community_id,
                                                   'live_leases', v_live, 'operations', v_operations)::text,
            hint = 'Retry after the admitted serving-write leases are released, or expired more than settings.serving_lease_grace ago.';
  end if;
  v_new_generation := v_community.deletion_fence_generation + 1;
  perform community_deletion._refuse_invoker_code('public.communities', 'update');
  update public.communities c
     set deletion_state = 'fenced',
         deletion_fence_generation = v_new_generation,
         archived_at = coalesce(c.archived_at, now())
   where c.id = v_request.community_id and c.deletion_state = 'quiescing'
     and c.deletion_fence_generation = v_community.deletion_fence_generation;
  if not found then
    raise exception 'community % of request % changed while fencing', v_request.community_id, p_request_id
      using errcode = 'DL4L1';
  end if;
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'approved', 'fenced', v_new_generation);
  perform community_deletion._checkpoint(p_request_id, 'approved', 'activate_fence', 'completed', p_generation,
    pg_catalog.jsonb_build_object('fence_generation', v_new_generation,
                                  'previous_fence_generation', v_community.deletion_fence_generation));
  return v_new_generation;
end;
$$;
