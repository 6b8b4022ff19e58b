-- Enforces the lifecycle graph on every stage change, whoever writes it
-- (wrong_stage, DL2S1): exactly one step forward, or to aborted from approved
-- or fenced only (never from drained on, docs/design.md#failure-handling). Runs AFTER UPDATE so the
-- table's CHECK constraints report malformed rows first.
create or replace function community_deletion.tg_requests__stage_moves_forward()
  returns trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  if new.stage is distinct from community_deletion._next_stage(old.stage)
     and not (new.stage = 'aborted' and community_deletion._stage_is_abortable(old.stage)) then
    raise exception 'deletion request %: illegal stage change % -> %', old.id, old.stage, new.stage
      using errcode = 'DL2S1';
  end if;
  return null;
end;
$$;
