-- Deletes up to max_rows (1..10000, DL1I1 otherwise) serving-write leases that
-- expired more than settings.serving_lease_grace ago (within the grace the
-- fence still waits for them: _serving_writes_in_flight),
-- oldest expiry first, skipping rows another session holds; fleet-wide, whatever
-- the communities' states. Also prunes serving-write grants of transactions that
-- have finished (committed, aborted, or too old to know). Returns the number
-- of leases deleted. Safe to run from any number of workers.
create or replace function community_deletion.reap_serving_leases(max_rows integer default 1000)
  returns integer
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_limit alias for $1;
  v_count integer;
begin
  if p_limit is null or p_limit not between 1 and 10000 then
    raise exception 'serving lease reap limit must be 1..10000, got %', p_limit using errcode = 'DL1I1';
  end if;
  with expired as (
    select l.id from community_deletion.serving_write_leases l
     where l.lease_until + (select s.serving_lease_grace from community_deletion.settings s) < now()
     order by l.lease_until
     limit p_limit
     for update skip locked)
  delete from community_deletion.serving_write_leases l using expired where l.id = expired.id;
  get diagnostics v_count = row_count;
  delete from community_deletion.serving_write_grants g
   where pg_catalog.pg_xact_status(g.xact_id) is distinct from 'in progress';
  return v_count;
end;
$$;
