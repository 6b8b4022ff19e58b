-- What is wrong with the guard trigger of registered provenance table
-- p_table (empty when nothing is): _020_provenance_guard must exist, execute
-- tg_provenance_table__refuse_inactive_community() for p_column, and fire
-- for ordinary sessions.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._provenance_guard_problems(p_table regclass, p_column text)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select case
           when t.oid is null then array['_020_provenance_guard missing']
           when t.tgfoid <> pg_catalog.to_regprocedure('community_deletion.tg_provenance_table__refuse_inactive_community()')
             then array['_020_provenance_guard executes another function']
           when t.tgnargs <> 1 or pg_catalog.convert_from(pg_catalog.substr(t.tgargs, 1, pg_catalog.length(t.tgargs) - 1), 'UTF8') <> p_column
             then array['_020_provenance_guard guards another column']
           when t.tgenabled <> 'O' then array['_020_provenance_guard does not fire for ordinary sessions']
           else '{}'::text[]
         end
    from (select 1) one
    left join pg_catalog.pg_trigger t on t.tgrelid = p_table and t.tgname = '_020_provenance_guard' and not t.tgisinternal);
end;
$$;
