-- Executor API: records that an executor process stopped (its liveness row
-- keeps the last heartbeat, marked draining and stopped). Unknown ids are ignored.
create or replace function public.deletion_executor_stopped(p_executor_id text)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
begin
  update public.community_deletion_executor_heartbeats h
     set request_id = null, draining = true, heartbeat_at = now(), stopped_at = now()
   where h.executor_id = p_executor_id;
end;
$$;
