-- Triggers of the fence workstream (after all functions exist).

-- Lifecycle/tombstone guard on communities.
drop trigger if exists _010_protect_lifecycle on public.communities;
create trigger _010_protect_lifecycle
  before insert or update or delete on public.communities
  for each row
  execute function public.tg_communities__protect_lifecycle();

-- The write fence on every registered scoped table (the 28 reference tables and
-- any registered before this runs): registration attaches the trigger.
select public.deletion_register_scoped_table(pg_catalog.to_regclass(format('public.%I', r.table_name)), r.purge_order)
  from public.community_deletion_tables r
 where r.kind = 'scoped'
 order by r.purge_order;

-- Any DDL on non-temporary objects, by any tool, takes the schema/destruction
-- lock exclusively (see schema_destruction_lock.sql for which event decides).
drop event trigger if exists _100_lock_schema_destruction;
create event trigger _100_lock_schema_destruction
  on ddl_command_start
  execute function public.tg_ddl__lock_schema_destruction();
drop event trigger if exists _101_lock_schema_destruction_created;
create event trigger _101_lock_schema_destruction_created
  on ddl_command_end
  execute function public.tg_ddl__lock_schema_destruction_created();
drop event trigger if exists _102_lock_schema_destruction_dropped;
create event trigger _102_lock_schema_destruction_dropped
  on sql_drop
  execute function public.tg_ddl__lock_schema_destruction_dropped();
