-- The destructive storage manifest is written once, at stage fenced (by
-- deletion_freeze_destructive_manifest), and never changed or cleared again:
-- it is the evidence the key chunks were bound to.
create or replace function public.tg_community_deletion_requests__freeze_destructive_manifest()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
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

drop trigger if exists _500_freeze_destructive_manifest on public.community_deletion_requests;
create trigger _500_freeze_destructive_manifest
  before update on public.community_deletion_requests
  for each row
  when (old.destructive_storage_manifest is distinct from new.destructive_storage_manifest
        or old.destructive_storage_frozen_at is distinct from new.destructive_storage_frozen_at)
  execute function public.tg_community_deletion_requests__freeze_destructive_manifest();
