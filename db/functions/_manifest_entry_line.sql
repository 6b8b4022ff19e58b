-- Canonical storage-manifest entry helpers (docs/manifest-format.md). The
-- TypeScript enumerator (src/manifest.ts) produces the same bytes; change both
-- together or the per-prefix digests stop matching.
--
-- These three run once per entry (a million times for a large community), so
-- they are plain SQL expressions WITHOUT a `set search_path` clause: a SET
-- clause would stop PostgreSQL from inlining them into the per-chunk query
-- (measured: 3x slower). Instead every type and collation they name is
-- schema-qualified (pg_catalog), so a temporary object named like a built-in
-- can never be picked up; operators and functions are never looked up in
-- pg_temp, and their only callers are engine functions that pin search_path
-- to pg_catalog, pg_temp.
--
-- Canonical text of one entry: key TAB version_id TAB kind LF (the digest input).
create or replace function community_deletion._manifest_entry_line(p_entry jsonb)
  returns text
  language sql
  immutable
  parallel safe
as $$
  select (p_entry ->> 'key') || E'\t' || (p_entry ->> 'version_id') || E'\t' || (p_entry ->> 'kind') || E'\n'
$$;
