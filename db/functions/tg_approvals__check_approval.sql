-- Admits an approval only for an unblocked request at stage inventoried, and
-- only from someone other than the requester: another typed identity
-- (_same_operator) and another database login — approved_login is set to
-- session_user here, whatever the inserted row said, and must differ from the
-- request's requested_login (unless settings.allow_same_login_approval). The
-- composite foreign key then binds it to the request's exact community and
-- inventory digest.
create or replace function community_deletion.tg_approvals__check_approval()
  returns trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_request community_deletion.requests;
begin
  select r.* into v_request from community_deletion.requests r where r.id = new.request_id;
  if not found then
    return new; -- the foreign key reports the missing request
  end if;
  if v_request.stage <> 'inventoried' then
    raise exception 'deletion request % is at stage %, approvals are recorded only at inventoried',
      v_request.id, v_request.stage
      using errcode = 'DL2S1';
  end if;
  if v_request.blocked_at is not null then
    raise exception 'deletion request % is blocked: %', v_request.id, v_request.blocked_reason
      using errcode = 'DL2B1',
            hint = 'Remediate the cause and run community_deletion.unblock before approving.';
  end if;
  if community_deletion._same_operator(new.approved_by, v_request.requested_by) then
    raise exception 'deletion request %: % requested it and cannot also approve it', v_request.id, new.approved_by
      using errcode = 'DL3A1',
            hint = 'A second operator must approve.';
  end if;
  -- The approving login is whoever is authenticated, never what the row says.
  new.approved_login := session_user;
  if v_request.requested_login = new.approved_login
     and not (select s.allow_same_login_approval from community_deletion.settings s) then
    raise exception 'deletion request %: the database login % submitted it and cannot also approve it',
      v_request.id, new.approved_login
      using errcode = 'DL3A1',
            hint = 'A second operator approves from their own login.';
  end if;
  return new;
end;
$$;
