-- Detection rule for "fenced": the table (any schema, not a partition)
-- carries, for EACH of INSERT, UPDATE and DELETE, a trigger that is not
-- internal, is enabled for ordinary sessions (tgenabled 'O'), is STATEMENT
-- level, AFTER (neither BEFORE nor INSTEAD OF), has no WHEN condition and no
-- column list, executes exactly
-- community_deletion.tg_scoped_table__enforce_write_fence(), and names the
-- transition tables that function reads: INSERT → NEW TABLE fence_new_rows;
-- UPDATE → OLD TABLE fence_old_rows and NEW TABLE fence_new_rows; DELETE →
-- OLD TABLE fence_old_rows. That is precisely what
-- community_deletion.register_scoped_table attaches
-- (_010_community_write_fence, _010_community_write_fence_update,
-- _010_community_write_fence_delete). A disabled trigger, one set to fire
-- only on replicas or always, a row-level or BEFORE one, one without its
-- transition tables, one with a WHEN clause, or a set missing an event is not
-- a fence. The early-refusal and TRUNCATE triggers are checked by name
-- (_fence_trigger_problems); they never decide a write.
--
-- Sorted labels (_table_label) of the tables carrying the write fence.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._live_fenced_tables()
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select coalesce(pg_catalog.array_agg(f.label order by f.label collate "C"), '{}')
    from (select community_deletion._table_label(n.nspname::text, c.relname::text) as label
            from pg_catalog.pg_trigger t
            join pg_catalog.pg_class c on c.oid = t.tgrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where not c.relispartition and not t.tgisinternal
             and t.tgenabled = 'O'
             and t.tgfoid = (select pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()'))
             and (t.tgtype & 1) = 0      -- statement level
             and (t.tgtype & 66) = 0     -- AFTER: neither BEFORE (2) nor INSTEAD OF (64)
             and t.tgqual is null        -- no WHEN condition
             and pg_catalog.cardinality(t.tgattr::int2[]) = 0   -- no column list
           group by n.nspname, c.relname
          having pg_catalog.bool_or((t.tgtype & 4) = 4 and t.tgnewtable = 'fence_new_rows')    -- insert
             and pg_catalog.bool_or((t.tgtype & 16) = 16 and t.tgoldtable = 'fence_old_rows'   -- update
                                    and t.tgnewtable = 'fence_new_rows')
             and pg_catalog.bool_or((t.tgtype & 8) = 8 and t.tgoldtable = 'fence_old_rows')    -- delete
         ) f);
end;
$$;
