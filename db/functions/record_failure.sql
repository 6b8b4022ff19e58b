-- Executor API: records a transient (retryable) failure of one unit at stage
-- and releases the lease. Consecutive failures at the same stage form a streak
-- (a stage advance or an unblock resets it). Retry n waits
--   min(retry_max_delay, retry_base_delay * 2^(n-1)) plus up to 10% jitter
-- (settings row); the max_consecutive_failures-th (default 8th) consecutive
-- failure blocks the request durably instead. Verifies the lease first
-- (stale_lease, DL4L1). Returns {"blocked", "retry_count", "next_attempt_at"}.
-- A unit already completed at that stage keeps its checkpoint (its totals
-- are evidence): the failure is recorded on unit 'failure:<unit_key>'.
create or replace function community_deletion.record_failure(
  request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text)
  returns jsonb
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_stage alias for $4;
  p_unit_key alias for $5;
  p_error alias for $6;
  v_unit_key text := community_deletion._require_text(p_unit_key, 'unit_key', 256);
  v_error text := community_deletion._bound_text(community_deletion._require_text(p_error, 'error', 1000000), 4096);
  v_settings community_deletion.settings;
  v_request community_deletion.requests;
  v_streak integer;
  v_exhausted boolean;
  v_delay_seconds double precision;
  v_next timestamptz;
begin
  perform community_deletion._verify_lease(p_request_id, p_owner, p_generation, p_stage);
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  select s.* into v_settings from community_deletion.settings s;

  v_streak := case when v_request.retry_stage = p_stage then v_request.retry_count + 1 else 1 end;
  v_exhausted := v_streak >= v_settings.max_consecutive_failures;
  v_delay_seconds := least(
    extract(epoch from v_settings.retry_max_delay),
    extract(epoch from v_settings.retry_base_delay) * power(2::double precision, least(v_streak - 1, 62)));
  v_delay_seconds := v_delay_seconds * (1 + 0.1 * random());
  v_next := case when v_exhausted then v_request.next_attempt_at
                 else now() + make_interval(secs => v_delay_seconds) end;

  -- A failure never overwrites a completed unit: it is recorded beside it.
  v_unit_key := community_deletion._failure_unit_key(p_request_id, p_stage, v_unit_key);
  perform community_deletion._checkpoint(
    p_request_id, p_stage, v_unit_key, 'failed', p_generation,
    jsonb_build_object('error', v_error, 'retry_count', v_streak, 'retryable', true, 'blocked', v_exhausted),
    v_error);

  update community_deletion.requests r
     set retry_count = v_streak,
         retry_stage = p_stage,
         last_error = v_error,
         last_error_at = now(),
         next_attempt_at = v_next,
         blocked_at = case when v_exhausted then now() else r.blocked_at end,
         blocked_reason = case when v_exhausted
                               then community_deletion._bound_text(
                                      format('%s consecutive failures at stage %s; last: %s', v_streak, p_stage, v_error), 4096)
                               else r.blocked_reason end,
         lease_owner = null,
         lease_until = null,
         updated_at = now()
   where r.id = p_request_id and r.lease_owner = p_owner and r.lease_generation = p_generation;
  if not found then
    raise exception 'stale deletion lease for request % (owner %, generation %): cannot record failure',
      p_request_id, p_owner, p_generation
      using errcode = 'DL4L1';
  end if;
  return jsonb_build_object('blocked', v_exhausted, 'retry_count', v_streak, 'next_attempt_at', v_next);
end;
$$;
