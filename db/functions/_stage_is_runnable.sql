-- Whether an executor may claim a request at `stage` (approved …
-- logically_verified). False for a value that is not a stage.
create or replace function community_deletion._stage_is_runnable(stage text)
  returns boolean
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select coalesce((select s.runnable from community_deletion._stages() s where s.stage = _stage_is_runnable.stage), false)
$$;
