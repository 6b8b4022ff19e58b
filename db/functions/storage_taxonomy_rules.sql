-- The storage key taxonomy as the driver reads it (owned and shared shapes).
-- The driver matches keys with these patterns; SQL re-checks owned keys when
-- chunks are appended, so a stale copy in a process can only fail closed.
create or replace function community_deletion.storage_taxonomy_rules()
  returns setof community_deletion.storage_taxonomy
  language sql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
  select * from community_deletion.storage_taxonomy order by name
$$;
