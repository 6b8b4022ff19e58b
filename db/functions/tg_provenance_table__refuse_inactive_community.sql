-- Provenance guard (docs/security.md#provenance): AFTER INSERT OR UPDATE,
-- FOR EACH ROW, on every registered provenance table
-- (_020_provenance_guard, the guarded column as the trigger's argument).
-- AFTER, so it checks the row as stored: a BEFORE trigger of the table's
-- owner firing after a BEFORE guard could still set the column to a
-- tombstone (migration 000034).
-- A provenance row may name a community only while that community is active:
-- after the purge nulled a tombstone's provenance rows, a writer setting the
-- column back would make the absence proof fail forever. NULL is always
-- allowed (that is what the purge writes). Takes the community lock shared,
-- as every writer does, so the check orders against quiesce, fence and
-- abort. Refusal: 55000 "community write refused: …". Security definer: the
-- writer may not read communities.
create or replace function community_deletion.tg_provenance_table__refuse_inactive_community()
  returns trigger
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
declare
  v_column text := tg_argv[0];
  v_new uuid := (pg_catalog.to_jsonb(new) ->> v_column)::uuid;
  v_state text;
begin
  if v_new is null or (tg_op = 'UPDATE' and v_new is not distinct from (pg_catalog.to_jsonb(old) ->> v_column)::uuid) then
    return new;
  end if;
  perform community_deletion._lock_community(v_new, false);
  select c.deletion_state into v_state from public.communities c where c.id = v_new;
  if v_state is distinct from 'active' then
    raise exception 'community write refused: % on %.% names community % (%) in %',
      tg_op, tg_table_schema, tg_table_name, v_new, coalesce(v_state, 'missing'), v_column
      using errcode = '55000',
            hint = 'A provenance row may name only an active community; write NULL instead.';
  end if;
  return new;
end;
$$;
