-- Checkpoints are append/upsert-only: never deleted, and a checkpoint's
-- identity (request, stage, unit, start time) and attempt count never go back.
create or replace function community_deletion.tg_checkpoints__protect()
  returns trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  if tg_op = 'DELETE' then
    raise exception 'checkpoint % of deletion request % is evidence and cannot be deleted', old.unit_key, old.request_id
      using errcode = 'DL6F1';
  end if;
  if new.request_id is distinct from old.request_id or new.stage is distinct from old.stage
     or new.unit_key is distinct from old.unit_key or new.started_at is distinct from old.started_at
     or new.attempts < old.attempts then
    raise exception 'checkpoint % of deletion request %: identity, start time and attempts are frozen',
      old.unit_key, old.request_id
      using errcode = 'DL6F1';
  end if;
  return new;
end;
$$;
