-- Takes the community's transaction-scoped advisory lock, exclusively for
-- lifecycle transitions or shared for writers. Lock order everywhere: this lock
-- first, then row locks (the reverse deadlocks abort against the executor).
create or replace function community_deletion._lock_community(p_community uuid, p_exclusive boolean)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  if p_exclusive then
    perform pg_catalog.pg_advisory_xact_lock(community_deletion._community_lock_key(p_community));
  else
    perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(p_community));
  end if;
end;
$$;
