-- (Re-)attaches the write fence on every registered scoped table, in purge
-- order, through register_scoped_table (which drops and re-creates the
-- triggers), inside the migration's transaction: no writer ever sees a table
-- without its fence. Runs after install_write_fence() has defined the
-- trigger functions.
select community_deletion.register_scoped_table(pg_catalog.to_regclass(pg_catalog.format('public.%I', r.table_name)), r.purge_order)
  from community_deletion.registered_tables r
 where r.kind = 'scoped'
 order by r.purge_order;
