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
-- True when entry p_next sorts strictly after p_prev by (key, version_id) in
-- byte order: the cross-chunk half of the manifest ordering rule.
create or replace function community_deletion._manifest_entry_follows(p_prev jsonb, p_next jsonb)
  returns boolean
  language sql
  immutable
  parallel safe
as $$
  select coalesce(
    (p_next ->> 'key') collate pg_catalog."C" > (p_prev ->> 'key') collate pg_catalog."C"
    or ((p_next ->> 'key') = (p_prev ->> 'key')
        and (p_next ->> 'version_id') collate pg_catalog."C" > (p_prev ->> 'version_id') collate pg_catalog."C"),
    false)
$$;
