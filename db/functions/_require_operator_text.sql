-- Validates an operator's free text (reason, note): trimmed; at most 4096
-- bytes of UTF-8 — a longer text is refused with the limit named, never cut;
-- no control characters but tab and line breaks (an escape sequence stored
-- here would act on the terminal of whoever lists it later). p_required:
-- blank is refused (DL1I1); otherwise blank means null. Returns the trimmed
-- text.
create or replace function community_deletion._require_operator_text(p_value text, p_name text, p_required boolean)
  returns text
  language plpgsql
  immutable
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_value text := nullif(pg_catalog.btrim(p_value), '');
begin
  if v_value is null then
    if p_required then
      perform community_deletion._require_text(v_value, p_name, 4096);
    end if;
    return null;
  end if;
  v_value := community_deletion._require_text(v_value, p_name, 4096);
  if v_value ~ '[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]' then
    raise exception 'community deletion: % contains control characters', p_name
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Pass %s as plain text (tabs and line breaks are allowed, escape sequences are not).', p_name);
  end if;
  return v_value;
end;
$$;
