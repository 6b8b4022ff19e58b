-- Validates one key chunk row about to be inserted, however it is written
-- (called by the chunk guard trigger, so community_deletion.append_key_chunk and a
-- direct INSERT get the same rules): chunk numbers contiguous from 0; prefix
-- one of the target community's owned prefixes and not before the previous
-- chunk's prefix; a non-empty array of canonical entries, each under the
-- prefix, matching the storage taxonomy, strictly ascending by
-- (key, version_id) in byte order, and after the last entry of the previous
-- chunk of the same prefix. Raises DL6K1 (DL1M1 for malformed JSON). Chunks
-- are immutable once inserted, so the freeze need not repeat the (costly)
-- taxonomy match; it re-checks everything else.
create or replace function community_deletion._check_key_chunk(
  p_chunk community_deletion.manifest_keys,
  p_community uuid)
  returns void
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_last community_deletion.manifest_keys;
  v_pattern text;
  v_facts record;
  v_where text := format('request %s (community %s): key chunk %s', p_chunk.request_id, p_community, p_chunk.chunk_no);
begin
  select k.* into v_last
  from community_deletion.manifest_keys k
  where k.request_id = p_chunk.request_id
  order by k.chunk_no desc
  limit 1;
  if p_chunk.chunk_no is distinct from coalesce(v_last.chunk_no + 1, 0) then
    raise exception '% refused: the next chunk number is %', v_where, coalesce(v_last.chunk_no + 1, 0)
      using errcode = 'DL6K1',
            hint = 'Chunk numbers are contiguous from 0; after an interrupted enumeration call community_deletion.clear_key_chunks and start again.';
  end if;

  v_pattern := community_deletion._owned_key_pattern(p_community, p_chunk.prefix);
  if v_pattern is null then
    raise exception '% has prefix %, which is not an owned prefix of the target', v_where, p_chunk.prefix
      using errcode = 'DL6K1';
  end if;
  if v_last.prefix is not null and v_last.prefix collate "C" > p_chunk.prefix collate "C" then
    raise exception '% has prefix % after prefix % (prefixes go in byte order)', v_where, p_chunk.prefix, v_last.prefix
      using errcode = 'DL6K1';
  end if;

  if jsonb_typeof(p_chunk.entries) is distinct from 'array' then
    raise exception '%: entries must be a JSON array', v_where using errcode = 'DL1M1';
  end if;
  v_facts := community_deletion._key_chunk_facts(p_chunk.entries, p_chunk.prefix, v_pattern);
  if v_facts.entry_count = 0 then
    raise exception '% is empty', v_where
      using errcode = 'DL6K1',
            hint = 'A prefix with no entries has no chunks.';
  end if;
  if v_facts.bad_shape_at is not null then
    raise exception '%: entry % is not {"key", "version_id", "kind"} with non-empty TAB/LF-free strings: %',
      v_where, v_facts.bad_shape_at,
      community_deletion._bound_text((p_chunk.entries -> (v_facts.bad_shape_at - 1))::text, 512)
      using errcode = 'DL1M1';
  end if;
  if v_facts.outside_prefix_at is not null then
    raise exception '%: key % is outside the chunk prefix %', v_where,
      community_deletion._bound_text(p_chunk.entries -> (v_facts.outside_prefix_at - 1) ->> 'key', 512), p_chunk.prefix
      using errcode = 'DL6K1';
  end if;
  if v_facts.outside_taxonomy_at is not null then
    raise exception '%: key % under owned prefix % matches no known writer shape', v_where,
      community_deletion._bound_text(p_chunk.entries -> (v_facts.outside_taxonomy_at - 1) ->> 'key', 512), p_chunk.prefix
      using errcode = 'DL6K1',
            hint = 'A malformed key inside an owned prefix fails the deletion closed: register the writer''s key shape in community_deletion.storage_taxonomy or remove the object, then unblock.';
  end if;
  if v_facts.out_of_order_at is not null then
    raise exception '%: entry % is not strictly after its predecessor by (key, version_id)', v_where, v_facts.out_of_order_at
      using errcode = 'DL6K1';
  end if;
  if v_last.prefix = p_chunk.prefix
     and not community_deletion._manifest_entry_follows(v_last.entries -> -1, v_facts.first_entry) then
    raise exception '% does not continue strictly after chunk %', v_where, v_last.chunk_no
      using errcode = 'DL6K1';
  end if;
  if p_chunk.entry_count is distinct from v_facts.entry_count then
    raise exception '%: entry_count % does not match its % entries', v_where, p_chunk.entry_count, v_facts.entry_count
      using errcode = 'DL6K1';
  end if;
end;
$$;
