-- Registers a public table that has a community_id column but is not purged as
-- community-scoped: 'provenance' (operator-global rows; the purge nulls their
-- community_id — needs a nullable community_id and an index leading with it) or
-- 'control_plane' (deletion evidence and engine bookkeeping, kept). Such tables
-- carry no write fence. Refuses (DL7C1) tables registered with another kind.
create or replace function community_deletion.register_unscoped_table(table_name regclass, kind text, note text)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_table alias for $1;
  p_kind alias for $2;
  p_note alias for $3;
  v_schema text;
  v_name text;
  v_kind text;
begin
  if p_table is null or p_kind is null or p_kind not in ('provenance', 'control_plane')
     or p_note is null or pg_catalog.btrim(p_note) = '' then
    raise exception 'community_deletion.register_unscoped_table needs a table, kind provenance|control_plane and a note'
      using errcode = 'DL1I1';
  end if;
  select n.nspname, c.relname into v_schema, v_name
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where c.oid = p_table and c.relkind in ('r', 'p') and not c.relispartition;
  if v_schema is distinct from 'public' then
    raise exception 'cannot register %: only ordinary tables in schema public can be registered', p_table
      using errcode = 'DL7C1';
  end if;
  if p_kind = 'provenance' and (
       not exists (select 1 from pg_catalog.pg_attribute a
                    where a.attrelid = p_table and a.attname = 'community_id' and not a.attisdropped
                      and not a.attnotnull)
       or not community_deletion._has_community_index(p_table)) then
    raise exception 'cannot register % as provenance: it needs a nullable community_id and an index leading with it', p_table
      using errcode = 'DL7C1';
  end if;
  select r.kind into v_kind from community_deletion.registered_tables r where r.table_name = v_name;
  if v_kind is not null and v_kind <> p_kind then
    raise exception 'cannot register % as %: it is registered as %', p_table, p_kind, v_kind
      using errcode = 'DL7C1';
  end if;
  insert into community_deletion.registered_tables (table_name, kind, purge_order, note)
  values (v_name, p_kind, null, p_note)
  on conflict (table_name) do nothing;
end;
$$;
