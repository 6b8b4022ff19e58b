-- What the PostgreSQL purge of a request has done so far, from its
-- checkpoints (written in the same transactions as the rows they count):
-- {"deleted": {scoped table: rows}, "provenance_cleared": {provenance table:
-- rows}, "purged_rows": sum of deleted, "inventoried_rows": sum of the frozen
-- inventory's row counts (what the approver saw), "pending": [units not yet
-- completed, in purge order]}. Tables of the current registry only.
create or replace function community_deletion._purge_totals(p_request_id uuid, p_stage text)
  returns jsonb
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  with units as (
    select t.kind, l.label,
           case t.kind when 'scoped' then 'purge:' else 'clear_provenance:' end || l.label as unit_key,
           case t.kind when 'scoped' then 2 else 1 end as phase, coalesce(t.purge_order, 0) as purge_order
      from community_deletion.registered_tables t
      cross join lateral (select community_deletion._table_label(t.schema_name, t.table_name) as label) l
     where t.kind in ('scoped', 'provenance')),
  done as (
    select u.*, coalesce((cp.detail ->> 'rows')::bigint, 0) as rows, coalesce(cp.status = 'completed', false) as completed
      from units u
      left join community_deletion.checkpoints cp
        on cp.request_id = p_request_id and cp.stage = p_stage and cp.unit_key = u.unit_key)
  select jsonb_build_object(
    'deleted', coalesce((select jsonb_object_agg(d.label, d.rows) from done d where d.kind = 'scoped'), '{}'::jsonb),
    'provenance_cleared', coalesce((select jsonb_object_agg(d.label, d.rows) from done d where d.kind = 'provenance'), '{}'::jsonb),
    'purged_rows', (select coalesce(sum(d.rows), 0) from done d where d.kind = 'scoped'),
    'inventoried_rows', (select coalesce(sum(c.value::bigint), 0)
                           from community_deletion.requests r
                           cross join lateral jsonb_each_text(coalesce(r.schema_manifest -> 'row_counts', '{}'::jsonb)) c
                          where r.id = p_request_id),
    'pending', coalesce((select jsonb_agg(d.unit_key order by d.phase, d.purge_order, d.label collate "C")
                           from done d where not d.completed), '[]'::jsonb))
$$;
