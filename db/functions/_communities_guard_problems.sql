-- What is wrong with public.communities as the engine's lifecycle guard
-- needs it, in words, sorted; empty when nothing is. The tombstone and the
-- fence stand on it: its owner could otherwise revive a tombstone or lift a
-- fence without a row trigger seeing it.
--   * the trigger _010_protect_lifecycle (db/engine/triggers.sql): present,
--     BEFORE INSERT OR UPDATE OR DELETE, FOR EACH ROW, executing
--     community_deletion.tg_communities__protect_lifecycle(), no WHEN
--     clause, no column list, enabled (for ordinary sessions, or always) —
--     not dropped, disabled, replica-only or replaced;
--   * the columns the engine and the write fence read by name — id uuid,
--     host text, deletion_state text, deletion_fence_generation bigint,
--     deleted_at timestamptz — present with those types: renaming one away
--     and adding a look-alike (a constant default rewrites nothing) would
--     let the fence read another column.
-- Used by the DDL guard (_guard_registered_tables: the command is refused,
-- DL7C2) and the catalog check (validate_catalog: DL7C1, where no event
-- trigger guards DDL).
create or replace function community_deletion._communities_guard_problems()
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
declare
  v_rel oid := pg_catalog.to_regclass('public.communities');
  v_problems text[] := '{}';
begin
  if v_rel is null then
    return array['public.communities is missing'];
  end if;
  if not exists (select 1 from pg_catalog.pg_trigger t
                  where t.tgrelid = v_rel and t.tgname = '_010_protect_lifecycle' and not t.tgisinternal
                    and t.tgfoid = pg_catalog.to_regprocedure('community_deletion.tg_communities__protect_lifecycle()')
                    and t.tgenabled in ('O', 'A')
                    and (t.tgtype & 1) = 1            -- row level
                    and (t.tgtype & 66) = 2           -- BEFORE
                    and (t.tgtype & 28) = 28          -- INSERT, DELETE, UPDATE
                    and t.tgqual is null
                    and pg_catalog.cardinality(t.tgattr::int2[]) = 0) then
    v_problems := v_problems || 'trigger _010_protect_lifecycle is missing, disabled or altered'::text;
  end if;
  select v_problems || coalesce(pg_catalog.array_agg(pg_catalog.format('column %s %s is missing or not of that type', c.name, c.type)
                                                     order by c.name), '{}')
    into v_problems
    from (values ('id', 'uuid'), ('host', 'text'), ('deletion_state', 'text'),
                 ('deletion_fence_generation', 'bigint'), ('deleted_at', 'timestamp with time zone')) c(name, type)
   where not exists (select 1 from pg_catalog.pg_attribute a
                      where a.attrelid = v_rel and a.attname = c.name and not a.attisdropped and a.attnum > 0
                        and pg_catalog.format_type(a.atttypid, null) = c.type);
  return v_problems;
end;
$$;
