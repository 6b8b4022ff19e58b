-- One pass over a key chunk's entries: the facts the chunk guard (on insert)
-- and the freeze check — shape, prefix, taxonomy, strict (key, version_id)
-- byte order — and the chunk's canonical text for the chained digest. Memory
-- is bounded by one chunk. Positions are 1-based; null means "no such entry".
-- A null p_key_pattern skips the taxonomy match (the freeze's case).
create or replace function community_deletion._key_chunk_facts(
  p_entries jsonb,
  p_prefix text,
  p_key_pattern text,
  out entry_count integer,
  out bad_shape_at integer,
  out outside_prefix_at integer,
  out outside_taxonomy_at integer,
  out out_of_order_at integer,
  out first_entry jsonb,
  out last_entry jsonb,
  out chunk_text text)
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  with e as (
    select t.ord::integer as ord,
           t.x,
           community_deletion._manifest_entry_is_valid(t.x) as shape_ok,
           t.x ->> 'key' as k,
           t.x ->> 'version_id' as v
    from pg_catalog.jsonb_array_elements(p_entries) with ordinality as t (x, ord)
  ), o as (
    select e.*,
           lag(e.k) over w as prev_k,
           lag(e.v) over w as prev_v
    from e
    window w as (order by e.ord)
  )
  select count(*)::integer,
         min(o.ord) filter (where not o.shape_ok),
         min(o.ord) filter (where o.shape_ok and not starts_with(o.k, p_prefix)),
         min(o.ord) filter (where o.shape_ok and o.k !~ p_key_pattern),
         min(o.ord) filter (where o.prev_k is not null
                              and not (o.k collate "C" > o.prev_k collate "C"
                                       or (o.k = o.prev_k and o.v collate "C" > o.prev_v collate "C"))),
         p_entries -> 0,
         p_entries -> -1,
         string_agg(community_deletion._manifest_entry_line(o.x), '' order by o.ord)
  from o
$$;
