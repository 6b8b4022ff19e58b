-- Lease verification: every executor-side mutation calls one of these inside
-- its own transaction before it changes anything. Plain reads, no row locks:
-- the lock order is "community advisory lock, then rows", and a row lock taken
-- here (before a caller's community lock) would deadlock against abort.
--
-- As community_deletion._verify_lease, and also: the request carries fence generation
-- p_fence_generation and its community is fenced (or tombstoned) at exactly that
-- generation. Every stage after the fence uses this variant, so an abort (which
-- bumps the community's generation) invalidates every older token.
create or replace function community_deletion._verify_lease_and_fence(
  p_request_id uuid, p_owner text, p_generation bigint, p_stage text, p_fence_generation bigint)
  returns community_deletion.requests
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_request community_deletion.requests;
  v_state text;
  v_community_generation bigint;
  v_reason text;
begin
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, p_stage);
  select c.deletion_state, c.deletion_fence_generation into v_state, v_community_generation
    from public.communities c where c.id = v_request.community_id;
  if p_fence_generation is null then
    v_reason := 'no fence generation was presented';
  elsif v_request.fence_generation is distinct from p_fence_generation then
    v_reason := format('the request is at fence generation %s, not %s',
                       coalesce(v_request.fence_generation::text, '(none)'), p_fence_generation);
  elsif v_state is null or v_state not in ('fenced', 'tombstone') then
    v_reason := format('community %s is %s, not fenced', v_request.community_id, coalesce(v_state, 'missing'));
  elsif v_community_generation is distinct from p_fence_generation then
    v_reason := format('community %s is at fence generation %s, not %s',
                       v_request.community_id, v_community_generation, p_fence_generation);
  end if;
  if v_reason is not null then
    raise exception 'stale deletion lease for request % (owner %, generation %, fence generation %): %',
      p_request_id, p_owner, p_generation, p_fence_generation, v_reason
      using errcode = 'DL4L1',
            hint = 'Ownership or the fence was lost: stop work on this request.';
  end if;
  return v_request;
end;
$$;
