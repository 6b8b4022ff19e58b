-- Operator API: everything about one request as jsonb: the request row, its
-- community's lifecycle columns, its approval (or null), its checkpoints in
-- order, and why it is (not) progressing: "state" (one machine word, see
-- community_deletion._request_state) and "explanation" (one human sentence).
create or replace function community_deletion.inspect(request_id uuid)
  returns jsonb
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  v_request community_deletion.requests;
  v_approval community_deletion.approvals;
  v_state text;
  v_explanation text;
begin
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  select a.* into v_approval from community_deletion.approvals a where a.request_id = p_request_id;
  select s.state, s.explanation into v_state, v_explanation
    from community_deletion._request_state(v_request, v_approval) s;
  return jsonb_build_object(
    'request', to_jsonb(v_request),
    'community', (select jsonb_build_object(
                           'id', c.id, 'host', c.host, 'deletion_state', c.deletion_state,
                           'deletion_fence_generation', c.deletion_fence_generation,
                           'archived_at', c.archived_at, 'deleted_at', c.deleted_at)
                    from public.communities c where c.id = v_request.community_id),
    'approval', case when v_approval.request_id is null then null else to_jsonb(v_approval) end,
    'checkpoints', coalesce((select jsonb_agg(to_jsonb(cp) - 'request_id' order by cp.sequence)
                               from community_deletion.checkpoints cp
                              where cp.request_id = p_request_id), '[]'::jsonb),
    'state', v_state,
    'explanation', v_explanation);
end;
$$;
