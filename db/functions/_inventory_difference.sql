-- What changed between the approved inventory (p_inventory: {"schema", "storage"})
-- and the community as the destructive step found it after the fence: the
-- rows of every registered scoped table counted now and the post-fence
-- storage manifest p_destructive. Recorded by
-- community_deletion.freeze_destructive_manifest on the request
-- (destructive_difference) and shown by `deletions inspect`.
-- {"changed": bool,
--  "tables":   [{"table", "approved_rows", "fenced_rows", "appeared", "vanished"}],
--  "prefixes": [{"prefix", "approved_versions", "fenced_versions", "appeared", "vanished", "content_changed"}]}
-- appeared / vanished are net counts (the approved inventory keeps counts and
-- digests, not every key): appeared = max(fenced - approved, 0), vanished =
-- max(approved - fenced, 0). content_changed compares the prefix digests
-- (the same count can hide a replaced version); null when the two
-- enumerations used different chunk sizes (their digests are not comparable).
-- A table absent on one side counts 0 there; a table that no longer exists
-- has fenced_rows null (the purge's catalog check will refuse it).
-- The tables are locked and checked first as _schema_manifest's are
-- (_refuse_planner_code, DL7C1).
create or replace function community_deletion._inventory_difference(p_community uuid, p_inventory jsonb, p_destructive jsonb)
  returns jsonb
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_approved_counts jsonb := coalesce(p_inventory -> 'schema' -> 'row_counts', '{}'::jsonb);
  v_now jsonb := '{}'::jsonb;
  v_table record;
  v_count bigint;
  v_tables jsonb;
  v_prefixes jsonb;
  v_comparable boolean := (p_inventory -> 'storage' -> 'chunk_size') = (p_destructive -> 'chunk_size');
begin
  perform community_deletion._refuse_planner_code(
    (select pg_catalog.array_agg(community_deletion._registered_relation(r.schema_name, r.table_name))
       from community_deletion.registered_tables r where r.kind = 'scoped'),
    'share update exclusive');
  for v_table in
    select community_deletion._table_label(r.schema_name, r.table_name) as label,
           community_deletion._registered_relation(r.schema_name, r.table_name) as rel
      from community_deletion.registered_tables r
     where r.kind = 'scoped'
  loop
    v_count := null;
    if v_table.rel is not null then
      execute format('select count(*) from %s where community_id = $1', v_table.rel) into v_count using p_community;
    end if;
    v_now := v_now || jsonb_build_object(v_table.label, v_count);
  end loop;

  select coalesce(jsonb_agg(jsonb_build_object(
           'table', t.label,
           'approved_rows', t.approved,
           'fenced_rows', t.fenced,
           'appeared', greatest(coalesce(t.fenced, 0) - t.approved, 0),
           'vanished', greatest(t.approved - coalesce(t.fenced, 0), 0)) order by t.label collate "C"), '[]'::jsonb)
    into v_tables
    from (select l.label,
                 coalesce((v_approved_counts ->> l.label)::bigint, 0) as approved,
                 case when v_now ? l.label then (v_now ->> l.label)::bigint else 0 end as fenced
            from (select k as label from jsonb_object_keys(v_approved_counts) k
                  union
                  select k from jsonb_object_keys(v_now) k) l) t;

  select coalesce(jsonb_agg(jsonb_build_object(
           'prefix', p.prefix,
           'approved_versions', p.approved,
           'fenced_versions', p.fenced,
           'appeared', greatest(p.fenced - p.approved, 0),
           'vanished', greatest(p.approved - p.fenced, 0),
           'content_changed', case when v_comparable then p.approved_digest is distinct from p.fenced_digest end)
           order by p.prefix collate "C"), '[]'::jsonb)
    into v_prefixes
    from (select coalesce(a.e ->> 'prefix', d.e ->> 'prefix') as prefix,
                 coalesce((a.e ->> 'object_count')::bigint, 0) as approved,
                 coalesce((d.e ->> 'object_count')::bigint, 0) as fenced,
                 a.e ->> 'keys_digest' as approved_digest,
                 d.e ->> 'keys_digest' as fenced_digest
            from jsonb_array_elements(coalesce(p_inventory -> 'storage' -> 'prefixes', '[]'::jsonb)) a(e)
            full join jsonb_array_elements(coalesce(p_destructive -> 'prefixes', '[]'::jsonb)) d(e)
              on a.e ->> 'prefix' = d.e ->> 'prefix') p;

  return jsonb_build_object(
    'changed', exists (select 1 from jsonb_array_elements(v_tables) e
                        where (e ->> 'appeared')::bigint > 0 or (e ->> 'vanished')::bigint > 0
                           or jsonb_typeof(e -> 'fenced_rows') = 'null')
               or exists (select 1 from jsonb_array_elements(v_prefixes) e
                           where (e ->> 'appeared')::bigint > 0 or (e ->> 'vanished')::bigint > 0
                              or (e ->> 'content_changed')::boolean is true),
    'tables', v_tables,
    'prefixes', v_prefixes);
end;
$$;
