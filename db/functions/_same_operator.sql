-- Whether two typed operator identities name the same person: they compare
-- in _identity_key form, so "Alice", "ＡＬＩＣＥ" and "al​ice" (a zero-width
-- space inside) cannot approve alice's request. Typed names are labels; the
-- login rule (session_user recorded on the request and the approval) is what
-- binds the two-person rule to two authenticated people.
create or replace function community_deletion._same_operator(p_a text, p_b text)
  returns boolean
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select community_deletion._identity_key(p_a) = community_deletion._identity_key(p_b)
$$;
