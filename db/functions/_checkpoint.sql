-- Records one unit checkpoint (request, stage, unit_key): the first call
-- inserts it, later calls count another attempt and overwrite its status,
-- lease generation, detail and error. completed_at is set exactly while the
-- status is completed. Checkpoints are upsert-only evidence; they are never deleted.
create or replace function community_deletion._checkpoint(
  p_request_id uuid, p_stage text, p_unit_key text, p_status text, p_lease_generation bigint,
  p_detail jsonb default '{}'::jsonb, p_error text default null)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  insert into community_deletion.checkpoints as cp
    (request_id, stage, unit_key, status, lease_generation, detail, error, completed_at)
  values
    (p_request_id, p_stage, p_unit_key, p_status, p_lease_generation, coalesce(p_detail, '{}'::jsonb),
     community_deletion._bound_text(p_error, 4096),
     case when p_status = 'completed' then now() end)
  on conflict (request_id, stage, unit_key) do update
     set attempts = cp.attempts + 1,
         status = excluded.status,
         lease_generation = excluded.lease_generation,
         detail = excluded.detail,
         error = excluded.error,
         completed_at = excluded.completed_at;
end;
$$;
