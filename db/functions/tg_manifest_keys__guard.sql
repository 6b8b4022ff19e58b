-- Guard of the frozen destructive key list (docs/design.md#control-plane). Chunks are appended
-- only while the request is fenced and its destructive manifest is not yet
-- frozen, each validated on the way in (community_deletion._check_key_chunk); the only
-- change ever allowed to a chunk is stamping deleted_at once (at drained,
-- after the freeze); rows are deleted only to clear an unfrozen attempt
-- (fenced) or at terminal cleanup (logically_verified onwards, or an aborted
-- request). The request row is share-locked so every decision is
-- serialised with community_deletion.freeze_destructive_manifest, which locks it for
-- update before reading the chunks.
create or replace function community_deletion.tg_manifest_keys__guard()
  returns trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_row community_deletion.manifest_keys := case when tg_op = 'DELETE' then old else new end;
  v_stage text;
  v_frozen boolean;
  v_community uuid;
begin
  select r.stage, r.destructive_storage_manifest is not null, r.community_id
    into v_stage, v_frozen, v_community
  from community_deletion.requests r
  where r.id = v_row.request_id
  for share;
  if not found then
    -- Let the foreign key report the missing request.
    return v_row;
  end if;

  if tg_op = 'INSERT' then
    if v_frozen then
      raise exception 'key chunk % of request % refused: the destructive manifest is already frozen',
        new.chunk_no, new.request_id
        using errcode = 'DL6F1';
    end if;
    if v_stage <> 'fenced' then
      raise exception 'key chunk % of request % refused: chunks are appended only at stage fenced (request is %)',
        new.chunk_no, new.request_id, v_stage
        using errcode = 'DL2S1';
    end if;
    perform community_deletion._check_key_chunk(new, v_community);
    return new;
  end if;

  if tg_op = 'UPDATE' then
    if old.deleted_at is null and new.deleted_at is not null
       and (new.request_id, new.chunk_no, new.prefix, new.entries, new.entry_count, new.created_at)
           is not distinct from (old.request_id, old.chunk_no, old.prefix, old.entries, old.entry_count, old.created_at)
       and v_frozen and v_stage = 'drained' then
      return new;
    end if;
    raise exception 'key chunk % of request % is immutable: only a single deleted_at stamp at stage drained after the freeze is allowed',
      old.chunk_no, old.request_id
      using errcode = 'DL6F1';
  end if;

  -- DELETE
  if (v_stage = 'fenced' and not v_frozen)
     or v_stage in ('logically_verified', 'retention_pending', 'aborted') then
    return old;
  end if;
  raise exception 'key chunk % of request % cannot be deleted at stage % (destructive manifest frozen: %)',
    old.chunk_no, old.request_id, v_stage, v_frozen
    using errcode = 'DL6F1',
          hint = 'Frozen key chunks are dropped only by community_deletion.mark_logically_verified.';
end;
$$;
