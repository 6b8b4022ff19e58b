-- Registers a public table as community-scoped with its purge position and
-- attaches the write fence (triggers _010_community_write_fence (INSERT),
-- _010_community_write_fence_update, _010_community_write_fence_delete: AFTER …
-- FOR EACH STATEMENT with transition tables, function
-- tg_scoped_table__enforce_write_fence — exactly what community_deletion.validate_catalog
-- detects — plus the early refusal _010_community_write_fence_early[_delete],
-- BEFORE … FOR EACH ROW, function tg_scoped_table__refuse_write_early).
-- Refuses (catalog_drift, DL7C1)
-- a table outside schema public, without community_id uuid NOT NULL, without an
-- index leading with community_id, or registered with another kind. Re-running
-- it is harmless (the purge order may be changed). Migrations call it; it runs
-- with the migrating role's rights.
create or replace function community_deletion.register_scoped_table(table_name regclass, purge_order integer)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_table alias for $1;
  p_purge_order alias for $2;
  v_schema text;
  v_name text;
  v_kind text;
begin
  if p_table is null or p_purge_order is null or p_purge_order <= 0 then
    raise exception 'community_deletion.register_scoped_table needs a table and a positive purge order'
      using errcode = 'DL1I1';
  end if;
  select n.nspname, c.relname into v_schema, v_name
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where c.oid = p_table and c.relkind in ('r', 'p') and not c.relispartition;
  if v_schema is distinct from 'public' then
    raise exception 'cannot register % as community-scoped: only ordinary tables in schema public can be registered', p_table
      using errcode = 'DL7C1';
  end if;
  if not exists (select 1 from pg_catalog.pg_attribute a
                  where a.attrelid = p_table and a.attname = 'community_id' and not a.attisdropped
                    and a.atttypid = 'uuid'::pg_catalog.regtype and a.attnotnull) then
    raise exception 'cannot register % as community-scoped: it has no community_id uuid NOT NULL column', p_table
      using errcode = 'DL7C1',
            hint = 'Scoped tables carry community_id uuid not null references communities.';
  end if;
  if not community_deletion._has_community_index(p_table) then
    raise exception 'cannot register % as community-scoped: no valid index leads with community_id', p_table
      using errcode = 'DL7C1',
            hint = 'Create an index (or primary key) whose first column is community_id first.';
  end if;
  select r.kind into v_kind from community_deletion.registered_tables r where r.table_name = v_name;
  if v_kind is not null and v_kind <> 'scoped' then
    raise exception 'cannot register % as community-scoped: it is registered as %', p_table, v_kind
      using errcode = 'DL7C1';
  end if;
  insert into community_deletion.registered_tables (table_name, kind, purge_order)
  values (v_name, 'scoped', p_purge_order)
  on conflict (table_name) do update set purge_order = excluded.purge_order
    where community_deletion.registered_tables.purge_order is distinct from excluded.purge_order;
  -- The fence (tg_scoped_table__enforce_write_fence.sql): one AFTER … FOR EACH
  -- STATEMENT trigger per event with its transition tables (PostgreSQL allows
  -- transition tables only on single-event triggers) — these decide; and the
  -- early refusal (tg_scoped_table__refuse_write_early.sql,
  -- community_deletion._attach_early_fence): BEFORE … FOR EACH ROW — it only makes a
  -- refusal fail before the row's constraints.
  -- Dropping first replaces an older form (the row-level fence) in place.
  execute format('drop trigger if exists _010_community_write_fence on public.%I', v_name);
  execute format('drop trigger if exists _010_community_write_fence_update on public.%I', v_name);
  execute format('drop trigger if exists _010_community_write_fence_delete on public.%I', v_name);
  execute format('create trigger _010_community_write_fence after insert on public.%I '
                 'referencing new table as fence_new_rows '
                 'for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence()', v_name);
  execute format('create trigger _010_community_write_fence_update after update on public.%I '
                 'referencing old table as fence_old_rows new table as fence_new_rows '
                 'for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence()', v_name);
  execute format('create trigger _010_community_write_fence_delete after delete on public.%I '
                 'referencing old table as fence_old_rows '
                 'for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence()', v_name);
  perform community_deletion._attach_early_fence(v_name);
end;
$$;
