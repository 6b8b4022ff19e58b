-- Takes the community's advisory lock EXCLUSIVELY for a lifecycle
-- transition (quiesce, fence, abort), waiting at most lock_timeout
-- (_apply_lock_timeout; docs/security.md#lock-waits). It waits for every
-- writer and serving lease holding the lock shared — they finish quickly —
-- but not forever for a session that merely holds the key (any login may
-- take an advisory lock). A wait that runs out raises lock_not_available
-- (55P03, retryable) naming who holds the lock, so the failure recorded
-- against the request explains itself. Writers and the serving path keep
-- _lock_community, which never changes their own lock_timeout.
create or replace function community_deletion._lock_community_for_transition(p_community uuid)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_key bigint := community_deletion._community_lock_key(p_community);
begin
  perform community_deletion._apply_lock_timeout();
  perform pg_catalog.pg_advisory_xact_lock(v_key);
exception when lock_not_available then
  raise exception 'community deletion: the lock of community % was not granted within lock_timeout %; held by %',
    p_community, pg_catalog.current_setting('lock_timeout'), community_deletion._advisory_lock_holders(v_key)
    using errcode = '55P03',
          hint = 'Retried with backoff. If a session keeps holding the lock, end it (pg_terminate_backend) or raise settings.lock_timeout.';
end;
$$;
