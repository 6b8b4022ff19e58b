-- One host label in Unicode: an ACE label ("xn--" followed by Punycode,
-- RFC 3492, as IDNA writes a non-ASCII label for DNS) decoded, any other
-- label unchanged — also an "xn--" label that is not valid Punycode. So
-- "xn--bcher-kva" is "bücher", the name a browser shows for it
-- (_host_key: a tombstone's host is reserved in both spellings).
create or replace function community_deletion._punycode_label(p_label text)
  returns text
  language plpgsql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
declare
  c_base constant integer := 36;
  c_tmin constant integer := 1;
  c_tmax constant integer := 26;
  v_input text;
  v_out integer[] := '{}';
  v_len integer;
  v_pos integer := 1;
  v_delim integer;
  v_n bigint := 128;
  v_i bigint := 0;
  v_bias bigint := 72;
  v_oldi bigint;
  v_w bigint;
  v_k bigint;
  v_t bigint;
  v_digit integer;
  v_code integer;
  v_delta bigint;
  v_points integer;
begin
  if p_label is null or pg_catalog.lower(pg_catalog.left(p_label, 4)) <> 'xn--' then
    return p_label;
  end if;
  v_input := pg_catalog.lower(pg_catalog.substr(p_label, 5));
  if v_input = '' or v_input ~ '[^a-z0-9-]' then
    return p_label;
  end if;
  v_len := pg_catalog.length(v_input);
  -- The basic code points are everything before the last delimiter.
  v_delim := v_len + 1 - coalesce(pg_catalog.strpos(pg_catalog.reverse(v_input), '-'), 0);
  if v_delim <= v_len then
    v_out := (select coalesce(pg_catalog.array_agg(pg_catalog.ascii(ch) order by o), '{}')
                from pg_catalog.regexp_split_to_table(pg_catalog.substr(v_input, 1, v_delim - 1), '') with ordinality as x(ch, o));
    v_pos := v_delim + 1;
  end if;
  while v_pos <= v_len loop
    v_oldi := v_i;
    v_w := 1;
    v_k := c_base;
    loop
      if v_pos > v_len then
        return p_label;
      end if;
      v_code := pg_catalog.ascii(pg_catalog.substr(v_input, v_pos, 1));
      v_pos := v_pos + 1;
      v_digit := case when v_code between 48 and 57 then v_code - 22      -- '0'..'9' → 26..35
                      when v_code between 97 and 122 then v_code - 97     -- 'a'..'z' → 0..25
                      else c_base end;
      if v_digit >= c_base then
        return p_label;
      end if;
      v_i := v_i + v_digit * v_w;
      v_t := case when v_k <= v_bias then c_tmin when v_k >= v_bias + c_tmax then c_tmax else v_k - v_bias end;
      exit when v_digit < v_t;
      v_w := v_w * (c_base - v_t);
      v_k := v_k + c_base;
      if v_i > 1114111 * 64 or v_w > 1114111 * 64 then
        return p_label;
      end if;
    end loop;
    -- Bias adaptation (RFC 3492, 6.1).
    v_points := pg_catalog.cardinality(v_out) + 1;
    v_delta := case when v_oldi = 0 then (v_i - v_oldi) / 700 else (v_i - v_oldi) / 2 end;
    v_delta := v_delta + v_delta / v_points;
    v_k := 0;
    while v_delta > ((c_base - c_tmin) * c_tmax) / 2 loop
      v_delta := v_delta / (c_base - c_tmin);
      v_k := v_k + c_base;
    end loop;
    v_bias := v_k + ((c_base - c_tmin + 1) * v_delta) / (v_delta + 38);
    v_n := v_n + v_i / v_points;
    v_i := v_i % v_points;
    if v_n > 1114111 or v_n between 55296 and 57343 then
      return p_label;
    end if;
    v_out := v_out[1:v_i] || v_n::integer || v_out[v_i + 1:];
    v_i := v_i + 1;
  end loop;
  return (select pg_catalog.string_agg(pg_catalog.chr(cp), '' order by o)
            from pg_catalog.unnest(v_out) with ordinality as x(cp, o));
end;
$$;
