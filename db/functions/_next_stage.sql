-- The only stage a request may move to from `stage` (null for the terminal
-- stages and for a value that is not a stage): transitions never skip and
-- never go backwards.
create or replace function community_deletion._next_stage(stage text)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select s.next_stage from community_deletion._stages() s where s.stage = _next_stage.stage
$$;
