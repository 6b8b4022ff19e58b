-- Whether a request at `stage` has closed the fence (fenced …
-- retention_pending): its fence generation is set. False for a value that is
-- not a stage.
create or replace function community_deletion._stage_is_fenced(stage text)
  returns boolean
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select coalesce((select s.fenced from community_deletion._stages() s where s.stage = _stage_is_fenced.stage), false)
$$;
