-- The form a community host is compared in when a tombstone reserves it
-- (tg_communities__protect_lifecycle, DL8T2): what a resolver or a browser
-- would take for the same name. Unicode NFKC (full-width letters and dots
-- become plain ones), lower case, every whitespace and invisible character
-- removed (_without_invisible), the ideographic full stop (U+3002, and the
-- half-width one NFKC maps to it) read as a dot, as IDNA does, and trailing
-- dots removed (a fully qualified "a.example." is "a.example"). So a
-- tombstoned "a.example" also reserves "A.EXAMPLE", "a.example.",
-- "ａ.example", "a。example" and "a​.example" (a zero-width space inside).
create or replace function community_deletion._host_key(p_host text)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.rtrim(
           pg_catalog.translate(
             community_deletion._without_invisible(pg_catalog.lower(pg_catalog.normalize(p_host, 'NFKC'))),
             '。', '.'),
           '.')
$$;
