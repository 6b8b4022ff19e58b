-- TRUNCATE would erase the evidence tables wholesale (frozen_row, DL6F1).
create or replace function community_deletion.tg_control_plane__refuse_truncate()
  returns trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  raise exception 'table % holds deletion evidence and cannot be truncated', tg_table_name
    using errcode = 'DL6F1';
end;
$$;
