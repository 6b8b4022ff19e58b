-- Refuses (catalog_drift, DL7C1), right before one of the engine's own
-- statements changes relation p_rel (p_event 'delete' or 'update'), when
-- code another role attached to it would run as the engine owner
-- (_invoker_code_problems, listed in the message). The table is locked
-- first in ROW EXCLUSIVE mode — what the statement takes anyway — which
-- conflicts with CREATE TRIGGER, ENABLE TRIGGER, CREATE RULE, CREATE INDEX
-- and the ALTER TABLE forms that add constraints or columns: what is
-- checked here is what the engine's statements run until the transaction
-- ends. (validate_catalog reports the same problems earlier, at claim.)
create or replace function community_deletion._refuse_invoker_code(p_rel pg_catalog.regclass, p_event text)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_problems text[];
begin
  execute pg_catalog.format('lock table %s in row exclusive mode', p_rel);
  v_problems := community_deletion._invoker_code_problems(p_rel, p_event);
  if pg_catalog.cardinality(v_problems) > 0 then
    raise exception 'community deletion catalog drift: on %, code another role attached would run as the engine owner when the engine changes its rows (%): %',
      p_rel, p_event, pg_catalog.array_to_string(v_problems, ', ')
      using errcode = 'DL7C1',
            detail = pg_catalog.jsonb_build_object('table', p_rel::text, 'event', p_event, 'code', v_problems)::text,
            hint = 'Drop the trigger or rule, or have a superuser own its function (a SECURITY DEFINER function '
                   'its owner controls is not enough); then unblock the request (deletions unblock ID).';
  end if;
end;
$$;
