-- The moment community p_community's serving-write leases end at the latest
-- because the community is being deleted: the start of quiescing of its open
-- (not terminal) deletion request plus settings.serving_lease_quiescing_cap;
-- NULL when no request has begun quiescing. A lease acquired before
-- quiescing (for up to an hour) lives no longer than that wherever it is
-- checked — renewal (renew_serving_lease), the guard and verification
-- (_serving_lease_check), the writes the fence and the destructive steps
-- wait for (_serving_writes_in_flight) and abort's live leases — so the
-- cap, not the longest lease an application took, bounds how long the fence
-- waits.
create or replace function community_deletion._serving_lease_deadline(p_community uuid)
  returns timestamptz
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.min(r.quiescing_started_at + s.serving_lease_quiescing_cap)
    from community_deletion.requests r cross join community_deletion.settings s
   where r.community_id = p_community and r.quiescing_started_at is not null
     and not community_deletion._stage_is_terminal(r.stage)
$$;
