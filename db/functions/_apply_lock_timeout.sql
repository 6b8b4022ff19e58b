-- Bounds every lock wait of the current engine step (docs/security.md#lock-waits):
-- sets lock_timeout, until the end of the transaction, to the engine setting
-- settings.lock_timeout. Any login may take the engine's advisory lock keys
-- (pg_advisory_lock is PUBLIC) or hold a row lock; without a bound, quiesce,
-- fence, abort or the purge would wait forever while the executor's heartbeat
-- keeps its lease alive. A wait that runs out is lock_not_available (55P03,
-- retryable): the executor records it against the request and, after the
-- retry cap, the request is blocked with that explanation.
create or replace function community_deletion._apply_lock_timeout()
  returns void
  language sql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.set_config('lock_timeout',
           (pg_catalog.ceil(extract(epoch from s.lock_timeout) * 1000))::bigint::text || 'ms', true)
    from community_deletion.settings s
$$;
