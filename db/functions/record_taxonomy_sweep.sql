-- Records one fleet-wide storage taxonomy sweep (observational: it never
-- gates a deletion). Completion time is the database's clock; a start time
-- more than five minutes in the future is refused (invalid_argument, DL1I1).
create or replace function community_deletion.record_taxonomy_sweep(
  started_at timestamptz, listed_objects bigint, unknown_object_count bigint,
  unknown_key_sample jsonb, object_cap bigint, truncated boolean)
  returns community_deletion.taxonomy_sweeps
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_started_at alias for $1;
  p_listed_objects alias for $2;
  p_unknown_object_count alias for $3;
  p_unknown_key_sample alias for $4;
  p_object_cap alias for $5;
  p_truncated alias for $6;
  v_now timestamptz := clock_timestamp();
  v_row community_deletion.taxonomy_sweeps;
begin
  if p_started_at is null or not pg_catalog.isfinite(p_started_at) or p_started_at > v_now + interval '5 minutes' then
    raise exception 'taxonomy sweep start % is missing or in the future', p_started_at
      using errcode = 'DL1I1', hint = 'Check the sweeper host''s clock.';
  end if;
  if p_unknown_key_sample is null or jsonb_typeof(p_unknown_key_sample) <> 'array'
     or jsonb_array_length(p_unknown_key_sample) > 100 then
    raise exception 'taxonomy sweep sample must be a JSON array of at most 100 keys'
      using errcode = 'DL1I1';
  end if;
  insert into community_deletion.taxonomy_sweeps
    (started_at, completed_at, listed_objects, unknown_object_count, unknown_key_sample, object_cap, truncated)
  values (least(p_started_at, v_now), v_now, p_listed_objects, p_unknown_object_count, p_unknown_key_sample,
          p_object_cap, coalesce(p_truncated, false))
  returning * into v_row;
  return v_row;
exception when check_violation or not_null_violation then
  raise exception 'taxonomy sweep counts are inconsistent (listed %, unknown %, cap %)',
    p_listed_objects, p_unknown_object_count, p_object_cap using errcode = 'DL1I1';
end;
$$;
