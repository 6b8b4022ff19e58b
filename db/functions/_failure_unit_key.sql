-- The unit a failure of unit p_unit_key at stage p_stage is recorded on
-- (record_failure, block — the executor names the unit): p_unit_key, or
-- 'failure:' || p_unit_key when that unit's checkpoint is completed — a
-- completed checkpoint is evidence (a purge table's total, a frozen
-- manifest) and a failure never overwrites it.
create or replace function community_deletion._failure_unit_key(p_request_id uuid, p_stage text, p_unit_key text)
  returns text
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select case when exists (select 1 from community_deletion.checkpoints c
                            where c.request_id = p_request_id and c.stage = p_stage and c.unit_key = p_unit_key
                              and c.status = 'completed')
              then 'failure:' || p_unit_key else p_unit_key end
$$;
