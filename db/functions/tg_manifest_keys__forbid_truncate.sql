-- TRUNCATE would bypass the row guard for every request at once.
create or replace function community_deletion.tg_manifest_keys__forbid_truncate()
  returns trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  raise exception 'community_deletion.manifest_keys cannot be truncated'
    using errcode = 'DL6F1',
          hint = 'Key chunks are cleared per request by community_deletion.clear_key_chunks or dropped at terminal cleanup.';
end;
$$;
