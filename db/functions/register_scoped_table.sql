-- Registers a tenant table as community-scoped with its purge position and
-- attaches the write fence: three AFTER … FOR EACH STATEMENT triggers with
-- transition tables executing tg_scoped_table__enforce_write_fence (these
-- decide; _live_fenced_tables' rule), the early-refusal row triggers
-- (_attach_early_fence) and the TRUNCATE guard
-- (tg_scoped_table__refuse_truncate). Registering a table is a deliberate
-- migration step (docs/design.md#catalog); it runs with the migrating role's
-- rights. Refuses (catalog_drift, DL7C1) a table in a system or the engine's
-- schema; anything but a plain table — a partitioned table, a partition, an
-- inheritance parent or child (the fence cannot cover statements addressed
-- to a partition or child: docs/security.md#partitions-and-inheritance); a
-- table without community_id uuid NOT NULL, or with another column that
-- holds a community; one without a valid index leading with community_id; one
-- registered with another kind; one whose row-level security would apply to
-- the engine owner (_row_security_problem: a managed server's owner has no
-- BYPASSRLS). Grants the engine owner what the purge needs
-- on the table. Re-running it is harmless: the triggers are replaced in place
-- and the purge order may change.
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
  v_kind char;
  v_registered text;
  v_columns text[];
begin
  if p_table is null or p_purge_order is null or p_purge_order <= 0 then
    raise exception 'community_deletion.register_scoped_table needs a table and a positive purge order'
      using errcode = 'DL1I1';
  end if;
  select n.nspname, c.relname, c.relkind into v_schema, v_name, v_kind
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where c.oid = p_table;
  if v_schema in ('pg_catalog', 'information_schema', 'community_deletion') or v_schema ~ '^pg_' then
    raise exception 'cannot register % as community-scoped: it is in schema %', p_table, v_schema
      using errcode = 'DL7C1';
  end if;
  if community_deletion._inheritance_role(p_table) is not null or v_kind <> 'r' then
    raise exception 'cannot register % as community-scoped: it is %', p_table,
      coalesce(community_deletion._inheritance_role(p_table), 'not a plain table')
      using errcode = 'DL7C1',
            hint = 'The write fence cannot cover statements addressed to a partition or an inheritance child '
                   '(docs/security.md#partitions-and-inheritance). Use a plain table, or register it as excluded with a reason.';
  end if;
  if not exists (select 1 from pg_catalog.pg_attribute a
                  where a.attrelid = p_table and a.attname = 'community_id' and not a.attisdropped
                    and a.atttypid = 'pg_catalog.uuid'::pg_catalog.regtype and a.attnotnull) then
    raise exception 'cannot register % as community-scoped: it has no community_id uuid NOT NULL column', p_table
      using errcode = 'DL7C1',
            hint = 'Scoped tables carry community_id uuid not null references communities.';
  end if;
  v_columns := community_deletion._community_columns(p_table);
  if v_columns <> array['community_id'] then
    raise exception 'cannot register % as community-scoped: besides community_id, these columns hold communities: %', p_table,
      pg_catalog.array_to_string(pg_catalog.array_remove(v_columns, 'community_id'), ', ')
      using errcode = 'DL7C1',
            hint = 'A scoped table belongs to the community in community_id only; move references to other communities to a provenance table.';
  end if;
  if not community_deletion._has_leading_index(p_table, 'community_id') then
    raise exception 'cannot register % as community-scoped: no valid index leads with community_id', p_table
      using errcode = 'DL7C1',
            hint = 'Create an index (or primary key) whose first column is community_id first.';
  end if;
  if community_deletion._row_security_problem(p_table) is not null then
    raise exception 'cannot register % as community-scoped: %', p_table, community_deletion._row_security_problem(p_table)
      using errcode = 'DL7C1',
            hint = 'A policy could hide rows from the purge and the absence proof. Disable row-level security on the table, '
                   'or have a superuser give community_deletion_owner BYPASSRLS (docs/managed.md).';
  end if;
  select r.kind into v_registered from community_deletion.registered_tables r
   where r.schema_name = v_schema and r.table_name = v_name;
  if v_registered is not null and v_registered <> 'scoped' then
    raise exception 'cannot register % as community-scoped: it is registered as %', p_table, v_registered
      using errcode = 'DL7C1';
  end if;
  -- The triggers first, the registry row last: the DDL guard checks only
  -- registered tables, and every trigger already exists when the row appears.
  -- CREATE OR REPLACE keeps a registered table fenced throughout.
  execute pg_catalog.format('create or replace trigger _010_community_write_fence after insert on %s '
                            'referencing new table as fence_new_rows '
                            'for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence()', p_table);
  execute pg_catalog.format('create or replace trigger _010_community_write_fence_update after update on %s '
                            'referencing old table as fence_old_rows new table as fence_new_rows '
                            'for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence()', p_table);
  execute pg_catalog.format('create or replace trigger _010_community_write_fence_delete after delete on %s '
                            'referencing old table as fence_old_rows '
                            'for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence()', p_table);
  execute pg_catalog.format('create or replace trigger _010_community_write_fence_truncate before truncate on %s '
                            'for each statement execute function community_deletion.tg_scoped_table__refuse_truncate()', p_table);
  perform community_deletion._attach_early_fence(p_table);
  -- The engine's security-definer code counts, purges and proves absence as
  -- community_deletion_owner.
  execute pg_catalog.format('grant usage on schema %I to community_deletion_owner', v_schema);
  execute pg_catalog.format('grant select, insert, update, delete on %s to community_deletion_owner', p_table);
  insert into community_deletion.registered_tables as r (schema_name, table_name, kind, purge_order, community_column)
  values (v_schema, v_name, 'scoped', p_purge_order, 'community_id')
  on conflict (schema_name, table_name) do update set purge_order = excluded.purge_order
    where r.purge_order is distinct from excluded.purge_order;
end;
$$;
