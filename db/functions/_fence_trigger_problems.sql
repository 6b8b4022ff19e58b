-- What is wrong with the write-fence triggers of registered scoped table
-- p_table, as short phrases (empty when nothing is): each of the six
-- triggers register_scoped_table attaches must exist under its name, execute
-- its function and fire for ordinary sessions (tgenabled 'O' — not disabled,
-- not REPLICA, not ALWAYS). Their form (statement level, transition tables)
-- is _live_fenced_tables' rule.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._fence_trigger_problems(p_table regclass)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select coalesce(pg_catalog.array_agg(p.problem order by p.name), '{}')
    from (select e.name,
                 case when t.oid is null then e.name || ' missing'
                      when t.tgfoid <> pg_catalog.to_regprocedure(e.fn) then e.name || ' executes another function'
                      when t.tgenabled <> 'O' then e.name || case t.tgenabled when 'D' then ' disabled'
                                                                        when 'R' then ' set to fire on replicas only'
                                                                        else ' set to fire always' end
                 end as problem
            from (values ('_010_community_write_fence', 'community_deletion.tg_scoped_table__enforce_write_fence()'),
                         ('_010_community_write_fence_update', 'community_deletion.tg_scoped_table__enforce_write_fence()'),
                         ('_010_community_write_fence_delete', 'community_deletion.tg_scoped_table__enforce_write_fence()'),
                         ('_010_community_write_fence_early', 'community_deletion.tg_scoped_table__refuse_write_early()'),
                         ('_010_community_write_fence_early_delete', 'community_deletion.tg_scoped_table__refuse_write_early()'),
                         ('_010_community_write_fence_truncate', 'community_deletion.tg_scoped_table__refuse_truncate()'))
                   as e(name, fn)
            left join pg_catalog.pg_trigger t on t.tgrelid = p_table and t.tgname = e.name and not t.tgisinternal) p
   where p.problem is not null);
end;
$$;
