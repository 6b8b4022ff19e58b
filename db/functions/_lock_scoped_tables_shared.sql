-- Takes ACCESS SHARE on every registered scoped table until the end of the
-- transaction (begin_quiescing). It conflicts only with ACCESS EXCLUSIVE —
-- TRUNCATE, ALTER, DROP — never with reads or writes: a TRUNCATE already in
-- progress (it checked while the community was still active) finishes first,
-- and one that starts afterwards queues behind this transaction and then sees
-- the community quiescing (tg_scoped_table__refuse_truncate). Bounded by
-- lock_timeout like every engine lock wait.
create or replace function community_deletion._lock_scoped_tables_shared()
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
    execute pg_catalog.format('lock table %s in access share mode', v_table);
  end loop;
end;
$$;
