-- Where a unit's keyset continuation resumes: the key (a JSON object, one
-- member per key column after the community column) that the session
-- recorded after the unit's last removal (community_deletion._purge_batch),
-- or NULL — nothing recorded, not a JSON object, or not naming every one of
-- p_columns[2:] — so the lookup starts from the beginning of the community.
-- A wrong position costs only time: rows it skips are found by the lookup
-- from the start that completes the unit.
create or replace function community_deletion._keyset_position(p_recorded text, p_columns text[])
  returns jsonb
  language plpgsql
  immutable
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_position jsonb;
begin
  if p_recorded is null or p_recorded = '' or p_columns is null then
    return null;
  end if;
  begin
    v_position := p_recorded::jsonb;
  exception when invalid_text_representation then
    return null;
  end;
  if jsonb_typeof(v_position) <> 'object' or not (v_position ?& p_columns[2:]) then
    return null;
  end if;
  return v_position;
end;
$$;
