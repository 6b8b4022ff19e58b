-- The per-community advisory lock that orders lifecycle transitions (quiesce,
-- fence, abort: exclusive) against serving writers (shared). docs/design.md#ordering.

-- Advisory-lock key of a community. Derivation (stable forever; changing it
-- would let old and new code hold "the same" lock on different keys):
--   the first 8 bytes of the uuid (its first 16 hex digits, big-endian) read as
--   a signed bigint, XOR 0x636f6d6d64656c65 (ASCII "commdele").
-- The XOR moves community keys away from small integer keys other code may use.
create or replace function community_deletion._community_lock_key(p_community uuid)
  returns bigint
  language sql
  immutable
  parallel safe
  strict
  set search_path = pg_catalog, pg_temp
as $$
  select ('x' || pg_catalog.left(pg_catalog.replace(p_community::text, '-', ''), 16))::bit(64)::bigint
         # 7165065848772979813::bigint
$$;
