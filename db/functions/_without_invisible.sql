-- p_text with every whitespace and invisible character removed: spaces of
-- every kind (NBSP, ideographic, the Braille blank), tabs and line breaks,
-- zero-width spaces and joiners, direction marks and embeddings, soft
-- hyphens, the BOM, variation selectors (both blocks), Hangul and Mongolian
-- fillers, and every other Unicode format character (general category Cf:
-- Arabic number signs, Kaithi, Egyptian and shorthand format controls,
-- musical formatting, the tag characters of U+E0000–E0FFF), the Khitan
-- filler (U+16FE4), and what a terminal has no glyph for: private-use
-- characters (U+E000–F8FF, planes 15 and 16) and the noncharacters
-- U+FDD0–FDEF. Used where two
-- typed texts must compare as a reader sees them (_identity_key, _host_key):
-- what a terminal shows as nothing must count as nothing.
create or replace function community_deletion._without_invisible(p_text text)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.regexp_replace(p_text,
           '[[:space:]\u0085\u00a0\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u1680\u17b4\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u2800\u3000\u3164\ue000-\uf8ff\ufdd0-\ufdef\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U00016fe4\U0001d173-\U0001d17a\U000e0000-\U000e0fff\U000f0000-\U0010ffff]',
           '', 'g')
$$;
