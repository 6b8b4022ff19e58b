-- Re-attaches the write fence on every registered scoped table in its
-- statement-level form (see tg_scoped_table__enforce_write_fence.sql):
-- deletion_register_scoped_table drops the old row-level trigger
-- _010_community_write_fence and creates the three statement-level triggers.
-- Runs inside the migration's transaction, so no writer ever sees a table
-- between the two forms. Re-running it is harmless.
select public.deletion_register_scoped_table(pg_catalog.to_regclass(format('public.%I', r.table_name)), r.purge_order)
  from public.community_deletion_tables r
 where r.kind = 'scoped'
 order by r.purge_order;
