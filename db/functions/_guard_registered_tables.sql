-- Raises protected_table_ddl (DL7C2) when DDL has weakened the guards of a
-- registered table (docs/security.md#table-owners): a write-fence trigger of
-- a scoped table, or the provenance guard of a provenance table, dropped,
-- renamed, disabled or set to fire on replicas only or always; or a
-- registered table made part of a partition or inheritance tree (the fence
-- does not cover statements addressed to a partition or child). Called at
-- the end of every DDL command (event trigger _110_guard_registered_tables),
-- so the command fails and nothing it did remains. Tables that no longer
-- exist are the catalog check's business (a dropped table is drift, not
-- tampering). Security definer, executable by every role: the DDL may come
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
                 || pg_catalog.array_remove(array['it became ' || community_deletion._inheritance_role(x.rel)], null) as problems
            from community_deletion.registered_tables r
            cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
           where r.kind in ('scoped', 'provenance') and x.rel is not null) p
   where pg_catalog.cardinality(p.problems) > 0;
  if pg_catalog.cardinality(v_problems) > 0 then
    raise exception 'community deletion: refused DDL on registered tables: %', pg_catalog.array_to_string(v_problems, '; ')
      using errcode = 'DL7C2',
            hint = 'The write fence and provenance guards of registered tables cannot be dropped, disabled or bypassed '
                   '(docs/security.md). To retire a table, drop it in a migration and update the registry.';
  end if;
end;
$$;
