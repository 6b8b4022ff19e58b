-- Approvals are immutable evidence: no UPDATE, no DELETE (frozen_row, DL6F1).
create or replace function community_deletion.tg_approvals__refuse_change()
  returns trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  raise exception 'approval of deletion request % is immutable evidence (% refused)', old.request_id, lower(tg_op)
    using errcode = 'DL6F1';
end;
$$;
