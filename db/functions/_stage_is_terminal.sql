-- Whether `stage` is terminal (aborted, retention_pending): nothing moves it
-- again. False for a value that is not a stage.
create or replace function community_deletion._stage_is_terminal(stage text)
  returns boolean
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select coalesce((select s.terminal from community_deletion._stages() s where s.stage = _stage_is_terminal.stage), false)
$$;
