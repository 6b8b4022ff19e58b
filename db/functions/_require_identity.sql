-- Validates an operator identity argument (requested_by, approved_by,
-- aborted_by, unblocked_by): _require_text (trimmed, non-blank, at most 512
-- characters), no control characters (C0, DEL, C1: an identity is shown in
-- terminals and logs, where an escape sequence would act), no bidirectional
-- controls (U+061C, U+200E/U+200F, U+202A–U+202E, U+2066–U+2069: they
-- reorder what a terminal shows, so "\u202eecila" would read as "alice"),
-- and not empty once whitespace and invisible characters are removed
-- (_identity_key). Returns the trimmed label; raises invalid_argument (DL1I1)
-- naming the argument.
create or replace function community_deletion._require_identity(p_value text, p_name text)
  returns text
  language plpgsql
  immutable
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_value text := community_deletion._require_text(p_value, p_name, 512);
begin
  if v_value ~ '[\u0001-\u001f\u007f-\u009f]' then
    raise exception 'community deletion: % contains control characters', p_name
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Pass %s as plain text (no escape sequences, tabs or line breaks).', p_name);
  end if;
  if v_value ~ '[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]' then
    raise exception 'community deletion: % contains bidirectional control characters', p_name
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Pass %s as plain text: bidirectional controls reorder what a terminal shows.', p_name);
  end if;
  if community_deletion._identity_key(v_value) = '' then
    raise exception 'community deletion: % is only whitespace or invisible characters', p_name
      using errcode = 'DL1I1';
  end if;
  return v_value;
end;
$$;
