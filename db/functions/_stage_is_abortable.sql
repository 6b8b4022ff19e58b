-- Whether an operator may abort a request at `stage` (submitted … fenced:
-- nothing irreversible has happened yet). False for a value that is not a
-- stage.
create or replace function community_deletion._stage_is_abortable(stage text)
  returns boolean
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select coalesce((select s.abortable from community_deletion._stages() s where s.stage = _stage_is_abortable.stage), false)
$$;
