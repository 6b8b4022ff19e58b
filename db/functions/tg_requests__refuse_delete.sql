-- Deletion requests are kept forever as evidence: no DELETE (frozen_row, DL6F1).
create or replace function community_deletion.tg_requests__refuse_delete()
  returns trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  raise exception 'deletion request % is evidence and cannot be deleted', old.id
    using errcode = 'DL6F1';
end;
$$;
