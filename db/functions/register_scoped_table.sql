-- Registering a tenant table is a deliberate migration step (SPEC §3.2, §5.5).

-- True when p_table has a valid, non-partial index whose first column is
-- community_id (the purge and the absence proof then never scan the fleet).
create or replace function public._deletion_has_community_index(p_table regclass)
  returns boolean
  language sql
  stable
  set search_path = ''
as $$
  select exists (
    select 1 from pg_catalog.pg_index i
      join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
     where i.indrelid = p_table and a.attname = 'community_id' and not a.attisdropped
       and i.indisvalid and i.indpred is null)
$$;

-- Attaches (or re-attaches) the early-refusal row triggers of the write fence
-- on public.<p_table>: _010_community_write_fence_early (BEFORE INSERT OR
-- UPDATE) and _010_community_write_fence_early_delete (BEFORE DELETE), FOR EACH
-- ROW, executing tg_scoped_table__refuse_write_early(). With the PL/pgSQL
-- fence they carry a WHEN clause that skips the rows of a community the
-- statement already checked (the hint community_deletion.fence_checked, set by
-- the PL/pgSQL early check; it authorises nothing); the native fast path keeps
-- that list in backend memory instead, so its triggers have no WHEN clause
-- (evaluating one costs more per statement than the native check itself).
-- Called by deletion_register_scoped_table and _deletion_install_write_fence.
create or replace function public._deletion_attach_early_fence(p_table text)
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_native boolean := public.deletion_write_fence_implementation() = 'native';
begin
  execute format('drop trigger if exists _010_community_write_fence_early on public.%I', p_table);
  execute format('drop trigger if exists _010_community_write_fence_early_delete on public.%I', p_table);
  execute format('create trigger _010_community_write_fence_early before insert or update on public.%I '
                 'for each row %s execute function public.tg_scoped_table__refuse_write_early()', p_table,
                 case when v_native then ''
                      else 'when (pg_catalog.current_setting(''community_deletion.fence_checked'', true) '
                           'is distinct from new.community_id::text)' end);
  execute format('create trigger _010_community_write_fence_early_delete before delete on public.%I '
                 'for each row %s execute function public.tg_scoped_table__refuse_write_early()', p_table,
                 case when v_native then ''
                      else 'when (pg_catalog.current_setting(''community_deletion.fence_checked'', true) '
                           'is distinct from old.community_id::text)' end);
end;
$$;

-- Registers a public table as community-scoped with its purge position and
-- attaches the write fence (triggers _010_community_write_fence (INSERT),
-- _010_community_write_fence_update, _010_community_write_fence_delete: AFTER …
-- FOR EACH STATEMENT with transition tables, function
-- tg_scoped_table__enforce_write_fence — exactly what deletion_validate_catalog
-- detects — plus the early refusal _010_community_write_fence_early[_delete],
-- BEFORE … FOR EACH ROW, function tg_scoped_table__refuse_write_early).
-- Refuses (catalog_drift, DL7C1)
-- a table outside schema public, without community_id uuid NOT NULL, without an
-- index leading with community_id, or registered with another kind. Re-running
-- it is harmless (the purge order may be changed). Migrations call it; it runs
-- with the migrating role's rights.
create or replace function public.deletion_register_scoped_table(p_table regclass, p_purge_order integer)
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_schema text;
  v_name text;
  v_kind text;
begin
  if p_table is null or p_purge_order is null or p_purge_order <= 0 then
    raise exception 'deletion_register_scoped_table needs a table and a positive purge order'
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
  if not public._deletion_has_community_index(p_table) then
    raise exception 'cannot register % as community-scoped: no valid index leads with community_id', p_table
      using errcode = 'DL7C1',
            hint = 'Create an index (or primary key) whose first column is community_id first.';
  end if;
  select r.kind into v_kind from public.community_deletion_tables r where r.table_name = v_name;
  if v_kind is not null and v_kind <> 'scoped' then
    raise exception 'cannot register % as community-scoped: it is registered as %', p_table, v_kind
      using errcode = 'DL7C1';
  end if;
  insert into public.community_deletion_tables (table_name, kind, purge_order)
  values (v_name, 'scoped', p_purge_order)
  on conflict (table_name) do update set purge_order = excluded.purge_order
    where public.community_deletion_tables.purge_order is distinct from excluded.purge_order;
  -- The fence (tg_scoped_table__enforce_write_fence.sql): one AFTER … FOR EACH
  -- STATEMENT trigger per event with its transition tables (PostgreSQL allows
  -- transition tables only on single-event triggers) — these decide; and the
  -- early refusal (tg_scoped_table__refuse_write_early.sql,
  -- _deletion_attach_early_fence): BEFORE … FOR EACH ROW — it only makes a
  -- refusal fail before the row's constraints.
  -- Dropping first replaces an older form (the row-level fence) in place.
  execute format('drop trigger if exists _010_community_write_fence on public.%I', v_name);
  execute format('drop trigger if exists _010_community_write_fence_update on public.%I', v_name);
  execute format('drop trigger if exists _010_community_write_fence_delete on public.%I', v_name);
  execute format('create trigger _010_community_write_fence after insert on public.%I '
                 'referencing new table as fence_new_rows '
                 'for each statement execute function public.tg_scoped_table__enforce_write_fence()', v_name);
  execute format('create trigger _010_community_write_fence_update after update on public.%I '
                 'referencing old table as fence_old_rows new table as fence_new_rows '
                 'for each statement execute function public.tg_scoped_table__enforce_write_fence()', v_name);
  execute format('create trigger _010_community_write_fence_delete after delete on public.%I '
                 'referencing old table as fence_old_rows '
                 'for each statement execute function public.tg_scoped_table__enforce_write_fence()', v_name);
  perform public._deletion_attach_early_fence(v_name);
end;
$$;

-- Registers a public table that has a community_id column but is not purged as
-- community-scoped: 'provenance' (operator-global rows; the purge nulls their
-- community_id — needs a nullable community_id and an index leading with it) or
-- 'control_plane' (deletion evidence and engine bookkeeping, kept). Such tables
-- carry no write fence. Refuses (DL7C1) tables registered with another kind.
create or replace function public.deletion_register_unscoped_table(p_table regclass, p_kind text, p_note text)
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_schema text;
  v_name text;
  v_kind text;
begin
  if p_table is null or p_kind is null or p_kind not in ('provenance', 'control_plane')
     or p_note is null or pg_catalog.btrim(p_note) = '' then
    raise exception 'deletion_register_unscoped_table needs a table, kind provenance|control_plane and a note'
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
       or not public._deletion_has_community_index(p_table)) then
    raise exception 'cannot register % as provenance: it needs a nullable community_id and an index leading with it', p_table
      using errcode = 'DL7C1';
  end if;
  select r.kind into v_kind from public.community_deletion_tables r where r.table_name = v_name;
  if v_kind is not null and v_kind <> p_kind then
    raise exception 'cannot register % as %: it is registered as %', p_table, p_kind, v_kind
      using errcode = 'DL7C1';
  end if;
  insert into public.community_deletion_tables (table_name, kind, purge_order, note)
  values (v_name, p_kind, null, p_note)
  on conflict (table_name) do nothing;
end;
$$;
