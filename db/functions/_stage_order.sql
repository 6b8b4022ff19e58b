-- Position of a stage in the lifecycle (submitted=1 … retention_pending=10,
-- aborted=99); null for a value that is not a stage.
create or replace function community_deletion._stage_order(stage text)
  returns integer
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select s.stage_order from community_deletion._stages() s where s.stage = _stage_order.stage
$$;
