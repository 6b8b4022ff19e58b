-- Re-attaches the early-refusal row triggers of every registered scoped table
-- in the form of the installed fence implementation (_attach_early_fence).
create or replace function community_deletion._reattach_early_fences()
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_table regclass;
begin
  for v_table in
    select x.rel from community_deletion.registered_tables r
     cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
     where r.kind = 'scoped' and x.rel is not null
     order by r.purge_order
  loop
    perform community_deletion._attach_early_fence(v_table);
  end loop;
end;
$$;
