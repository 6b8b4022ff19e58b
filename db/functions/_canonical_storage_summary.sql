-- Storage summaries (docs/manifest-format.md): the per-prefix object counts,
-- bytes and key-stream digests the driver reports for a community's three owned
-- prefixes. Used for the inventory (and reusable for the destructive manifest).
--
-- Validates a storage summary for p_community and returns its canonical form
-- (only the documented keys, integers as integers). Fails closed with
-- invalid_manifest (DL1M1) on: an unknown key, version other than 1, a
-- chunk_size outside 1..1,000,000, no prefixes, an empty prefix (it would list
-- the whole bucket), prefixes not strictly sorted or not exactly the
-- community's owned prefixes, counts/bytes that are not non-negative integers,
-- a digest that is not lowercase hex SHA-256, or an empty prefix whose bytes or
-- digest say otherwise.
create or replace function community_deletion._canonical_storage_summary(
  p_community uuid, p_summary jsonb, p_what text default 'storage summary')
  returns jsonb
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
as $$
declare
  c_empty_digest constant text := 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
  c_max_bigint constant numeric := 9223372036854775807;
  v_owned text[] := community_deletion._owned_prefixes(p_community);
  v_key text;
  v_entry jsonb;
  v_prefix text;
  v_previous text;
  v_seen text[] := '{}';
  v_number numeric;
  v_object_count bigint;
  v_total_bytes bigint;
  v_digest text;
  v_field text;
  v_prefixes jsonb := '[]'::jsonb;
  v_problem text;
begin
  <<checks>>
  begin
    if p_summary is null or jsonb_typeof(p_summary) <> 'object' then
      v_problem := 'it is not a JSON object';
      exit checks;
    end if;
    select k into v_key from jsonb_object_keys(p_summary) k
     where k not in ('version', 'chunk_size', 'prefixes') order by k limit 1;
    if v_key is not null then
      v_problem := format('unknown key "%s"', v_key);
      exit checks;
    end if;
    if p_summary->'version' is null or p_summary->'version' <> '1'::jsonb then
      v_problem := format('unsupported version %s (supported: 1)', coalesce(p_summary->>'version', 'missing'));
      exit checks;
    end if;
    if jsonb_typeof(p_summary->'chunk_size') is distinct from 'number' then
      v_problem := format('chunk_size %s is not a number', coalesce(p_summary->>'chunk_size', 'missing'));
      exit checks;
    end if;
    v_number := (p_summary->>'chunk_size')::numeric;
    if v_number <> trunc(v_number) or v_number not between 1 and 1000000 then
      v_problem := format('chunk_size %s is not an integer in 1..1000000', v_number);
      exit checks;
    end if;
    if jsonb_typeof(p_summary->'prefixes') is distinct from 'array' or jsonb_array_length(p_summary->'prefixes') = 0 then
      v_problem := 'it lists no prefixes';
      exit checks;
    end if;
    for v_entry in select e from jsonb_array_elements(p_summary->'prefixes') e loop
      if jsonb_typeof(v_entry) <> 'object' then
        v_problem := 'a prefix entry is not an object';
        exit checks;
      end if;
      select k into v_key from jsonb_object_keys(v_entry) k
       where k not in ('prefix', 'object_count', 'total_bytes', 'keys_digest') order by k limit 1;
      if v_key is not null then
        v_problem := format('unknown prefix key "%s"', v_key);
        exit checks;
      end if;
      if jsonb_typeof(v_entry->'prefix') is distinct from 'string' or v_entry->>'prefix' = '' then
        v_problem := 'it contains an empty or missing prefix';
        exit checks;
      end if;
      v_prefix := v_entry->>'prefix';
      if v_previous is not null and not (v_previous < v_prefix collate "C") then
        v_problem := format('prefixes are not strictly sorted (%s then %s)', v_previous, v_prefix);
        exit checks;
      end if;
      v_previous := v_prefix;
      if v_prefix <> all (v_owned) then
        v_problem := format('prefix %s is not owned by community %s', v_prefix, p_community);
        exit checks;
      end if;
      foreach v_field in array array['object_count', 'total_bytes'] loop
        if jsonb_typeof(v_entry->v_field) is distinct from 'number' then
          v_problem := format('%s of %s is not a number', v_field, v_prefix);
          exit checks;
        end if;
        v_number := (v_entry->>v_field)::numeric;
        if v_number <> trunc(v_number) or v_number < 0 or v_number > c_max_bigint then
          v_problem := format('%s of %s is not a non-negative integer', v_field, v_prefix);
          exit checks;
        end if;
      end loop;
      v_object_count := (v_entry->>'object_count')::numeric::bigint;
      v_total_bytes := (v_entry->>'total_bytes')::numeric::bigint;
      v_digest := v_entry->>'keys_digest';
      if jsonb_typeof(v_entry->'keys_digest') is distinct from 'string' or v_digest !~ '^[0-9a-f]{64}$' then
        v_problem := format('keys_digest of %s is not lowercase hex SHA-256', v_prefix);
        exit checks;
      end if;
      if v_object_count = 0 and (v_total_bytes <> 0 or v_digest <> c_empty_digest) then
        v_problem := format('prefix %s has no objects but non-zero bytes or a non-empty digest', v_prefix);
        exit checks;
      end if;
      v_seen := v_seen || v_prefix;
      v_prefixes := v_prefixes || jsonb_build_array(jsonb_build_object(
        'prefix', v_prefix, 'object_count', v_object_count, 'total_bytes', v_total_bytes, 'keys_digest', v_digest));
    end loop;
    if v_seen <> v_owned then
      v_problem := format('prefixes [%s] are not exactly the owned prefixes [%s]',
                          array_to_string(v_seen, ', '), array_to_string(v_owned, ', '));
      exit checks;
    end if;
  end checks;
  if v_problem is not null then
    raise exception 'community deletion: % for community % is invalid: %', p_what, p_community, v_problem
      using errcode = 'DL1M1',
            hint = 'See docs/manifest-format.md: version 1, chunk_size, the three owned prefixes strictly sorted, integer counts, lowercase hex digests.';
  end if;
  return jsonb_build_object(
    'version', 1,
    'chunk_size', (p_summary->>'chunk_size')::numeric::integer,
    'prefixes', v_prefixes);
end;
$$;
