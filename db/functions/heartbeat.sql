-- Executor API: renews the lease for lease_seconds (1..3600) and records the
-- executor's liveness. Only the exact owner + generation of a live, unblocked
-- lease at a runnable stage with a bound approval is renewed; anything else is
-- stale_lease (DL4L1) — in particular a blocked request cannot renew, so its
-- executor stops. Returns the new lease expiry.
create or replace function community_deletion.heartbeat(
  request_id uuid, executor_id text, lease_generation bigint, mode text default 'run',
  lease_seconds integer default 60, draining boolean default false)
  returns timestamptz
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
  p_mode alias for $4;
  p_lease_seconds alias for $5;
  p_draining alias for $6;
  v_until timestamptz;
begin
  if p_mode is null or p_mode not in ('run', 'drain', 'worker') then
    raise exception 'community deletion: executor mode % is not run, drain or worker', p_mode
      using errcode = 'DL1I1';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception 'community deletion: lease of % seconds is outside 1..3600', p_lease_seconds
      using errcode = 'DL1I1';
  end if;
  update community_deletion.requests r
     set lease_until = now() + make_interval(secs => p_lease_seconds), updated_at = now()
   where r.id = p_request_id
     and r.lease_owner = p_owner
     and r.lease_generation = p_generation
     and r.lease_until >= now()
     and r.blocked_at is null
     and community_deletion._stage_is_runnable(r.stage)
     and exists (select 1 from community_deletion.approvals a
                  where a.request_id = r.id and a.community_id = r.community_id
                    and a.inventory_digest = r.inventory_digest)
  returning r.lease_until into v_until;
  if not found then
    -- Raise with the precise reason.
    perform community_deletion._verify_lease(p_request_id, p_owner, p_generation,
      (select r.stage from community_deletion.requests r where r.id = p_request_id));
    raise exception 'stale deletion lease for request % (owner %, generation %): the stage is not runnable',
      p_request_id, p_owner, p_generation
      using errcode = 'DL4L1';
  end if;
  insert into community_deletion.executor_heartbeats as h (executor_id, mode, request_id, draining)
  values (p_owner, p_mode, p_request_id, coalesce(p_draining, false))
  on conflict (executor_id) do update
     set mode = excluded.mode, request_id = excluded.request_id, draining = excluded.draining,
         heartbeat_at = now(), stopped_at = null;
  return v_until;
end;
$$;
