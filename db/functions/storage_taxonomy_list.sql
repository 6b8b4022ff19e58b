-- The storage key taxonomy as the driver reads it (owned and shared shapes).
-- The driver matches keys with these patterns; SQL re-checks owned keys when
-- chunks are appended, so a stale copy in a process can only fail closed.
create or replace function public.deletion_storage_taxonomy()
  returns setof public.community_deletion_storage_taxonomy
  language sql
  stable
  security definer
  set search_path = ''
as $$
  select * from public.community_deletion_storage_taxonomy order by name
$$;
