-- Refuses (catalog_drift, DL7C1) unless
--   1. the live public tables with a community_id column equal the registry
--      (every kind) exactly: no registered table missing, no unknown table;
--   2. the tables carrying the write fence equal the registered scoped tables
--      exactly (an unfenced scoped table lets writes escape; a fence trigger —
--      complete or not — on an unregistered table means the registry is stale);
--   3. every registered scoped table has community_id uuid NOT NULL and a valid,
--      non-partial index leading with community_id (beyond the seeds: the purge
--      and the absence proof never scan the fleet).
-- The message lists every problem (table names included) so a claim that
-- blocks on it explains itself; DETAIL carries the same as JSON. Destructive
-- stages call it inside their own transaction after
-- community_deletion._lock_schema_destruction_shared(), so the validated surface cannot
-- change before they commit.
create or replace function community_deletion.validate_catalog()
  returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
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
  v_bad_column text[];
  v_unindexed text[];
  v_problems text[] := '{}';
begin
  select coalesce(array_agg(r.table_name order by r.table_name collate "C"), '{}'),
         coalesce(array_agg(r.table_name order by r.table_name collate "C") filter (where r.kind = 'scoped'), '{}')
    into v_registered, v_scoped
    from community_deletion.registered_tables r;
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_missing
    from unnest(v_registered) x where x <> all (v_live);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unknown
    from unnest(v_live) x where x <> all (v_registered);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unfenced
    from unnest(v_scoped) x where x <> all (v_fenced) and x = any (v_live);
  -- Any trigger executing a fence function (complete or not, enabled or not)
  -- on a table not registered as scoped means the registry is stale.
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_stray_fences
    from (select distinct c.relname::text as x
            from pg_catalog.pg_trigger t
            join pg_catalog.pg_class c on c.oid = t.tgrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where n.nspname = 'public' and not c.relispartition and not t.tgisinternal
             and t.tgfoid in (pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()'),
                              pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_write_early()'))) f
   where x <> all (v_scoped);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_bad_column
    from unnest(v_scoped) x
   where x = any (v_live) and not exists (
     select 1 from pg_catalog.pg_attribute a
      where a.attrelid = pg_catalog.to_regclass(format('public.%I', x)) and a.attname = 'community_id'
        and not a.attisdropped and a.atttypid = 'uuid'::pg_catalog.regtype and a.attnotnull);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unindexed
    from unnest(v_scoped) x
   where x = any (v_live) and not community_deletion._has_community_index(pg_catalog.to_regclass(format('public.%I', x)));

  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('registered but missing: %s', array_to_string(v_missing, ', '));
  end if;
  if cardinality(v_unknown) > 0 then
    v_problems := v_problems || format('unregistered tables with community_id: %s', array_to_string(v_unknown, ', '));
  end if;
  if cardinality(v_unfenced) > 0 then
    v_problems := v_problems || format('scoped tables without the write fence: %s', array_to_string(v_unfenced, ', '));
  end if;
  if cardinality(v_stray_fences) > 0 then
    v_problems := v_problems || format('write fence on unregistered tables: %s', array_to_string(v_stray_fences, ', '));
  end if;
  if cardinality(v_bad_column) > 0 then
    v_problems := v_problems || format('scoped tables whose community_id is not uuid not null: %s', array_to_string(v_bad_column, ', '));
  end if;
  if cardinality(v_unindexed) > 0 then
    v_problems := v_problems || format('scoped tables without an index leading with community_id: %s', array_to_string(v_unindexed, ', '));
  end if;
  if cardinality(v_problems) > 0 then
    raise exception 'community deletion catalog drift: %', array_to_string(v_problems, '; ')
      using errcode = 'DL7C1',
            detail = pg_catalog.jsonb_build_object(
              'missing', v_missing, 'unknown', v_unknown, 'unfenced', v_unfenced,
              'stray_fences', v_stray_fences, 'bad_community_id', v_bad_column,
              'unindexed', v_unindexed)::text,
            hint = 'In a migration, register new tables (community_deletion.register_scoped_table / community_deletion.register_unscoped_table) or drop them, restore missing fences and indexes; then unblock the request (or abort it).';
  end if;
end;
$$;
