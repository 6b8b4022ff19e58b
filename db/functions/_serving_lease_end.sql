-- When a serving-write lease of community p_community, running until
-- p_lease_until, ends at the latest: p_lease_until, or
-- _serving_lease_deadline (quiescing's start plus
-- settings.serving_lease_quiescing_cap) when that is earlier. What the
-- fence, the destructive steps (_serving_writes_in_flight, with the grace)
-- and abort count a lease live by.
create or replace function community_deletion._serving_lease_end(p_lease_until timestamptz, p_community uuid)
  returns timestamptz
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select least(p_lease_until, coalesce(community_deletion._serving_lease_deadline(p_community), p_lease_until))
$$;
