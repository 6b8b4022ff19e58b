-- 'native' or 'plpgsql': what the write-fence triggers execute now (both
-- trigger functions are always installed together).
create or replace function community_deletion.write_fence_implementation()
  returns text
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select case l.lanname when 'c' then 'native' else l.lanname::text end
    from pg_catalog.pg_proc p join pg_catalog.pg_language l on l.oid = p.prolang
   where p.oid = 'community_deletion.tg_scoped_table__enforce_write_fence()'::pg_catalog.regprocedure
$$;
