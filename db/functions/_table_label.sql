-- How the engine names a host table in manifests, checkpoints and messages:
-- the bare name in schema public, schema.table elsewhere (what a regclass
-- prints under the default search_path). Registered names are plain
-- lowercase identifiers (registry constraints), so no quoting is needed.
create or replace function community_deletion._table_label(p_schema text, p_table text)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select case when p_schema = 'public' then p_table else p_schema || '.' || p_table end
$$;
