-- Re-attaches the early-refusal row triggers of every registered scoped table
-- in the form of the installed fence implementation (_attach_early_fence).
create or replace function community_deletion._reattach_early_fences()
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_table text;
begin
  for v_table in
    select r.table_name from community_deletion.registered_tables r
     where r.kind = 'scoped' and pg_catalog.to_regclass(format('public.%I', r.table_name)) is not null
     order by r.purge_order
  loop
    perform community_deletion._attach_early_fence(v_table);
  end loop;
end;
$$;
