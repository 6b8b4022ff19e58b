-- (Re-)attaches the guards of every registered table, through the same
-- functions a migration registering a table calls, inside the migration's
-- transaction: the write fence of each scoped table in purge order
-- (register_scoped_table replaces its triggers in place, so no writer ever
-- sees a table without them), then the guard trigger of each provenance
-- table. Runs after install_write_fence() has defined the fence's trigger
-- functions. A registered table that no longer exists is skipped (the
-- catalog check reports it).
select community_deletion.register_scoped_table(x.rel, r.purge_order)
  from community_deletion.registered_tables r
  cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
 where r.kind = 'scoped' and x.rel is not null
 order by r.purge_order;
select community_deletion.register_unscoped_table(x.rel, r.kind, r.note)
  from community_deletion.registered_tables r
  cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
 where r.kind = 'provenance' and x.rel is not null
 order by r.schema_name, r.table_name;
