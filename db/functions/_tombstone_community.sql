-- Turns a fenced community into its permanent tombstone: deletion_state
-- 'tombstone', deleted_at and archived_at set, signing key and icon cleared.
-- Only if it is still fenced at exactly p_fence_generation (an abort or a
-- newer fence changes one of the two); returns whether it did. Kept as the
-- single place the purge writes communities, so the tombstone guard has one
-- sanctioned writer to admit.
create or replace function community_deletion._tombstone_community(p_community uuid, p_fence_generation bigint)
  returns boolean
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  perform community_deletion._refuse_invoker_code('public.communities', 'update');
  update public.communities c
     set deletion_state = 'tombstone',
         deleted_at = coalesce(c.deleted_at, now()),
         archived_at = coalesce(c.archived_at, now()),
         signing_key = null,
         icon = null
   where c.id = p_community
     and c.deletion_state = 'fenced'
     and c.deletion_fence_generation = p_fence_generation;
  return found;
end;
$$;
