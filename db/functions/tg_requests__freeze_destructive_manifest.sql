-- The destructive storage manifest is written once, at stage fenced (by
-- community_deletion.freeze_destructive_manifest), and never changed or cleared again:
-- it is the evidence the key chunks were bound to.
create or replace function community_deletion.tg_requests__freeze_destructive_manifest()
  returns trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  if old.destructive_storage_manifest is not null or old.destructive_storage_frozen_at is not null then
    raise exception 'the destructive storage manifest of request % is frozen and cannot be changed', old.id
      using errcode = 'DL6F1';
  end if;
  if old.stage <> 'fenced' or new.stage <> 'fenced' then
    raise exception 'the destructive storage manifest of request % can be frozen only at stage fenced (request is %)',
      old.id, old.stage
      using errcode = 'DL2S1';
  end if;
  return new;
end;
$$;
