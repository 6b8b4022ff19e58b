-- Index of the fence workstream's objects, in dependency order (tables/columns first,
-- then functions, then triggers). Migration 000003 was built from these lists;
-- a future migration that re-applies the whole workstream includes this file
-- and then grants.sql (last, once, from db/migrations/current.sql).
-- Write fence, tombstone guard, serving-write leases, quiesce/fence, catalog
-- validation (catalog_validate.sql is listed in _index_lifecycle.sql, owned
-- here), schema/destruction lock, roles and grants.

-- roles and tables
--!include fence_roles.sql
--!include fence_tables.sql

-- helpers
--!include require_read_committed.sql
--!include serving_write_granted.sql
--!include register_scoped_table.sql
--!include catalog_validate_serving.sql
--!include schema_destruction_lock.sql

-- the write decision
--!include community_write_allowed.sql
--!include tg_scoped_table__enforce_write_fence.sql
--!include tg_scoped_table__refuse_write_early.sql
--!include write_fence_install.sql
--!include write_fence_install_now.sql
--!include tg_communities__protect_lifecycle.sql

-- serving-write leases (application API)
--!include serving_lease_acquire.sql
--!include serving_lease_renew.sql
--!include serving_lease_verify.sql
--!include serving_lease_release.sql
--!include serving_lease_guard.sql
--!include serving_lease_reap.sql
--!include serving_lease_stats.sql

-- executor API (approved stage)
--!include begin_quiescing.sql
--!include fence.sql

-- triggers
--!include fence_triggers.sql

