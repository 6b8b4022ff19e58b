--! Previous: sha1:f79f3678654c83e62c807b6b461d6e42bb7e9153
--! Hash: sha1:94892c6439ab0a133ecc68936a5b76c1ccb6a288
--! Message: The serving-lease end and the failure unit each written once (no behaviour change): _serving_lease_end, _failure_unit_key

-- No behaviour change: the rules 000034 added, each written once.
--  * _serving_lease_end(lease_until, community): when a serving-write lease
--    ends at the latest (its lease_until, or the quiescing cap's deadline);
--    the fence, _serving_writes_in_flight and abort called the same
--    least(…, coalesce(…)) expression each;
--  * _failure_unit_key(request, stage, unit): the unit record_failure and
--    block record a failure on ('failure:<unit>' beside a completed one);
--    both carried the same check.
--! Included functions/_serving_lease_end.sql
-- When a serving-write lease of community p_community, running until
-- p_lease_until, ends at the latest: p_lease_until, or
-- _serving_lease_deadline (quiescing's start plus
-- settings.serving_lease_quiescing_cap) when that is earlier. What the
-- fence, the destructive steps (_serving_writes_in_flight, with the grace)
-- and abort count a lease live by.
create or replace function community_deletion._serving_lease_end(p_lease_until timestamptz, p_community uuid)
  returns timestamptz
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select least(p_lease_until, coalesce(community_deletion._serving_lease_deadline(p_community), p_lease_until))
$$;
--! EndIncluded functions/_serving_lease_end.sql
--! Included functions/_failure_unit_key.sql
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
--! EndIncluded functions/_failure_unit_key.sql
--! Included functions/_serving_writes_in_flight.sql
-- The operations of community p_community's serving-write leases that may
-- still have a write in flight: every lease not released whose lease_until is
-- less than settings.serving_lease_grace ago. A lease that expired is not
-- proof that its holder stopped: a writer that verified its lease and then
-- stalled (a GC pause, a slow upload) can complete an object upload after the
-- expiry — S3 has no fence. The grace keeps the fence, the destructive freeze
-- and mark_drained waiting for such writers too (model/README.md F2); a
-- holder that crashed without releasing delays the deletion by at most its
-- lease plus the grace. A lease ends at the latest at
-- _serving_lease_deadline (quiescing's start plus the cap), however long it
-- was acquired for. Sorted, duplicates removed; empty when none.
create or replace function community_deletion._serving_writes_in_flight(p_community uuid)
  returns text[]
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select coalesce(pg_catalog.array_agg(distinct l.operation order by l.operation), '{}')
    from community_deletion.serving_write_leases l
   where l.community_id = p_community
     and community_deletion._serving_lease_end(l.lease_until, p_community)
         + (select s.serving_lease_grace from community_deletion.settings s) >= now()
$$;
--! EndIncluded functions/_serving_writes_in_flight.sql
--! Included functions/fence.sql
-- approved stage, step 2 (docs/design.md#lifecycle, docs/design.md#write-fence): close the fence. Same lock discipline
-- as community_deletion.begin_quiescing (verify, community lock EXCLUSIVE, verify again,
-- catalog re-check under the shared schema/destruction lock: every scoped table
-- must carry the fence at the moment it closes, DL7C1 otherwise).
-- Requires the community to be quiescing (wrong_stage DL2S1: call
-- community_deletion.begin_quiescing first) and no live serving-write lease
-- (serving_not_drained DL5D1, retryable, message and DETAIL name the count and
-- operations). Then: fence generation + 1, community fenced, request fenced with
-- that generation, checkpoint approved/activate_fence. Returns the new fence
-- generation — the token every later stage presents.
create or replace function community_deletion.fence(request_id uuid, executor_id text, lease_generation bigint)
  returns bigint
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
  v_request community_deletion.requests;
  v_community public.communities;
  v_live bigint;
  v_operations text[];
  v_new_generation bigint;
begin
  perform community_deletion._require_read_committed('community_deletion.fence');
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_community_for_transition(v_request.community_id);
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  select c.* into v_community from public.communities c where c.id = v_request.community_id for update;
  if v_community.deletion_state is distinct from 'quiescing' then
    raise exception 'community % of request % is %, not quiescing: it cannot be fenced yet',
      v_request.community_id, p_request_id, coalesce(v_community.deletion_state, 'missing')
      using errcode = 'DL2S1',
            hint = 'Call community_deletion.begin_quiescing first.';
  end if;
  -- Unreleased serving leases, live or expired within the grace: a writer
  -- may still be finishing (_serving_writes_in_flight). A lease ends at the
  -- latest at _serving_lease_deadline (quiescing's start plus the cap).
  v_operations := community_deletion._serving_writes_in_flight(v_request.community_id);
  select count(*) into v_live
    from community_deletion.serving_write_leases l
   where l.community_id = v_request.community_id
     and community_deletion._serving_lease_end(l.lease_until, v_request.community_id)
         + (select s.serving_lease_grace from community_deletion.settings s) >= now();
  if v_live > 0 then
    raise exception 'community % of request % is not drained: % serving-write lease(s) not released (%)',
      v_request.community_id, p_request_id, v_live, pg_catalog.array_to_string(v_operations, ', ')
      using errcode = 'DL5D1',
            detail = pg_catalog.jsonb_build_object('community_id', v_request.community_id,
                                                   'live_leases', v_live, 'operations', v_operations)::text,
            hint = 'Retry after the admitted serving-write leases are released, or expired more than settings.serving_lease_grace ago.';
  end if;
  v_new_generation := v_community.deletion_fence_generation + 1;
  perform community_deletion._refuse_invoker_code('public.communities', 'update');
  update public.communities c
     set deletion_state = 'fenced',
         deletion_fence_generation = v_new_generation,
         archived_at = coalesce(c.archived_at, now())
   where c.id = v_request.community_id and c.deletion_state = 'quiescing'
     and c.deletion_fence_generation = v_community.deletion_fence_generation;
  if not found then
    raise exception 'community % of request % changed while fencing', v_request.community_id, p_request_id
      using errcode = 'DL4L1';
  end if;
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'approved', 'fenced', v_new_generation);
  perform community_deletion._checkpoint(p_request_id, 'approved', 'activate_fence', 'completed', p_generation,
    pg_catalog.jsonb_build_object('fence_generation', v_new_generation,
                                  'previous_fence_generation', v_community.deletion_fence_generation));
  return v_new_generation;
end;
$$;
--! EndIncluded functions/fence.sql
--! Included functions/abort.sql
-- Operator API: terminally aborts a request before any object is deleted
-- (docs/design.md#failure-handling), at the abortable stages (_stages):
--  * submitted or inventoried — a withdrawal: the community never left
--    active and nothing ran, so only the request is terminalised;
--  * approved or fenced — the community is given back.
-- Never from drained on, whatever the checkpoints say (wrong_stage, DL2S1);
-- terminal requests refuse (DL2T1); live serving-write leases refuse
-- (serving_not_drained, DL5D1, retryable) once the community may be
-- quiescing — live until their lease_until, or _serving_lease_deadline if
-- that is earlier. Under the exclusive community lock (taken FIRST, then row locks,
-- so a queued quiesce/fence re-verifies its lease after abort and fails):
-- from approved on it restores the community (active, pre-quiesce
-- archived_at, fence generation + 1) and removes the key chunks of an
-- enumeration that was never frozen; always it writes an
-- 'operator_abort:<uuid>' audit checkpoint and terminalises the request
-- (lease dropped, lease generation + 1, block and retry streak cleared). A
-- fresh request for the community may follow.
create or replace function community_deletion.abort(request_id uuid, aborted_by text, reason text)
  returns community_deletion.requests
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
  p_aborted_by alias for $2;
  p_reason alias for $3;
  v_aborted_by text := community_deletion._require_identity(p_aborted_by, 'aborted_by');
  v_reason text := community_deletion._require_operator_text(p_reason, 'reason', true);
  v_community uuid;
  v_request community_deletion.requests;
  v_old_generation bigint;
  v_new_generation bigint;
  v_live_leases bigint;
  v_operations text;
begin
  select r.community_id into v_community from community_deletion.requests r where r.id = p_request_id;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  perform community_deletion._lock_community_for_transition(v_community);

  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is already terminal (%)', p_request_id, v_request.stage
      using errcode = 'DL2T1';
  end if;
  if not community_deletion._stage_is_abortable(v_request.stage) then
    raise exception 'deletion request % is at stage %; abort is possible only up to fenced',
      p_request_id, v_request.stage
      using errcode = 'DL2S1',
            hint = 'Object deletion may already have begun; the request can only run to completion (deletions unblock ID after remediation).';
  end if;

  if v_request.stage in ('submitted', 'inventoried') then
    -- A withdrawal: nothing ran, the community never left active.
    perform community_deletion._checkpoint(
      v_request.id, v_request.stage, 'operator_abort:' || gen_random_uuid()::text, 'completed',
      v_request.lease_generation,
      jsonb_build_object('aborted_by', v_aborted_by, 'reason', v_reason, 'previous_stage', v_request.stage,
                         'withdrawn', true));
    update community_deletion.requests r
       set stage = 'aborted', aborted_by = v_aborted_by, abort_reason = v_reason, aborted_at = now(),
           completed_at = now(), blocked_at = null, blocked_reason = null, next_attempt_at = now(), updated_at = now()
     where r.id = p_request_id
    returning r.* into v_request;
    return v_request;
  end if;

  select count(*), string_agg(distinct l.operation, ', ' order by l.operation)
    into v_live_leases, v_operations
    from community_deletion.serving_write_leases l
   where l.community_id = v_request.community_id
     and community_deletion._serving_lease_end(l.lease_until, v_request.community_id) >= now();
  if v_live_leases > 0 then
    raise exception 'deletion request %: community % still has % live serving-write lease(s) (%)',
      p_request_id, v_request.community_id, v_live_leases, v_operations
      using errcode = 'DL5D1',
            hint = 'Retry the abort once the admitted serving writes have finished or their leases expired.';
  end if;

  select c.deletion_fence_generation into v_old_generation
    from public.communities c where c.id = v_request.community_id for update;
  v_new_generation := community_deletion._restore_community(
    v_request.community_id, v_request.pre_quiesce_archived_at, v_request.quiescing_started_at is not null);

  perform community_deletion._checkpoint(
    v_request.id, v_request.stage, 'operator_abort:' || gen_random_uuid()::text, 'completed',
    v_request.lease_generation,
    jsonb_build_object(
      'aborted_by', v_aborted_by,
      'reason', v_reason,
      'previous_stage', v_request.stage,
      'previous_lease_owner', v_request.lease_owner,
      'previous_block', v_request.blocked_reason,
      'old_fence_generation', v_old_generation,
      'new_fence_generation', v_new_generation));

  update community_deletion.requests r
     set stage = 'aborted',
         aborted_by = v_aborted_by,
         abort_reason = v_reason,
         aborted_at = now(),
         completed_at = now(),
         fence_generation = v_new_generation,
         lease_owner = null,
         lease_until = null,
         lease_generation = r.lease_generation + 1,
         blocked_at = null,
         blocked_reason = null,
         retry_count = 0,
         retry_stage = null,
         next_attempt_at = now(),
         updated_at = now()
   where r.id = p_request_id
  returning r.* into v_request;
  -- Chunks of a post-fence enumeration that was never frozen describe
  -- nothing anyone will act on (the guard admits deleting them now that the
  -- request is aborted). Frozen ones stay as evidence of what was planned.
  if v_request.destructive_storage_manifest is null then
    delete from community_deletion.manifest_keys k where k.request_id = p_request_id;
  end if;
  return v_request;
end;
$$;
--! EndIncluded functions/abort.sql
--! Included functions/record_failure.sql
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
--! EndIncluded functions/record_failure.sql
--! Included functions/block.sql
-- Executor API: records a permanent (safety) failure of one unit at stage:
-- a failed checkpoint, a durable block with the reason, the lease released.
-- Only an operator's community_deletion.unblock (after remediation) resumes it. Verifies
-- the lease first (stale_lease, DL4L1).
-- A unit already completed at that stage keeps its checkpoint (its totals
-- are evidence): the failure is recorded on unit 'failure:<unit_key>'.
create or replace function community_deletion.block(
  request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text)
  returns void
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
begin
  perform community_deletion._verify_lease(p_request_id, p_owner, p_generation, p_stage);
  -- A failure never overwrites a completed unit: it is recorded beside it.
  v_unit_key := community_deletion._failure_unit_key(p_request_id, p_stage, v_unit_key);
  perform community_deletion._checkpoint(
    p_request_id, p_stage, v_unit_key, 'failed', p_generation,
    jsonb_build_object('error', v_error, 'retryable', false), v_error);
  update community_deletion.requests r
     set blocked_at = now(), blocked_reason = v_error, last_error = v_error, last_error_at = now(),
         lease_owner = null, lease_until = null, updated_at = now()
   where r.id = p_request_id and r.lease_owner = p_owner and r.lease_generation = p_generation;
  if not found then
    raise exception 'stale deletion lease for request % (owner %, generation %): cannot block',
      p_request_id, p_owner, p_generation
      using errcode = 'DL4L1';
  end if;
end;
$$;
--! EndIncluded functions/block.sql
--! Included functions/schema_version.sql
-- The engine schema's version: the number of the last migration that changed
-- engine objects. A driver built for another version refuses to run against
-- this database (src/engine.ts, SCHEMA_VERSION); `deletions migrate` and
-- `deletions inspect` report it. Every migration that changes engine objects
-- replaces this function with its own number.
create or replace function community_deletion.schema_version()
  returns integer
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select 35
$$;
--! EndIncluded functions/schema_version.sql
--! Included engine/grants.sql
-- Ownership and privileges of the engine (least privilege). Data-driven and
-- re-runnable: every function in schema community_deletion is owned by
-- community_deletion_owner, loses EXECUTE for PUBLIC and the engine roles,
-- and regains it only per the mapping below. A function missing from the
-- mapping is executable by its owner only (fail closed);
-- db/tests/roles/every_engine_function_is_mapped.test.sql fails until it is
-- mapped. Included last by every migration that adds or replaces engine
-- functions.
--
-- Why the engine is unforgeable: the security-definer functions run as
-- community_deletion_owner (NOLOGIN, no members), and the write fence and the
-- communities lifecycle guard admit the engine by current_user alone. No client
-- can become that role (superusers excepted, as always).
--
-- "public" in the mapping: the write-fence trigger runs as whichever role
-- writes, so the few functions on its path (lock key, isolation check, the
-- write decision, the caller's own serving grant) are executable by everyone.
-- They only answer questions and take a shared lock any writer takes anyway.
-- For the same reason every role has USAGE on the schema (names only: tables
-- and functions carry their own privileges).
grant usage on schema community_deletion to public;

do $$
declare
  v_fn record;
  v_role text;
  v_map jsonb := pg_catalog.jsonb_build_object(
    'community_deletion_operator', pg_catalog.jsonb_build_array(
      'submit', 'freeze_inventory', 'approve', 'abort', 'unblock',
      'inspect', 'request_status', 'request_checkpoints', 'list_requests', 'queue_status',
      'storage_taxonomy_rules', 'key_chunk_progress', 'schema_version',
      'validate_catalog', 'validate_serving_catalog',
      'serving_lease_stats', 'reap_serving_leases',
      'record_taxonomy_sweep', 'write_fence_implementation', 'plan'),
    'community_deletion_executor', pg_catalog.jsonb_build_array(
      'claim', 'verify_token', 'verify_store_identity', 'lease_state', 'heartbeat', 'release',
      'executor_stopped',
      'record_failure', 'block', 'block_preclaim',
      'begin_quiescing', 'fence',
      'append_key_chunk', 'clear_key_chunks', 'freeze_destructive_manifest',
      'mark_drained', 'next_key_chunk', 'stamp_key_chunk', 'key_chunk_progress',
      'mark_bindings_removed', 'purge_postgres', 'purge_postgres_batch', 'finish_postgres_purge', 'mark_cache_purged',
      'verify_postgres_absence', 'mark_logically_verified', 'mark_retention_pending',
      'inspect', 'storage_taxonomy_rules', 'validate_catalog',
      'serving_lease_stats', 'reap_serving_leases', 'write_fence_implementation', 'schema_version'),
    'community_deletion_app', pg_catalog.jsonb_build_array(
      'acquire_serving_lease', 'renew_serving_lease', 'verify_serving_lease',
      'release_serving_lease', 'guard_serving_write', 'validate_serving_catalog',
      'write_fence_implementation', 'schema_version'),
    'public', pg_catalog.jsonb_build_array(
      'community_write_allowed', 'assert_community_write_allowed', '_require_read_committed',
      '_community_lock_key', '_serving_write_granted', '_schema_destruction_lock_key',
      -- the DDL guard: every role's DDL runs it (it only answers)
      '_guard_registered_tables', '_guard_registered_table_rewrite',
      -- the explicit DDL lock (no event trigger on a managed server): every
      -- migrating role calls it, as every role's DDL runs the event trigger
      'ddl_lock',
      -- what is installed: `deletions migrate` asks as the migrating role,
      -- which holds none of the engine roles (they only answer)
      'schema_version', 'write_fence_implementation', 'installation_report',
      -- constants: the stage list (the view community_deletion.stages calls them as its reader)
      '_stages', '_stage_order', '_next_stage', '_stage_is_runnable', '_stage_is_terminal',
      '_stage_is_abortable', '_stage_is_fenced',
      -- the host reservation of the communities guard, which runs as whichever
      -- role inserts or renames a community (pure functions of their argument)
      '_host_key', '_without_invisible', '_punycode_label'));
begin
  for v_fn in
    select p.oid::pg_catalog.regprocedure as sig, p.proname::text as name
      from pg_catalog.pg_proc p
     where p.pronamespace = 'community_deletion'::pg_catalog.regnamespace
     order by 1
  loop
    execute pg_catalog.format('alter function %s owner to community_deletion_owner', v_fn.sig);
    execute pg_catalog.format('revoke all on function %s from public, community_deletion_operator, '
                              'community_deletion_executor, community_deletion_app', v_fn.sig);
    for v_role in select k from pg_catalog.jsonb_object_keys(v_map) k where v_map -> k ? v_fn.name loop
      execute pg_catalog.format('grant execute on function %s to %s', v_fn.sig,
                                case when v_role = 'public' then 'public' else pg_catalog.quote_ident(v_role) end);
    end loop;
  end loop;

  -- The engine's own tables. The owner (the security-definer code) reads and
  -- writes every one, never TRUNCATE, never DDL; operators read them (psql
  -- inspection); every change goes through the functions; the executor and
  -- the application get no table privileges at all.
  revoke all on all tables in schema community_deletion from public, community_deletion_operator,
    community_deletion_executor, community_deletion_app, community_deletion_owner;
  revoke all on all sequences in schema community_deletion from public, community_deletion_operator,
    community_deletion_executor, community_deletion_app, community_deletion_owner;
  grant select, insert, update, delete on all tables in schema community_deletion to community_deletion_owner;
  grant usage, select on all sequences in schema community_deletion to community_deletion_owner;
  grant select on all tables in schema community_deletion to community_deletion_operator;

  -- The host's tables. Start from nothing for the engine roles, in public and
  -- in every schema holding a registered table.
  revoke all on all tables in schema public from community_deletion_operator, community_deletion_executor,
    community_deletion_app, community_deletion_owner;
  revoke all on all sequences in schema public from community_deletion_operator, community_deletion_executor,
    community_deletion_app, community_deletion_owner;
  -- The owner (the engine's security-definer code): communities (lifecycle
  -- columns, tombstone), every registered scoped table (counted, purged,
  -- proven absent) and provenance table (nulled, proven absent) — and nothing
  -- else of the host's.
  grant select, insert, update, delete on public.communities to community_deletion_owner;

  -- The application writer: communities except the engine-owned lifecycle
  -- columns (deletion_state, deletion_fence_generation, deleted_at) — column
  -- privileges refuse those outright (42501), and the lifecycle guard trigger
  -- refuses them for everyone else (DL8T1) — and its tenant data.
  grant select on public.communities to community_deletion_app;
  grant insert (id, host, name, signing_key, icon, settings, created_at, archived_at) on public.communities
    to community_deletion_app;
  grant update (host, name, signing_key, icon, settings, archived_at) on public.communities
    to community_deletion_app;
  for v_fn in
    select r.schema_name, r.kind, x.rel
      from community_deletion.registered_tables r
      cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
     where r.kind in ('scoped', 'provenance') and x.rel is not null
  loop
    execute pg_catalog.format('grant usage on schema %I to community_deletion_owner, community_deletion_app', v_fn.schema_name);
    execute pg_catalog.format('grant select, insert, update, delete on %s to community_deletion_app', v_fn.rel);
    execute pg_catalog.format('grant %s on %s to community_deletion_owner',
                              case v_fn.kind when 'scoped' then 'select, insert, update, delete' else 'select, update' end,
                              v_fn.rel);
  end loop;

  -- Operators read communities (psql inspection).
  grant select on public.communities to community_deletion_operator;
end;
$$;
--! EndIncluded engine/grants.sql
