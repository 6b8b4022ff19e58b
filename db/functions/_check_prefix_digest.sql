-- Compares what one prefix's chunks hashed to (entry count, chain value
-- h_last) with the manifest's summary of that prefix; a prefix without
-- entries must carry the SHA-256 of the empty string. Raises DL6K1.
create or replace function community_deletion._check_prefix_digest(
  p_request_id uuid,
  p_community uuid,
  p_summary jsonb,
  p_count bigint,
  p_chain text)
  returns void
  language plpgsql
  immutable
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_digest text := case when p_count = 0 then encode(sha256(''::bytea), 'hex') else p_chain end;
begin
  if p_count <> (p_summary ->> 'object_count')::bigint or v_digest <> (p_summary ->> 'keys_digest') then
    raise exception 'request % (community %): the key chunks of prefix % hash to % entries / % but the manifest says % / %',
      p_request_id, p_community, p_summary ->> 'prefix', p_count, v_digest,
      p_summary ->> 'object_count', p_summary ->> 'keys_digest'
      using errcode = 'DL6K1',
            hint = 'The chunks must be exactly the enumeration the manifest summarises; clear them and enumerate again.';
  end if;
end;
$$;
