-- What is wrong with the guard trigger of registered provenance table
-- p_table (empty when nothing is): _020_provenance_guard must exist, execute
-- tg_provenance_table__refuse_inactive_community() for p_column, fire for
-- ordinary sessions, and fire AFTER each inserted and updated row (the row
-- as stored, whatever BEFORE triggers did to it), with no WHEN clause and
-- no column list.
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
           when (t.tgtype & 1) = 0 or (t.tgtype & 66) <> 0 or (t.tgtype & 20) <> 20
                or t.tgqual is not null or pg_catalog.cardinality(t.tgattr::int2[]) > 0
             then array['_020_provenance_guard does not fire after each inserted and updated row']
           else '{}'::text[]
         end
    from (select 1) one
    left join pg_catalog.pg_trigger t on t.tgrelid = p_table and t.tgname = '_020_provenance_guard' and not t.tgisinternal);
end;
$$;
