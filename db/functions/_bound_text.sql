-- p cut to at most p_max bytes of UTF-8 (stored errors, reasons and notes are
-- bounded in bytes, not characters: a multibyte text of p_max characters is
-- several times larger), cut on a character boundary — never half a
-- character. Null stays null.
create or replace function community_deletion._bound_text(p text, p_max integer)
  returns text
  language plpgsql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_keep integer;
  v_high integer;
  v_mid integer;
begin
  if p is null or pg_catalog.octet_length(p) <= p_max then
    return p;
  end if;
  -- The longest prefix (in characters) that fits: binary search, since a
  -- character is 1 to 4 bytes.
  v_keep := 0;
  v_high := least(pg_catalog.length(p), greatest(p_max, 0));
  while v_keep < v_high loop
    v_mid := (v_keep + v_high + 1) / 2;
    if pg_catalog.octet_length(pg_catalog.left(p, v_mid)) <= p_max then
      v_keep := v_mid;
    else
      v_high := v_mid - 1;
    end if;
  end loop;
  return pg_catalog.left(p, v_keep);
end;
$$;
