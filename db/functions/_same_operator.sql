-- Whether two operator identities name the same person: identities compare
-- trimmed and case-insensitively, so "Alice" cannot approve "alice"'s request.
create or replace function community_deletion._same_operator(p_a text, p_b text)
  returns boolean
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.lower(pg_catalog.btrim(p_a)) = pg_catalog.lower(pg_catalog.btrim(p_b))
$$;
