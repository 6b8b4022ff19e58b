-- Executor API: records that an executor process stopped (its liveness row
-- keeps the last heartbeat, marked draining and stopped). Unknown ids are ignored.
create or replace function community_deletion.executor_stopped(executor_id text)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_executor_id alias for $1;
begin
  update community_deletion.executor_heartbeats h
     set request_id = null, draining = true, heartbeat_at = now(), stopped_at = now()
   where h.executor_id = p_executor_id;
end;
$$;
