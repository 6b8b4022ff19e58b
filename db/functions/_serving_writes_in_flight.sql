-- The operations of community p_community's serving-write leases that may
-- still have a write in flight: every lease not released whose lease_until is
-- less than settings.serving_lease_grace ago. A lease that expired is not
-- proof that its holder stopped: a writer that verified its lease and then
-- stalled (a GC pause, a slow upload) can complete an object upload after the
-- expiry — S3 has no fence. The grace keeps the fence, the destructive freeze
-- and mark_drained waiting for such writers too (model/README.md F2); a
-- holder that crashed without releasing delays the deletion by at most its
-- lease plus the grace. A lease ends at the latest at
-- _serving_lease_deadline (quiescing's start plus the cap), however long it
-- was acquired for. Sorted, duplicates removed; empty when none.
create or replace function community_deletion._serving_writes_in_flight(p_community uuid)
  returns text[]
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select coalesce(pg_catalog.array_agg(distinct l.operation order by l.operation), '{}')
    from community_deletion.serving_write_leases l
   where l.community_id = p_community
     and community_deletion._serving_lease_end(l.lease_until, p_community)
         + (select s.serving_lease_grace from community_deletion.settings s) >= now()
$$;
