-- The form two operator identities are compared in (docs/security.md#two-person-rule):
-- Unicode NFKC (full-width letters, ligatures and compatibility forms become
-- their plain letters), lower case with the two folds lower() leaves out
-- ("ß" and "ẞ" are "ss", a final sigma is a sigma), and every whitespace and
-- invisible character removed (_without_invisible: spaces of every kind,
-- zero-width characters, direction marks, variation selectors, tag
-- characters, every format character). So "Alice", " ａｌｉｃｅ", "al​ice",
-- "A L I C E" and "alice" followed by an invisible tag character are one
-- person, as are "STRASSE" and "straße". Confusable letters of other scripts
-- (Cyrillic "а" for Latin "a") are not folded: the login rule, not the
-- typed name, is what binds two different people.
create or replace function community_deletion._identity_key(p_identity text)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select community_deletion._without_invisible(
           pg_catalog.replace(pg_catalog.translate(pg_catalog.lower(pg_catalog.normalize(p_identity, 'NFKC')), 'ς', 'σ'),
                              'ß', 'ss'))
$$;
