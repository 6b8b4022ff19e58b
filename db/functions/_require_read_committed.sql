-- Writers to community-scoped data, and every function that decides on a
-- community's lifecycle state, must run READ COMMITTED: each statement then sees
-- a snapshot taken after the community lock was granted. REPEATABLE READ and
-- SERIALIZABLE keep the transaction's first snapshot, which may predate a
-- quiesce/fence that committed while the writer waited for the lock, so they are
-- refused (SQLSTATE 25000) before any authorisation is considered.
create or replace function community_deletion._require_read_committed(p_what text)
  returns void
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
as $$
begin
  if pg_catalog.current_setting('transaction_isolation') <> 'read committed' then
    raise exception 'community write (%) requires READ COMMITTED isolation, not %',
      p_what, pg_catalog.current_setting('transaction_isolation')
      using errcode = '25000',
            hint = 'Run writers to community data with transaction isolation READ COMMITTED.';
  end if;
end;
$$;
