-- The form two operator identities are compared in (docs/security.md#two-person-rule):
-- Unicode NFKC (full-width letters, ligatures and compatibility forms become
-- their plain letters), lower case, and every whitespace and invisible format
-- character removed (spaces of every kind, NBSP, tabs, zero-width spaces and
-- joiners, direction marks, soft hyphens, the BOM). So "Alice", " ａｌｉｃｅ",
-- "al​ice" and "A L I C E" are one person. Confusable letters of other
-- scripts (Cyrillic "а" for Latin "a") are not folded: the login rule, not
-- the typed name, is what binds two different people.
create or replace function community_deletion._identity_key(p_identity text)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.regexp_replace(
           pg_catalog.lower(pg_catalog.normalize(p_identity, 'NFKC')),
           '[[:space:]\u0085\u00a0\u00ad\u034f\u061c\u115f\u1160\u1680\u17b4\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb]',
           '', 'g')
$$;
