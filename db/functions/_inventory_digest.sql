-- Digest of a canonical inventory: lowercase hex SHA-256 of its jsonb text
-- (jsonb's text form is deterministic: keys sorted, whitespace normalised).
create or replace function community_deletion._inventory_digest(p_inventory jsonb)
  returns text
  language sql
  immutable
  parallel safe
  strict
  set search_path = pg_catalog, pg_temp
as $$
  select encode(sha256(convert_to(p_inventory::text, 'UTF8')), 'hex')
$$;
