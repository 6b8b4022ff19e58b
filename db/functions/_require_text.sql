-- Validates a required operator-supplied text argument (identity, reason,
-- executor id, error): trimmed, non-blank, at most p_max bytes of UTF-8.
-- Returns the trimmed value; raises invalid_argument (DL1I1) naming the
-- argument and the limit otherwise (nothing is truncated silently).
create or replace function community_deletion._require_text(p_value text, p_name text, p_max integer)
  returns text
  language plpgsql
  immutable
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_value text := pg_catalog.btrim(p_value);
begin
  if v_value is null or v_value = '' then
    raise exception 'community deletion: % is required and must not be blank', p_name
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Pass a non-empty %s.', p_name);
  end if;
  if pg_catalog.octet_length(v_value) > p_max then
    raise exception 'community deletion: % is longer than % bytes (UTF-8)', p_name, p_max
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Shorten %s to at most %s bytes.', p_name, p_max);
  end if;
  return v_value;
end;
$$;
