-- Registers a table that holds communities but is not purged as
-- community-scoped (docs/design.md#catalog):
--   'provenance' — operator-global rows that remember a community: the purge
--     sets the community column to NULL and keeps the rows. A plain table with
--     exactly one column holding a community (community_id, or a foreign key
--     to communities under any name), nullable and leading a valid index. Its
--     guard trigger _020_provenance_guard (tg_provenance_table__refuse_
--     inactive_community) refuses naming a community that is not active.
--   'excluded' — deliberately outside every deletion (any relation, with the
--     reason in note): its rows are neither deleted nor nulled nor proven
--     absent. For partitioned tables and their partitions, inheritance trees,
--     foreign tables and materialized views, which the engine cannot fence.
-- The note is required for both. Refuses (DL7C1) a table in a system or the
-- engine's schema, a shape the kind does not allow, or a table registered
-- with another kind. Re-running it is harmless.
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
  v_registered text;
  v_columns text[];
  v_column text;
begin
  if p_table is null or p_kind is null or p_kind not in ('provenance', 'excluded')
     or p_note is null or pg_catalog.btrim(p_note) = '' then
    raise exception 'community_deletion.register_unscoped_table needs a table, kind provenance|excluded and a note'
      using errcode = 'DL1I1';
  end if;
  select n.nspname, c.relname into v_schema, v_name
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where c.oid = p_table;
  if v_schema in ('pg_catalog', 'information_schema', 'community_deletion') or v_schema ~ '^pg_' then
    raise exception 'cannot register %: it is in schema %', p_table, v_schema
      using errcode = 'DL7C1';
  end if;
  v_columns := community_deletion._community_columns(p_table);
  if p_kind = 'provenance' then
    if community_deletion._inheritance_role(p_table) is not null
       or (select c.relkind from pg_catalog.pg_class c where c.oid = p_table) <> 'r' then
      raise exception 'cannot register % as provenance: it is %', p_table,
        coalesce(community_deletion._inheritance_role(p_table), 'not a plain table')
        using errcode = 'DL7C1',
              hint = 'Register it as excluded with a reason, or use a plain table (docs/security.md#partitions-and-inheritance).';
    end if;
    if pg_catalog.cardinality(v_columns) <> 1 then
      raise exception 'cannot register % as provenance: it needs exactly one column that holds a community, it has %',
        p_table, coalesce(nullif(pg_catalog.array_to_string(v_columns, ', '), ''), 'none')
        using errcode = 'DL7C1';
    end if;
    v_column := v_columns[1];
    if exists (select 1 from pg_catalog.pg_attribute a
                where a.attrelid = p_table and a.attname = v_column and a.attnotnull)
       or not community_deletion._has_leading_index(p_table, v_column) then
      raise exception 'cannot register % as provenance: % must be nullable and lead a valid index', p_table, v_column
        using errcode = 'DL7C1';
    end if;
    if community_deletion._row_security_problem(p_table) is not null then
      raise exception 'cannot register % as provenance: %', p_table, community_deletion._row_security_problem(p_table)
        using errcode = 'DL7C1',
              hint = 'A policy could hide rows from the purge. Disable row-level security on the table, '
                     'or have a superuser give community_deletion_owner BYPASSRLS (docs/managed.md).';
    end if;
  end if;
  select r.kind into v_registered from community_deletion.registered_tables r
   where r.schema_name = v_schema and r.table_name = v_name;
  if v_registered is not null and v_registered <> p_kind then
    raise exception 'cannot register % as %: it is registered as %', p_table, p_kind, v_registered
      using errcode = 'DL7C1';
  end if;
  if p_kind = 'provenance' then
    execute pg_catalog.format(
      'create or replace trigger _020_provenance_guard after insert or update on %s for each row '
      'execute function community_deletion.tg_provenance_table__refuse_inactive_community(%L)', p_table, v_column);
    execute pg_catalog.format('grant usage on schema %I to community_deletion_owner', v_schema);
    execute pg_catalog.format('grant select, update on %s to community_deletion_owner', p_table);
  end if;
  insert into community_deletion.registered_tables as r (schema_name, table_name, kind, purge_order, community_column, note)
  values (v_schema, v_name, p_kind, null, v_column, p_note)
  on conflict (schema_name, table_name) do update set note = excluded.note, community_column = excluded.community_column;
end;
$$;
