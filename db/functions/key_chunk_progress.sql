-- Progress of a request's frozen key chunks, for progress bars and inspect:
-- chunks (total, deleted) and the object versions they hold (entries_total,
-- entries_deleted: what an operator counts). All 0 once the chunks were
-- dropped at logically_verified.
create or replace function community_deletion.key_chunk_progress(request_id uuid)
  returns table (total integer, deleted integer, entries_total bigint, entries_deleted bigint)
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
begin
  if not exists (select 1 from community_deletion.requests r where r.id = p_request_id) then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  return query
    select count(*)::integer, count(k.deleted_at)::integer,
           coalesce(sum(k.entry_count), 0)::bigint,
           coalesce(sum(k.entry_count) filter (where k.deleted_at is not null), 0)::bigint
    from community_deletion.manifest_keys k
    where k.request_id = p_request_id;
end;
$$;
