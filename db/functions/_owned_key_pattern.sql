-- The anchored key pattern a key under p_prefix must match when p_prefix is
-- one of p_community's owned prefixes; null otherwise (a foreign or unknown
-- prefix), so callers fail closed.
create or replace function community_deletion._owned_key_pattern(p_community uuid, p_prefix text)
  returns text
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select replace(t.key_pattern, '{community}', p_community::text)
  from community_deletion.storage_taxonomy t
  where t.scope = 'owned'
    and replace(t.prefix_template, '{community}', p_community::text) = p_prefix
$$;
