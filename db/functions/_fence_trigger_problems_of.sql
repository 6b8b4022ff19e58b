-- _fence_trigger_problems for many tables at once (validate_catalog checks
-- every registered scoped table in one query): one row per element of
-- p_tables (duplicates once) with what is wrong with
-- its write-fence triggers, as short phrases sorted by trigger name (empty
-- when nothing is): each of the six triggers register_scoped_table attaches
-- must exist under its name, execute its function and fire for ordinary
-- sessions (tgenabled 'O' — not disabled, not REPLICA, not ALWAYS). Their
-- form (statement level, transition tables) is _live_fenced_tables' rule.
-- PL/pgSQL, generic plan: planned once a session; no JIT (docs/design.md, The
-- catalog check's cost).
create or replace function community_deletion._fence_trigger_problems_of(p_tables regclass[])
  returns table (rel regclass, problems text[])
  language plpgsql
  stable
  rows 100
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
  set jit = off
as $$
begin
  return query
  with fn as (
    -- Each function resolved once (null when it does not exist: no trigger
    -- then counts as executing another function).
    select f.name, pg_catalog.to_regprocedure(f.name) as oid
      from (values ('community_deletion.tg_scoped_table__enforce_write_fence()'),
                   ('community_deletion.tg_scoped_table__refuse_write_early()'),
                   ('community_deletion.tg_scoped_table__refuse_truncate()')) as f(name)
  ),
  expected as (
    select e.name, fn.oid as fn
      from (values ('_010_community_write_fence', 'community_deletion.tg_scoped_table__enforce_write_fence()'),
                   ('_010_community_write_fence_update', 'community_deletion.tg_scoped_table__enforce_write_fence()'),
                   ('_010_community_write_fence_delete', 'community_deletion.tg_scoped_table__enforce_write_fence()'),
                   ('_010_community_write_fence_early', 'community_deletion.tg_scoped_table__refuse_write_early()'),
                   ('_010_community_write_fence_early_delete', 'community_deletion.tg_scoped_table__refuse_write_early()'),
                   ('_010_community_write_fence_truncate', 'community_deletion.tg_scoped_table__refuse_truncate()'))
             as e(name, fn_name)
      join fn on fn.name = e.fn_name
  )
  select p.rel, coalesce(pg_catalog.array_agg(p.problem order by p.name) filter (where p.problem is not null), '{}')
    from (select t.rel, e.name,
                 case when tg.oid is null then e.name || ' missing'
                      when tg.tgfoid <> e.fn then e.name || ' executes another function'
                      when tg.tgenabled <> 'O' then e.name || case tg.tgenabled when 'D' then ' disabled'
                                                                          when 'R' then ' set to fire on replicas only'
                                                                          else ' set to fire always' end
                 end as problem
            from (select distinct x.rel from pg_catalog.unnest(p_tables) x(rel)) t
            cross join expected e
            left join pg_catalog.pg_trigger tg on tg.tgrelid = t.rel and tg.tgname = e.name and not tg.tgisinternal) p
   group by p.rel;
end;
$$;
