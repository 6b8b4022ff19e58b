-- The form a community host is compared in when a tombstone reserves it
-- (tg_communities__protect_lifecycle, DL8T2): what a resolver or a browser
-- would take for the same name. Unicode NFKC (full-width letters and dots
-- become plain ones), lower case, every whitespace and invisible character
-- removed (_without_invisible), the ideographic full stop (U+3002, and the
-- half-width one NFKC maps to it) read as a dot, as IDNA does, each ACE
-- label ("xn--…", Punycode) decoded to the Unicode label it stands for
-- (_punycode_label) and normalised the same way, and trailing dots removed
-- (a fully qualified "a.example." is "a.example"). So a tombstoned
-- "bücher.example" also reserves "BÜCHER.example", "bücher.example.",
-- "ｂücher.example", "bücher。example", "bü​cher.example" (a zero-width
-- space inside) and "xn--bcher-kva.example".
create or replace function community_deletion._host_key(p_host text)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.rtrim(
           (select pg_catalog.string_agg(
                     community_deletion._without_invisible(
                       pg_catalog.lower(pg_catalog.normalize(community_deletion._punycode_label(l.label), 'NFKC'))),
                     '.' order by l.o)
              from pg_catalog.regexp_split_to_table(
                     pg_catalog.translate(
                       community_deletion._without_invisible(pg_catalog.lower(pg_catalog.normalize(p_host, 'NFKC'))),
                       '。', '.'),
                     '\.') with ordinality as l(label, o)),
           '.')
$$;
