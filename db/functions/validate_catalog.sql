-- Refuses (catalog_drift, DL7C1) unless the live catalog is exactly what the
-- registry says (docs/design.md#catalog):
--   1. the relations that hold communities, in every schema
--      (_live_community_tables), equal the registry (every kind): no
--      registered table missing, no unknown one — partitions, inheritance
--      children, foreign tables and materialized views included;
--   2. the tables carrying the write fence equal the registered scoped tables
--      (an unfenced scoped table lets writes escape; a fence trigger on an
--      unregistered table means the registry is stale);
--   3. every registered scoped table is a plain table (not partitioned, not
--      a partition, not part of an inheritance tree), has community_id uuid
--      NOT NULL and no other column holding a community, a valid index
--      leading with community_id, and all six fence triggers present,
--      executing their functions and firing for ordinary sessions;
--   4. every registered provenance table is a plain table whose only
--      community column is the registered one, nullable and leading an
--      index, guarded by _020_provenance_guard;
--   5. row-level security of a registered scoped or provenance table, or
--      of public.communities, does not apply to the engine owner
--      (_row_security_problem: without BYPASSRLS, on a managed server, a
--      policy could hide rows from the purge and the absence proof, and its
--      expressions would run as the engine owner; reported with item 7);
--   6. every foreign key of a registered scoped or provenance table that
--      references a registered scoped table has an index leading with its
--      referencing columns (_foreign_key_index_problems: without it the
--      purge is quadratic);
--   7. no code another role attached to a registered scoped table (on
--      DELETE), provenance table or public.communities (on UPDATE) would run
--      as the engine owner when the engine changes their rows: a trigger or
--      expression calling a function no superuser or engine owner owns, a
--      rule, or row-level security (_invoker_code_problems;
--      _refuse_invoker_code checks it again, under lock, right before each
--      such statement);
--   8. public.communities keeps its lifecycle guard: the trigger
--      _010_protect_lifecycle and the lifecycle columns the engine and the
--      fence read by name (_communities_guard_problems).
-- Excluded tables are only required to be registered. The message lists
-- every problem (table names included) so a claim that blocks on it explains
-- itself; DETAIL carries the same as JSON. Destructive stages call it inside
-- their own transaction after _lock_schema_destruction_shared(), so the
-- validated surface cannot change before they commit.
create or replace function community_deletion.validate_catalog()
  returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
  set jit = off
as $$
declare
  v_live text[] := community_deletion._live_community_tables();
  v_fenced text[] := community_deletion._live_fenced_tables();
  v_registered text[];
  v_scoped text[];
  v_missing text[];
  v_unknown text[];
  v_unfenced text[];
  v_stray_fences text[];
  v_shape text[];
  v_communities_code text[] := coalesce(community_deletion._invoker_code_problems(pg_catalog.to_regclass('public.communities'), 'update'), '{}');
  v_communities_guard text[] := community_deletion._communities_guard_problems();
  v_problems text[] := '{}';
  -- The registered scoped and provenance tables that exist, and each one's
  -- community column (same order), for the _of helpers.
  v_rels regclass[];
  v_columns text[];
  v_scoped_rels regclass[];
  v_provenance_rels regclass[];
begin
  select coalesce(array_agg(x.rel), '{}'), coalesce(array_agg(r.community_column), '{}'),
         coalesce(array_agg(x.rel) filter (where r.kind = 'scoped'), '{}'),
         coalesce(array_agg(x.rel) filter (where r.kind = 'provenance'), '{}')
    into v_rels, v_columns, v_scoped_rels, v_provenance_rels
    from community_deletion.registered_tables r
    cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
   where r.kind in ('scoped', 'provenance') and x.rel is not null;
  select coalesce(array_agg(l.label order by l.label collate "C"), '{}'),
         coalesce(array_agg(l.label order by l.label collate "C") filter (where r.kind = 'scoped'), '{}')
    into v_registered, v_scoped
    from community_deletion.registered_tables r
    cross join lateral (select community_deletion._table_label(r.schema_name, r.table_name) as label) l;
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_missing
    from unnest(v_registered) x where x <> all (v_live);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unknown
    from unnest(v_live) x where x <> all (v_registered);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unfenced
    from unnest(v_scoped) x where x <> all (v_fenced) and x = any (v_live);
  -- Any trigger executing a fence function (complete or not, enabled or not)
  -- on a table not registered as scoped means the registry is stale.
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_stray_fences
    from (select distinct community_deletion._table_label(n.nspname::text, c.relname::text) as x
            from pg_catalog.pg_trigger t
            join pg_catalog.pg_class c on c.oid = t.tgrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where not t.tgisinternal
             and t.tgfoid in ((select pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()')),
                              (select pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_write_early()')),
                              (select pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_truncate()')))) f
   where x <> all (v_scoped);
  -- The shape of every registered scoped and provenance table that exists,
  -- each rule checked for all of them in one query (the _of helpers).
  select coalesce(array_agg(s.label || ': ' || array_to_string(s.problems, ', ') order by s.label collate "C"), '{}')
    into v_shape
    from (select t.label,
                 array_remove(array[
                   case when ih.inheritance is not null then 'it is ' || ih.inheritance end,
                   case when t.kind = 'scoped'
                         and not coalesce(ca.atttypid = 'pg_catalog.uuid'::pg_catalog.regtype and ca.attnotnull, false)
                        then 'community_id is not uuid not null' end,
                   case when cc.columns <> array[t.community_column]
                        then format('the columns holding a community are %s, registered: %s',
                                    coalesce(nullif(array_to_string(cc.columns, ', '), ''), 'none'),
                                    t.community_column) end,
                   case when t.kind = 'provenance' and coalesce(ca.attnotnull, false)
                        then t.community_column || ' is NOT NULL (the purge nulls it)' end,
                   case when not li.has_index
                        then 'no valid index leads with ' || t.community_column end], null)
                 || case t.kind when 'scoped' then coalesce(ft.problems, '{}')
                                else community_deletion._provenance_guard_problems(t.rel, t.community_column) end
                 || coalesce(fk.problems, '{}')
                 || coalesce(ic.problems, '{}')
                   as problems
            from (select r.kind, r.community_column, community_deletion._table_label(r.schema_name, r.table_name) as label,
                         community_deletion._registered_relation(r.schema_name, r.table_name) as rel
                    from community_deletion.registered_tables r
                   -- offset 0: each computed once per table, not at every join.
                   where r.kind in ('scoped', 'provenance') offset 0) t
            -- The community column (community_id for a scoped table), looked up
            -- through the catalog's index, table by table.
            left join lateral (select a.atttypid, a.attnotnull
                                 from pg_catalog.pg_attribute a
                                where a.attrelid = t.rel and not a.attisdropped
                                  and a.attname = case t.kind when 'scoped' then 'community_id' else t.community_column end) ca on true
            left join community_deletion._inheritance_role_of(v_rels) ih on ih.rel = t.rel
            left join community_deletion._community_columns_of(v_rels) cc on cc.rel = t.rel
            left join community_deletion._has_leading_index_of(v_rels, v_columns) li on li.rel = t.rel and li.column_name = t.community_column
            left join community_deletion._fence_trigger_problems_of(v_scoped_rels) ft on ft.rel = t.rel
            left join community_deletion._foreign_key_index_problems_of(v_rels) fk on fk.rel = t.rel
            left join community_deletion._invoker_code_problems_of(v_scoped_rels, 'delete') ic_d on ic_d.rel = t.rel and t.kind = 'scoped'
            left join community_deletion._invoker_code_problems_of(v_provenance_rels, 'update') ic_u on ic_u.rel = t.rel and t.kind = 'provenance'
            cross join lateral (select coalesce(ic_d.problems, ic_u.problems) as problems) ic
           where t.rel is not null) s
   where cardinality(s.problems) > 0;

  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('registered but missing: %s', array_to_string(v_missing, ', '));
  end if;
  if cardinality(v_unknown) > 0 then
    v_problems := v_problems || format('unregistered tables holding communities: %s', array_to_string(v_unknown, ', '));
  end if;
  if cardinality(v_unfenced) > 0 then
    v_problems := v_problems || format('scoped tables without the write fence: %s', array_to_string(v_unfenced, ', '));
  end if;
  if cardinality(v_stray_fences) > 0 then
    v_problems := v_problems || format('write fence on unregistered tables: %s', array_to_string(v_stray_fences, ', '));
  end if;
  if cardinality(v_shape) > 0 then
    v_problems := v_problems || format('registered tables out of shape: %s', array_to_string(v_shape, '; '));
  end if;
  if cardinality(v_communities_code) > 0 then
    v_problems := v_problems || format('code that would run as the engine owner when it updates public.communities: %s',
                                       array_to_string(v_communities_code, ', '));
  end if;
  if cardinality(v_communities_guard) > 0 then
    v_problems := v_problems || format('public.communities out of shape: %s', array_to_string(v_communities_guard, ', '));
  end if;
  if cardinality(v_problems) > 0 then
    raise exception 'community deletion catalog drift: %', array_to_string(v_problems, '; ')
      using errcode = 'DL7C1',
            detail = pg_catalog.jsonb_build_object(
              'missing', v_missing, 'unknown', v_unknown, 'unfenced', v_unfenced,
              'stray_fences', v_stray_fences, 'shape', v_shape, 'communities_code', v_communities_code,
              'communities_guard', v_communities_guard)::text,
            hint = 'In a migration, register new tables (community_deletion.register_scoped_table / '
                   'community_deletion.register_unscoped_table) or drop them, restore missing fences and indexes, '
                   'drop triggers and rules that would run as the engine owner (or have a superuser own their functions); '
                   'then unblock the request (deletions unblock ID), or abort it.';
  end if;
end;
$$;
