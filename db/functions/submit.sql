-- Operator API: asks for the deletion of the community whose host matches
-- host case-insensitively. Only an active, never-deleted community is
-- eligible (community_not_eligible, DL2C1; unknown host: DL1N2). At most one
-- non-aborted request exists per community: the same requester resubmitting
-- while it is still submitted gets the existing request back — from the login
-- that submitted it only (not_the_requester, DL3A3: another login typing the
-- requester's name cannot take over the request whose inventory it would then
-- freeze, docs/security.md#two-person-rule); anything else is refused with
-- request_exists (DL2C2) naming the open request.
create or replace function community_deletion.submit(host text, requested_by text, reason text default null)
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
  p_host alias for $1;
  p_requested_by alias for $2;
  p_reason alias for $3;
  v_host text := community_deletion._require_text(p_host, 'host', 253);
  v_requested_by text := community_deletion._require_identity(p_requested_by, 'requested_by');
  v_reason text := community_deletion._require_operator_text(p_reason, 'reason', false);
  v_community public.communities;
  v_request community_deletion.requests;
begin
  perform community_deletion._apply_lock_timeout();
  select c.* into v_community from public.communities c where lower(c.host) = lower(v_host);
  if not found then
    raise exception 'community deletion: no community has host %', v_host
      using errcode = 'DL1N2';
  end if;
  if v_community.deletion_state <> 'active' or v_community.deleted_at is not null then
    raise exception 'community % (%) is %, only an active community can be submitted for deletion',
      v_community.host, v_community.id,
      case when v_community.deleted_at is not null then 'deleted' else v_community.deletion_state end
      using errcode = 'DL2C1';
  end if;

  -- session_user: the authenticated login, whatever role the caller set; the
  -- two-person rule binds to it (approve).
  insert into community_deletion.requests (community_id, community_host, requested_by, requested_login, reason)
  values (v_community.id, v_community.host, v_requested_by, session_user, v_reason)
  on conflict (community_id) where stage <> 'aborted' do nothing
  returning * into v_request;
  if found then
    return v_request;
  end if;

  select r.* into v_request from community_deletion.requests r
   where r.community_id = v_community.id and r.stage <> 'aborted';
  if v_request.stage = 'submitted' and community_deletion._same_operator(v_request.requested_by, v_requested_by) then
    if v_request.requested_login is not null and v_request.requested_login <> session_user then
      raise exception 'deletion request % was submitted by the database login %; the login % cannot continue it, whatever name it types',
        v_request.id, v_request.requested_login, session_user
        using errcode = 'DL3A3',
              hint = 'The requester continues the request from their own login; a second operator only approves it.';
    end if;
    return v_request;
  end if;
  raise exception 'community % (%) already has deletion request % at stage %, requested by %',
    v_community.host, v_community.id, v_request.id, v_request.stage, v_request.requested_by
    using errcode = 'DL2C2',
          hint = 'Inspect the open request with community_deletion.inspect; abort it first if it must be replaced.';
end;
$$;
