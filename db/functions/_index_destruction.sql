-- Index of the destruction workstream's objects, in dependency order (tables/columns first,
-- then functions, then triggers). Included by db/migrations/current.sql.
-- Destructive path: frozen key chunks, destructive manifest freeze, drained,
-- chunk stamping, PostgreSQL purge + tombstone, absence proof, terminal stages.

-- helpers
--!include manifest_entry.sql
--!include key_pattern.sql
--!include key_chunk_facts.sql
--!include key_chunk_check.sql
--!include tombstone_community.sql

-- executor API (fenced … retention_pending)
--!include key_chunk_append.sql
--!include key_chunks_clear.sql
--!include manifest_freeze.sql
--!include mark_drained.sql
--!include key_chunk_next.sql
--!include key_chunk_stamp.sql
--!include key_chunk_progress.sql
--!include mark_bindings_removed.sql
--!include purge.sql
--!include mark_cache_purged.sql
--!include postgres_absence.sql
--!include mark_logically_verified.sql
--!include mark_retention_pending.sql

-- triggers
--!include tg_community_deletion_manifest_keys__guard.sql
--!include tg_community_deletion_requests__freeze_destructive_manifest.sql
