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

-- True when p_entry is exactly {"key", "version_id", "kind"} with non-empty
-- string fields free of TAB/LF and kind object|delete_marker: the shape whose
-- canonical line cannot alias another entry's.
create or replace function community_deletion._manifest_entry_is_valid(p_entry jsonb)
  returns boolean
  language sql
  immutable
  parallel safe
as $$
  select case when jsonb_typeof(p_entry) = 'object' then coalesce(
    (p_entry - 'key' - 'version_id' - 'kind') = '{}'::pg_catalog.jsonb
    and jsonb_typeof(p_entry -> 'key') = 'string'
    and jsonb_typeof(p_entry -> 'version_id') = 'string'
    and (p_entry ->> 'kind') in ('object', 'delete_marker')
    and (p_entry ->> 'key') <> ''
    and (p_entry ->> 'version_id') <> ''
    and strpos(p_entry ->> 'key', E'\t') = 0 and strpos(p_entry ->> 'key', E'\n') = 0
    and strpos(p_entry ->> 'version_id', E'\t') = 0 and strpos(p_entry ->> 'version_id', E'\n') = 0,
    false) else false end
$$;
