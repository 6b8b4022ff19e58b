-- The executor's stage functions take a p_detail (what the driver did:
-- counts, totals) that is merged into the stage's checkpoint; it must be a
-- JSON object or NULL (NULL means {}). Anything else is DL1I1, before any
-- change is made.
create or replace function community_deletion._require_detail_object(p_request_id uuid, p_detail jsonb)
  returns void
  language plpgsql
  immutable
  set search_path = pg_catalog, pg_temp
as $$
begin
  if p_detail is not null and pg_catalog.jsonb_typeof(p_detail) <> 'object' then
    raise exception 'request %: detail must be a JSON object, not %', p_request_id, pg_catalog.jsonb_typeof(p_detail)
      using errcode = 'DL1I1';
  end if;
end;
$$;
