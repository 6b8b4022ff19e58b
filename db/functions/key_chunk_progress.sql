-- (total, deleted) key chunks of a request, for progress bars and inspect.
-- Both are 0 once the chunks were dropped at logically_verified.
create or replace function community_deletion.key_chunk_progress(request_id uuid)
  returns table (total integer, deleted integer)
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
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
    select count(*)::integer, count(k.deleted_at)::integer
    from community_deletion.manifest_keys k
    where k.request_id = p_request_id;
end;
$$;
