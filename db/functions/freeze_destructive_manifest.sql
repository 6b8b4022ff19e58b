-- Freezes the post-fence destructive storage manifest (executor API, stage
-- fenced). The manifest's per-prefix counts and chained digests must equal
-- what the stored key chunks hash to, recomputed here chunk by chunk (memory
-- bounded by one chunk, docs/manifest-format.md): chunk numbers contiguous
-- from 0, chunks grouped by prefix in the manifest's order, every chunk but a
-- prefix's last holding exactly chunk_size entries, entries canonical, under
-- their prefix and strictly ascending across chunks (the taxonomy match was
-- done per chunk on insert; chunks cannot change afterwards). Holds the
-- request row lock for the duration (~4 s per million entries, see
-- scripts/bench-freeze.sh), so appends and stamps cannot interleave.
-- Idempotent for the identical manifest; a different one is DL6K1; once
-- frozen the manifest and its chunks are immutable (triggers). With the
-- manifest it records destructive_difference: per table and per prefix what
-- appeared or vanished between the approved inventory and now
-- (community_deletion._inventory_difference), frozen like the manifest.
-- Stores adopted, not approved: a request frozen without a store identity
-- (freeze_inventory's is optional: a DBA's psql) took the stores of its
-- first executor step (verify_store_identity). When those stores now hold
-- nothing under any owned prefix while the approved inventory listed object
-- versions, they are almost surely not the stores it was taken from (a
-- mistyped bucket): deleting nothing there and proving it empty would be a
-- false proof of deletion. Refused as store_mismatch (DL4S1, before any
-- effect: the executor blocks; abort and submit again with the right
-- stores).
create or replace function community_deletion.freeze_destructive_manifest(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint,
  manifest jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_manifest alias for $5;
  v_request community_deletion.requests;
  v_manifest jsonb;
  v_prefixes jsonb;
  v_prefix_count integer;
  v_chunk_size integer;
  v_i integer := 0;                 -- index into v_prefixes of the prefix being hashed
  v_chain text := '';               -- h_k of the current prefix
  v_count bigint := 0;              -- entries hashed for the current prefix
  v_last_entry jsonb;               -- last entry of the previous chunk of the current prefix
  v_prev_short boolean := false;    -- previous chunk of the current prefix held < chunk_size entries
  v_expected_no integer := 0;
  v_total bigint := 0;
  v_chunk record;
  v_facts record;
begin
  -- Lock before reading the chunks: appends and the chunk guard wait on it.
  perform 1 from community_deletion.requests r where r.id = p_request_id for no key update;
  if not found then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'fenced', p_fence_generation);

  -- Shape (DL1M1): version 1, chunk_size, exactly the target's owned prefixes
  -- in byte order, integer counts, hex digests. The canonical form is what is
  -- stored and compared, so 3 and 3.0 are the same manifest.
  v_manifest := community_deletion._canonical_storage_summary(v_request.community_id, p_manifest, 'destructive storage manifest');

  if v_request.destructive_storage_manifest is not null then
    if v_request.destructive_storage_manifest = v_manifest then
      return;  -- the identical manifest is already frozen (a retried call)
    end if;
    raise exception 'request % (community %): a different destructive manifest is already frozen',
      p_request_id, v_request.community_id
      using errcode = 'DL6K1',
            hint = 'The frozen manifest is immutable; a drifted enumeration after the freeze is a safety failure to investigate.';
  end if;

  -- An admitted serving write still running could add an object the
  -- enumeration never saw.
  if cardinality(community_deletion._serving_writes_in_flight(v_request.community_id)) > 0 then
    raise exception 'request % (community %): serving-write leases are not released (live, or expired within settings.serving_lease_grace); the manifest cannot be frozen yet',
      p_request_id, v_request.community_id
      using errcode = 'DL5D1',
            hint = 'Wait for the admitted serving writes to finish or expire, then enumerate again.';
  end if;

  v_prefixes := v_manifest -> 'prefixes';
  v_prefix_count := jsonb_array_length(v_prefixes);
  v_chunk_size := (v_manifest ->> 'chunk_size')::integer;

  for v_chunk in
    select k.chunk_no, k.prefix, k.entries
    from community_deletion.manifest_keys k
    where k.request_id = p_request_id
    order by k.chunk_no
  loop
    if v_chunk.chunk_no <> v_expected_no then
      raise exception 'request % (community %): key chunk % is missing (found chunk % next)',
        p_request_id, v_request.community_id, v_expected_no, v_chunk.chunk_no
        using errcode = 'DL6K1';
    end if;

    -- Close every prefix before this chunk's one.
    while v_i < v_prefix_count and (v_prefixes -> v_i ->> 'prefix') <> v_chunk.prefix loop
      perform community_deletion._check_prefix_digest(p_request_id, v_request.community_id, v_prefixes -> v_i, v_count, v_chain);
      v_i := v_i + 1;
      v_chain := '';
      v_count := 0;
      v_last_entry := null;
      v_prev_short := false;
    end loop;
    if v_i >= v_prefix_count then
      raise exception 'request % (community %): key chunk % has prefix %, which is not in the manifest (or is out of prefix order)',
        p_request_id, v_request.community_id, v_chunk.chunk_no, v_chunk.prefix
        using errcode = 'DL6K1';
    end if;
    if v_prev_short then
      raise exception 'request % (community %): a chunk before key chunk % holds fewer than % entries but is not the last of prefix %',
        p_request_id, v_request.community_id, v_chunk.chunk_no, v_chunk_size, v_chunk.prefix
        using errcode = 'DL6K1';
    end if;

    -- No taxonomy pattern (null): the guard trigger matched every key on insert.
    v_facts := community_deletion._key_chunk_facts(v_chunk.entries, v_chunk.prefix, null);
    if v_facts.entry_count = 0 or v_facts.entry_count > v_chunk_size then
      raise exception 'request % (community %): key chunk % holds % entries (must be 1..%)',
        p_request_id, v_request.community_id, v_chunk.chunk_no, v_facts.entry_count, v_chunk_size
        using errcode = 'DL6K1';
    end if;
    if v_facts.bad_shape_at is not null or v_facts.outside_prefix_at is not null or v_facts.out_of_order_at is not null
       or (v_last_entry is not null and not community_deletion._manifest_entry_follows(v_last_entry, v_facts.first_entry)) then
      raise exception 'request % (community %): key chunk % has a malformed, foreign or out-of-order entry (malformed at %, outside the prefix at %, out of order at %)',
        p_request_id, v_request.community_id, v_chunk.chunk_no, v_facts.bad_shape_at, v_facts.outside_prefix_at,
        coalesce(v_facts.out_of_order_at, case when v_last_entry is not null then 1 end)
        using errcode = 'DL6K1';
    end if;

    v_chain := encode(sha256(convert_to(v_chain || v_facts.chunk_text, 'UTF8')), 'hex');
    v_count := v_count + v_facts.entry_count;
    v_total := v_total + v_facts.entry_count;
    v_last_entry := v_facts.last_entry;
    v_prev_short := v_facts.entry_count < v_chunk_size;
    v_expected_no := v_expected_no + 1;
  end loop;

  -- Close the current prefix and every prefix after it.
  while v_i < v_prefix_count loop
    perform community_deletion._check_prefix_digest(p_request_id, v_request.community_id, v_prefixes -> v_i, v_count, v_chain);
    v_i := v_i + 1;
    v_chain := '';
    v_count := 0;
  end loop;

  if v_total = 0
     -- adopted: recorded by an executor step (its checkpoint), not at freeze
     and exists (select 1 from community_deletion.checkpoints c
                  where c.request_id = p_request_id and c.unit_key = 'store_identity_recorded')
     and exists (select 1 from pg_catalog.jsonb_array_elements(v_request.storage_manifest -> 'prefixes') p
                  where (p ->> 'object_count')::bigint > 0) then
    raise exception 'request % (community %): the stores the first executor step presented (%) hold nothing under the owned prefixes, but the approved inventory listed % object versions there; they are not the stores the inventory was taken from',
      p_request_id, v_request.community_id, community_deletion._describe_store_identity(v_request.store_identity),
      (select sum((p ->> 'object_count')::bigint) from pg_catalog.jsonb_array_elements(v_request.storage_manifest -> 'prefixes') p)
      using errcode = 'DL4S1',
            hint = 'The request was frozen without store_identity, so it adopted the first executor''s stores. Nothing was deleted: abort it and submit again with the right stores (deletions submit records them).';
  end if;

  update community_deletion.requests r
     set destructive_storage_manifest = v_manifest,
         destructive_storage_frozen_at = now(),
         destructive_difference = community_deletion._inventory_difference(
           v_request.community_id, v_request.inventory_manifest, v_manifest),
         updated_at = now()
   where r.id = p_request_id
     and r.stage = 'fenced'
     and r.lease_owner = p_owner
     and r.lease_generation = p_generation
     and r.fence_generation = p_fence_generation
     and r.destructive_storage_manifest is null;
  if not found then
    raise exception 'request %: lease (owner %, generation %) lost before the destructive manifest froze',
      p_request_id, p_owner, p_generation
      using errcode = 'DL4L1';
  end if;

  perform community_deletion._checkpoint(p_request_id, 'fenced', 'freeze_destructive_manifest', 'completed', p_generation,
    jsonb_build_object('chunks', v_expected_no, 'entries', v_total, 'chunk_size', v_chunk_size,
                       'fence_generation', p_fence_generation));
end;
$$;
