-- Raises protected_table_ddl (DL7C2) when DDL has weakened the guards of a
-- registered table (docs/security.md#table-owners): a write-fence trigger of
-- a scoped table, or the provenance guard of a provenance table, dropped,
-- renamed, disabled or set to fire on replicas only or always; or a
-- registered table made part of a partition or inheritance tree (the fence
-- does not cover statements addressed to a partition or child). Called at
-- the end of every DDL command (event trigger _110_guard_registered_tables),
-- so the command fails and nothing it did remains. Also refused: a
-- registered table renamed or moved to another schema — the registry, and
-- with it this guard, binds a table by name, so a renamed table could have
-- its fence disabled, be written and be renamed back unseen. That is: a
-- registered name no longer resolves while a table not registered under its
-- own name carries the engine's guards (the write fence, its early refusal
-- or TRUNCATE guard, the provenance guard). Tables that no longer exist are
-- otherwise the catalog check's business (a dropped table is drift, not
-- tampering). And refused: a registered table's community column renamed
-- or dropped (the fence reads it by name: renamed, and a look-alike column
-- added, writes of a fenced community would pass); public.communities'
-- lifecycle trigger dropped, disabled or replaced, or one of its lifecycle
-- columns renamed, dropped or retyped (_communities_guard_problems: a
-- tombstone revived, a fence lifted, no row trigger seeing it). Security definer, executable by every role: the DDL may come
-- from any table owner, who cannot read the registry; it only answers.
create or replace function community_deletion._guard_registered_tables()
  returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
declare
  v_problems text[];
begin
  select coalesce(pg_catalog.array_agg(pg_catalog.format('%s: %s', p.label, pg_catalog.array_to_string(p.problems, ', '))
                                        order by p.label collate "C"), '{}')
    into v_problems
    from (select community_deletion._table_label(r.schema_name, r.table_name) as label,
                 case r.kind when 'scoped' then community_deletion._fence_trigger_problems(x.rel)
                             else community_deletion._provenance_guard_problems(x.rel, r.community_column) end
                 || pg_catalog.array_remove(array['it became ' || community_deletion._inheritance_role(x.rel)], null)
                 || case when exists (select 1 from pg_catalog.pg_attribute a
                                       where a.attrelid = x.rel and a.attname = r.community_column
                                         and a.attnum > 0 and not a.attisdropped) then '{}'::text[]
                         else array[pg_catalog.format('its community column %s is missing (renamed or dropped)', r.community_column)] end
                   as problems
            from community_deletion.registered_tables r
            cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
           where r.kind in ('scoped', 'provenance') and x.rel is not null) p
   where pg_catalog.cardinality(p.problems) > 0;
  if exists (select 1 from community_deletion.registered_tables r
              where r.kind in ('scoped', 'provenance')
                and community_deletion._registered_relation(r.schema_name, r.table_name) is null) then
    select v_problems || coalesce(pg_catalog.array_agg(pg_catalog.format(
             '%s: carries the guards of a registered table that is no longer under its registered name (renamed or moved)',
             community_deletion._table_label(g.schema_name, g.table_name)) order by g.schema_name, g.table_name), '{}')
      into v_problems
      from (select distinct n.nspname::text as schema_name, c.relname::text as table_name
              from pg_catalog.pg_trigger t
              join pg_catalog.pg_class c on c.oid = t.tgrelid
              join pg_catalog.pg_namespace n on n.oid = c.relnamespace
             where not t.tgisinternal
               and t.tgfoid in (pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()'),
                                pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_write_early()'),
                                pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_truncate()'),
                                pg_catalog.to_regprocedure('community_deletion.tg_provenance_table__refuse_inactive_community()'))
               and n.nspname <> 'pg_temp' and c.relpersistence <> 't') g
     where not exists (select 1 from community_deletion.registered_tables r
                        where r.schema_name = g.schema_name and r.table_name = g.table_name);
  end if;
  select v_problems || coalesce(pg_catalog.array_agg('communities: ' || p), '{}')
    into v_problems
    from pg_catalog.unnest(community_deletion._communities_guard_problems()) p;
  if pg_catalog.cardinality(v_problems) > 0 then
    raise exception 'community deletion: refused DDL on registered tables: %', pg_catalog.array_to_string(v_problems, '; ')
      using errcode = 'DL7C2',
            hint = 'The write fence and provenance guards of registered tables cannot be dropped, disabled or bypassed '
                   '(docs/security.md). To retire a table, drop it in a migration and update the registry.';
  end if;
end;
$$;
