-- True when the current transaction holds a serving-write authorisation
-- (community_deletion.guard_serving_write) for the community at exactly p_fence_generation.
-- Security definer so the write-fence trigger, which runs as the writing role,
-- can consult the owner-only grants table; it answers only for the caller's own
-- transaction, so it discloses nothing.
create or replace function community_deletion._serving_write_granted(p_community uuid, p_fence_generation bigint)
  returns boolean
  language sql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
  select exists (
    select 1 from community_deletion.serving_write_grants g
     where g.xact_id = pg_catalog.pg_current_xact_id_if_assigned()
       and g.community_id = p_community
       and g.fence_generation = p_fence_generation)
$$;
