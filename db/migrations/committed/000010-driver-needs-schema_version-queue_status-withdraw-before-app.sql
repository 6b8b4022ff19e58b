--! Previous: sha1:1bcd6ecdc407d0f38c058799c52994804c03c9b5
--! Hash: sha1:c6311ef7cc689f4ea56ffbc03499cd8b74b1393d
--! Message: Driver needs: schema_version(), queue_status(), withdraw before approval, texts bounded in bytes

-- The driver's needs (docs/sql-api.md):
--  * community_deletion.schema_version(): drivers refuse a schema they were
--    not built for;
--  * community_deletion.queue_status(): the queue overview in one query;
--  * abort withdraws a request at submitted or inventoried, and at fenced
--    removes the key chunks of an enumeration that was never frozen;
--  * stored errors are bounded in UTF-8 bytes, cut on a character boundary;
--    operator reasons and notes longer than 4096 bytes, or with control
--    characters, are refused instead of cut.
--! Included functions/_bound_text.sql
-- p cut to at most p_max bytes of UTF-8 (stored errors, reasons and notes are
-- bounded in bytes, not characters: a multibyte text of p_max characters is
-- several times larger), cut on a character boundary — never half a
-- character. Null stays null.
create or replace function community_deletion._bound_text(p text, p_max integer)
  returns text
  language plpgsql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_keep integer;
  v_high integer;
  v_mid integer;
begin
  if p is null or pg_catalog.octet_length(p) <= p_max then
    return p;
  end if;
  -- The longest prefix (in characters) that fits: binary search, since a
  -- character is 1 to 4 bytes.
  v_keep := 0;
  v_high := least(pg_catalog.length(p), greatest(p_max, 0));
  while v_keep < v_high loop
    v_mid := (v_keep + v_high + 1) / 2;
    if pg_catalog.octet_length(pg_catalog.left(p, v_mid)) <= p_max then
      v_keep := v_mid;
    else
      v_high := v_mid - 1;
    end if;
  end loop;
  return pg_catalog.left(p, v_keep);
end;
$$;
--! EndIncluded functions/_bound_text.sql
--! Included functions/_require_text.sql
-- Validates a required operator-supplied text argument (identity, reason,
-- executor id, error): trimmed, non-blank, at most p_max bytes of UTF-8.
-- Returns the trimmed value; raises invalid_argument (DL1I1) naming the
-- argument and the limit otherwise (nothing is truncated silently).
create or replace function community_deletion._require_text(p_value text, p_name text, p_max integer)
  returns text
  language plpgsql
  immutable
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_value text := pg_catalog.btrim(p_value);
begin
  if v_value is null or v_value = '' then
    raise exception 'community deletion: % is required and must not be blank', p_name
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Pass a non-empty %s.', p_name);
  end if;
  if pg_catalog.octet_length(v_value) > p_max then
    raise exception 'community deletion: % is longer than % bytes (UTF-8)', p_name, p_max
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Shorten %s to at most %s bytes.', p_name, p_max);
  end if;
  return v_value;
end;
$$;
--! EndIncluded functions/_require_text.sql
--! Included functions/_require_operator_text.sql
-- Validates an operator's free text (reason, note): trimmed; at most 4096
-- bytes of UTF-8 — a longer text is refused with the limit named, never cut;
-- no control characters but tab and line breaks (an escape sequence stored
-- here would act on the terminal of whoever lists it later). p_required:
-- blank is refused (DL1I1); otherwise blank means null. Returns the trimmed
-- text.
create or replace function community_deletion._require_operator_text(p_value text, p_name text, p_required boolean)
  returns text
  language plpgsql
  immutable
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_value text := nullif(pg_catalog.btrim(p_value), '');
begin
  if v_value is null then
    if p_required then
      perform community_deletion._require_text(v_value, p_name, 4096);
    end if;
    return null;
  end if;
  v_value := community_deletion._require_text(v_value, p_name, 4096);
  if v_value ~ '[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]' then
    raise exception 'community deletion: % contains control characters', p_name
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Pass %s as plain text (tabs and line breaks are allowed, escape sequences are not).', p_name);
  end if;
  return v_value;
end;
$$;
--! EndIncluded functions/_require_operator_text.sql
--! Included functions/_stages.sql
-- The request lifecycle's stages (docs/sql-api.md#stages): the one
-- definition of their order, the only legal forward move from each, which
-- stages an executor may claim, which are terminal, which an operator may
-- abort at, and from which on the community is fenced. Every other function,
-- constraint and index asks the helpers built on it (_stage_order,
-- _next_stage, _stage_is_runnable, _stage_is_terminal, _stage_is_abortable,
-- _stage_is_fenced); the view community_deletion.stages shows it in psql.
create or replace function community_deletion._stages()
  returns table (stage text, stage_order integer, next_stage text, runnable boolean, terminal boolean,
                 abortable boolean, fenced boolean)
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  values
    ('submitted',          1,  'inventoried',        false, false, true,  false),
    ('inventoried',        2,  'approved',           false, false, true,  false),
    ('approved',           3,  'fenced',             true,  false, true,  false),
    ('fenced',             4,  'drained',            true,  false, true,  true),
    ('drained',            5,  'bindings_removed',   true,  false, false, true),
    ('bindings_removed',   6,  'postgres_purged',    true,  false, false, true),
    ('postgres_purged',    7,  'cache_purged',       true,  false, false, true),
    ('cache_purged',       8,  'logically_verified', true,  false, false, true),
    ('logically_verified', 9,  'retention_pending',  true,  false, false, true),
    ('retention_pending',  10, null,                 false, true,  false, true),
    ('aborted',            99, null,                 false, true,  false, false)
$$;
--! EndIncluded functions/_stages.sql
--! Included functions/_stage_is_abortable.sql
-- Whether an operator may abort a request at `stage` (submitted … fenced:
-- nothing irreversible has happened yet). False for a value that is not a
-- stage.
create or replace function community_deletion._stage_is_abortable(stage text)
  returns boolean
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select coalesce((select s.abortable from community_deletion._stages() s where s.stage = _stage_is_abortable.stage), false)
$$;
--! EndIncluded functions/_stage_is_abortable.sql
--! Included functions/abort.sql
-- Operator API: terminally aborts a request before any object is deleted
-- (docs/design.md#failure-handling), at the abortable stages (_stages):
--  * submitted or inventoried — a withdrawal: the community never left
--    active and nothing ran, so only the request is terminalised;
--  * approved or fenced — the community is given back.
-- Never from drained on, whatever the checkpoints say (wrong_stage, DL2S1);
-- terminal requests refuse (DL2T1); live serving-write leases refuse
-- (serving_not_drained, DL5D1, retryable) once the community may be
-- quiescing. Under the exclusive community lock (taken FIRST, then row locks,
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
   where l.community_id = v_request.community_id and l.lease_until >= now();
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
--! Included functions/approve.sql
-- Operator API: a second operator approves the exact frozen inventory of an
-- inventoried, unblocked request and moves it to approved. Refusals: the
-- requester approving (self_approval, DL3A1) — by typed name (compared in
-- _identity_key form) or by database login: session_user is recorded on the
-- request and the approval, and the login that submitted cannot approve
-- (docs/security.md#two-person-rule; settings.allow_same_login_approval
-- relaxes only the login half, for single-login development setups). A
-- request submitted before logins were recorded has no login to compare.
-- A stored inventory that no longer
-- hashes to its digest (digest_mismatch, DL3A2), wrong stage / blocked /
-- terminal (DL2S1 / DL2B1 / DL2T1), blank approver or bad timing (DL1I1).
--
-- Grace period: nothing runs before the approval's not_before. It is the later
-- of now() + settings.approval_grace_period (the configured minimum, 0 allowed)
-- and the requested time (not_before, or now() + delay; at most one of the
-- two). A requested time earlier than the minimum is raised to the minimum; a
-- time in the past is accepted only when the minimum is 0 (it then means now).
-- Abort stays possible throughout the grace period.
create or replace function community_deletion.approve(
  request_id uuid, approved_by text, note text default null,
  not_before timestamptz default null, delay interval default null)
  returns community_deletion.requests
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_approved_by alias for $2;
  p_note alias for $3;
  p_not_before alias for $4;
  p_delay alias for $5;
  v_approved_by text := community_deletion._require_identity(p_approved_by, 'approved_by');
  v_note text := community_deletion._require_operator_text(p_note, 'note', false);
  v_minimum interval;
  v_not_before timestamptz;
  v_request community_deletion.requests;
begin
  perform community_deletion._apply_lock_timeout();
  if p_not_before is not null and p_delay is not null then
    raise exception 'deletion request %: pass either not_before or delay, not both', p_request_id
      using errcode = 'DL1I1';
  end if;
  if p_delay is not null and p_delay < interval '0' then
    raise exception 'deletion request %: delay % is negative', p_request_id, p_delay
      using errcode = 'DL1I1';
  end if;
  select s.approval_grace_period into v_minimum from community_deletion.settings s;
  v_minimum := coalesce(v_minimum, interval '0');
  if p_not_before is not null and p_not_before < now() and v_minimum > interval '0' then
    raise exception 'deletion request %: not_before % is in the past', p_request_id, p_not_before
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Pass a future time; the minimum grace period is %s.', v_minimum);
  end if;
  v_not_before := greatest(now() + v_minimum, coalesce(p_not_before, now() + p_delay, now()));

  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is terminal (%)', p_request_id, v_request.stage using errcode = 'DL2T1';
  end if;
  if v_request.stage <> 'inventoried' then
    raise exception 'deletion request % is at stage %, only an inventoried request can be approved',
      p_request_id, v_request.stage
      using errcode = 'DL2S1',
            hint = case when v_request.stage = 'submitted' then 'Freeze the inventory first (community_deletion.freeze_inventory).'
                        else 'Inspect the request (community_deletion.inspect); it was approved already or has moved on.' end;
  end if;
  if v_request.blocked_at is not null then
    raise exception 'deletion request % is blocked: %', p_request_id, v_request.blocked_reason
      using errcode = 'DL2B1', hint = 'Remediate the cause, then run community_deletion.unblock.';
  end if;
  if community_deletion._same_operator(v_approved_by, v_request.requested_by) then
    raise exception 'deletion request %: % requested it and cannot also approve it', p_request_id, v_approved_by
      using errcode = 'DL3A1', hint = 'A second operator must approve.';
  end if;
  if v_request.requested_login = session_user
     and not (select s.allow_same_login_approval from community_deletion.settings s) then
    raise exception 'deletion request %: the database login % submitted it and cannot also approve it, whatever name it types',
      p_request_id, session_user
      using errcode = 'DL3A1',
            hint = 'A second operator approves from their own login (settings.allow_same_login_approval relaxes this for single-login development setups only).';
  end if;
  if v_request.inventory_digest is distinct from community_deletion._inventory_digest(v_request.inventory_manifest) then
    raise exception 'deletion request %: the frozen inventory no longer hashes to its digest %',
      p_request_id, v_request.inventory_digest
      using errcode = 'DL3A2',
            hint = 'The stored inventory was modified after it was frozen; investigate the control plane before anyone approves.';
  end if;

  insert into community_deletion.approvals
    (request_id, community_id, inventory_digest, approved_by, approved_login, note, not_before, approved_at)
  values
    (v_request.id, v_request.community_id, v_request.inventory_digest, v_approved_by, session_user, v_note, v_not_before, now());

  update community_deletion.requests r
     set stage = 'approved', next_attempt_at = v_not_before, updated_at = now()
   where r.id = p_request_id and r.stage = 'inventoried' and r.blocked_at is null
  returning r.* into v_request;
  return v_request;
end;
$$;
--! EndIncluded functions/approve.sql
--! Included functions/submit.sql
-- Operator API: asks for the deletion of the community whose host matches
-- host case-insensitively. Only an active, never-deleted community is
-- eligible (community_not_eligible, DL2C1; unknown host: DL1N2). At most one
-- non-aborted request exists per community: the same requester resubmitting
-- while it is still submitted gets the existing request back; anything else is
-- refused with request_exists (DL2C2) naming the open request.
create or replace function community_deletion.submit(host text, requested_by text, reason text default null)
  returns community_deletion.requests
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_host alias for $1;
  p_requested_by alias for $2;
  p_reason alias for $3;
  v_host text := community_deletion._require_text(p_host, 'host', 253);
  v_requested_by text := community_deletion._require_identity(p_requested_by, 'requested_by');
  v_reason text := community_deletion._require_operator_text(p_reason, 'reason', false);
  v_community public.communities;
  v_request community_deletion.requests;
begin
  perform community_deletion._apply_lock_timeout();
  select c.* into v_community from public.communities c where lower(c.host) = lower(v_host);
  if not found then
    raise exception 'community deletion: no community has host %', v_host
      using errcode = 'DL1N2';
  end if;
  if v_community.deletion_state <> 'active' or v_community.deleted_at is not null then
    raise exception 'community % (%) is %, only an active community can be submitted for deletion',
      v_community.host, v_community.id,
      case when v_community.deleted_at is not null then 'deleted' else v_community.deletion_state end
      using errcode = 'DL2C1';
  end if;

  -- session_user: the authenticated login, whatever role the caller set; the
  -- two-person rule binds to it (approve).
  insert into community_deletion.requests (community_id, community_host, requested_by, requested_login, reason)
  values (v_community.id, v_community.host, v_requested_by, session_user, v_reason)
  on conflict (community_id) where stage <> 'aborted' do nothing
  returning * into v_request;
  if found then
    return v_request;
  end if;

  select r.* into v_request from community_deletion.requests r
   where r.community_id = v_community.id and r.stage <> 'aborted';
  if v_request.stage = 'submitted' and community_deletion._same_operator(v_request.requested_by, v_requested_by) then
    return v_request;
  end if;
  raise exception 'community % (%) already has deletion request % at stage %, requested by %',
    v_community.host, v_community.id, v_request.id, v_request.stage, v_request.requested_by
    using errcode = 'DL2C2',
          hint = 'Inspect the open request with community_deletion.inspect; abort it first if it must be replaced.';
end;
$$;
--! EndIncluded functions/submit.sql
--! Included functions/unblock.sql
-- Operator API: clears a durable block after the operator remediated its cause
-- (docs/design.md#failure-handling). Only a blocked (else request_not_blocked, DL2B2), non-terminal
-- (DL2T1) request with no live executor lease (lease_held, DL4L2). Keeps the
-- target, approval, inventory, stage and fence generation; appends an
-- 'operator_unblock:<uuid>' audit checkpoint carrying the previous block
-- reason; clears the retry streak and makes the request eligible now (a grace
-- period from the approval still applies).
create or replace function community_deletion.unblock(request_id uuid, unblocked_by text, reason text)
  returns community_deletion.requests
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_unblocked_by alias for $2;
  p_reason alias for $3;
  v_unblocked_by text := community_deletion._require_identity(p_unblocked_by, 'unblocked_by');
  v_reason text := community_deletion._require_operator_text(p_reason, 'reason', true);
  v_request community_deletion.requests;
begin
  perform community_deletion._apply_lock_timeout();
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is terminal (%) and cannot resume', p_request_id, v_request.stage
      using errcode = 'DL2T1';
  end if;
  if v_request.blocked_at is null then
    raise exception 'deletion request % is not blocked', p_request_id
      using errcode = 'DL2B2';
  end if;
  if v_request.lease_owner is not null and v_request.lease_until >= now() then
    raise exception 'deletion request % is still leased by % (generation %) until %',
      p_request_id, v_request.lease_owner, v_request.lease_generation, v_request.lease_until
      using errcode = 'DL4L2',
            hint = 'Stop that executor or wait for its lease to expire, then unblock.';
  end if;

  perform community_deletion._checkpoint(
    v_request.id, v_request.stage, 'operator_unblock:' || gen_random_uuid()::text, 'completed',
    v_request.lease_generation,
    jsonb_build_object(
      'unblocked_by', v_unblocked_by,
      'reason', v_reason,
      'previous_block', v_request.blocked_reason,
      'previous_blocked_at', v_request.blocked_at,
      'previous_retry_count', v_request.retry_count));

  update community_deletion.requests r
     set blocked_at = null,
         blocked_reason = null,
         retry_count = 0,
         retry_stage = null,
         last_error = null,
         last_error_at = null,
         next_attempt_at = now(),
         lease_owner = null,
         lease_until = null,
         updated_at = now()
   where r.id = p_request_id and r.blocked_at is not null
  returning r.* into v_request;
  return v_request;
end;
$$;
--! EndIncluded functions/unblock.sql
--! Included functions/queue_status.sql
-- Operator API: the queue at a glance, computed in one query over every
-- request (never a capped list): one row per state (_request_state) with the
-- number of requests, the oldest one's creation time, and whether that state
-- needs an operator (blocked; waiting_for_approval; waiting_for_inventory,
-- i.e. submitted and never frozen). States with no request are left out.
create or replace function community_deletion.queue_status()
  returns table (state text, requests bigint, oldest_created_at timestamptz, needs_operator boolean)
  language sql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
as $$
  select s.state, count(*) as requests, min(r.created_at) as oldest_created_at,
         s.state in ('blocked', 'waiting_for_approval', 'waiting_for_inventory') as needs_operator
    from community_deletion.requests r
    left join community_deletion.approvals a on a.request_id = r.id
    cross join lateral community_deletion._request_state(r, a) s
   group by s.state
   order by s.state
$$;
--! EndIncluded functions/queue_status.sql
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
  select 10
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
      'record_taxonomy_sweep', 'write_fence_implementation'),
    'community_deletion_executor', pg_catalog.jsonb_build_array(
      'claim', 'verify_token', 'lease_state', 'heartbeat', 'release',
      'executor_stopped',
      'record_failure', 'block', 'block_preclaim',
      'begin_quiescing', 'fence',
      'append_key_chunk', 'clear_key_chunks', 'freeze_destructive_manifest',
      'mark_drained', 'next_key_chunk', 'stamp_key_chunk', 'key_chunk_progress',
      'mark_bindings_removed', 'purge_postgres', 'mark_cache_purged',
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
      '_guard_registered_tables',
      -- constants: the stage list (the view community_deletion.stages calls them as its reader)
      '_stages', '_stage_order', '_next_stage', '_stage_is_runnable', '_stage_is_terminal',
      '_stage_is_abortable', '_stage_is_fenced'));
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
--! Included engine/comments.sql
-- What \df+ community_deletion.* shows for each function of the SQL API
-- (docs/sql-api.md). Internal helpers (a leading underscore) and trigger
-- functions (tg_*) have none: they are not called directly. A test keeps
-- every API function described.

-- Operators (role community_deletion_operator)
comment on function community_deletion.submit(text, text, text) is
  'Open a deletion request for the community with this host (requested_by, reason). One open request per community.';
comment on function community_deletion.freeze_inventory(uuid, jsonb) is
  'Freeze the request''s inventory: the SQL schema manifest plus the storage summary the driver enumerated; computes the digest an approver approves.';
comment on function community_deletion.approve(uuid, text, text, timestamptz, interval) is
  'Approve the exact frozen inventory as a second operator; optional grace period (not_before or delay).';
comment on function community_deletion.abort(uuid, text, text) is
  'Abort a request up to fenced: withdraw it (submitted, inventoried) or give the community back (approved, fenced).';
comment on function community_deletion.queue_status() is
  'The queue at a glance: requests per state, the oldest in each, and which states need an operator.';
comment on function community_deletion.schema_version() is
  'The engine schema version (the last migration that changed engine objects); drivers refuse a version they were not built for.';
comment on function community_deletion.unblock(uuid, text, text) is
  'Clear a durable block after remediation; the request resumes at the same stage with the same approval.';
comment on function community_deletion.inspect(uuid) is
  'Everything about one request as jsonb (request, community, approval, checkpoints, state, explanation) for programs.';
comment on function community_deletion.request_status(uuid) is
  'One request as one row for people: stage, state, explanation, lease, retries, block.';
comment on function community_deletion.request_checkpoints(uuid) is
  'A request''s checkpoints as rows, in order, with attempts and errors.';
comment on function community_deletion.list_requests(integer) is
  'Requests, newest first (max_rows 1..1000), each with its state and explanation.';
comment on function community_deletion.storage_taxonomy_rules() is
  'The storage key taxonomy: owned prefixes and shared shapes, with the key pattern each writer produces.';
comment on function community_deletion.record_taxonomy_sweep(timestamptz, bigint, bigint, jsonb, bigint, boolean) is
  'Record the result of a fleet-wide storage taxonomy sweep (observational; never gates a deletion).';
comment on function community_deletion.validate_catalog() is
  'Raise DL7C1 (listing every problem) unless the live tables with community_id equal the registry, each scoped table is fenced and indexed.';
comment on function community_deletion.validate_serving_catalog() is
  'Raise DL7C1 unless every registered scoped table the serving path writes exists with its write fence.';
comment on function community_deletion.write_fence_implementation() is
  'Which implementation the write-fence triggers execute: native or plpgsql.';

-- Executors (role community_deletion_executor); every call but claim presents
-- the lease token (request_id, executor_id, lease_generation).
comment on function community_deletion.claim(text, uuid, integer) is
  'Claim the oldest runnable request (or request_id) for executor_id; returns the lease token, or no row.';
comment on function community_deletion.verify_token(uuid, text, bigint, text) is
  'Raise DL4L1 unless the lease token is current, unexpired and unblocked at this stage.';
comment on function community_deletion.lease_state(uuid, text, bigint) is
  'The stage the holder of this lease token must run next, with the fence generation to present.';
comment on function community_deletion.heartbeat(uuid, text, bigint, text, integer, boolean) is
  'Renew the lease (lease_seconds) and record the executor''s liveness; DL4L1 once the lease is lost.';
comment on function community_deletion.release(uuid, text, bigint) is
  'Give the lease back without recording a failure (clean shutdown).';
comment on function community_deletion.executor_stopped(text) is
  'Mark the executor''s liveness row stopped.';
comment on function community_deletion.record_failure(uuid, text, bigint, text, text, text) is
  'Record a transient failure: retry with backoff, or a durable block after the configured streak.';
comment on function community_deletion.block(uuid, text, bigint, text, text, text) is
  'Record a permanent failure: block the request durably with the reason.';
comment on function community_deletion.block_preclaim(uuid, text, text) is
  'Block a request that no executor could claim (service configuration), so inspect explains it.';
comment on function community_deletion.begin_quiescing(uuid, text, bigint) is
  'Approved stage, step 1: refuse new serving-write leases for the community (quiescing).';
comment on function community_deletion.fence(uuid, text, bigint) is
  'Approved stage, step 2: once no serving lease is live, close the write fence (new fence generation) and move to fenced.';
comment on function community_deletion.clear_key_chunks(uuid, text, bigint, bigint) is
  'Fenced stage: remove key chunks of an unfinished enumeration before enumerating again.';
comment on function community_deletion.append_key_chunk(uuid, text, bigint, bigint, integer, text, jsonb) is
  'Fenced stage: store one chunk of the post-fence enumeration (validated against the taxonomy and order).';
comment on function community_deletion.freeze_destructive_manifest(uuid, text, bigint, bigint, jsonb) is
  'Fenced stage: freeze the destructive manifest; the stored chunks must hash to it.';
comment on function community_deletion.mark_drained(uuid, text, bigint, bigint) is
  'Fenced stage: serving writes are drained and the destructive manifest frozen; move to drained.';
comment on function community_deletion.next_key_chunk(uuid, text, bigint, bigint) is
  'Drained stage: the next unstamped key chunk to delete from storage, or no row.';
comment on function community_deletion.stamp_key_chunk(uuid, text, bigint, bigint, integer, jsonb) is
  'Drained stage: stamp a chunk deleted (once) and checkpoint it.';
comment on function community_deletion.key_chunk_progress(uuid) is
  'Key chunks in total and already stamped deleted.';
comment on function community_deletion.mark_bindings_removed(uuid, text, bigint, bigint, jsonb) is
  'Drained stage: every chunk is stamped; move to bindings_removed.';
comment on function community_deletion.purge_postgres(uuid, text, bigint, bigint) is
  'Bindings_removed stage: delete the community''s rows in purge order and tombstone it.';
comment on function community_deletion.mark_cache_purged(uuid, text, bigint, bigint, jsonb) is
  'Postgres_purged stage: the Redis namespace was purged; move to cache_purged.';
comment on function community_deletion.verify_postgres_absence(uuid, text, bigint, bigint) is
  'Cache_purged stage: prove no registered table holds a row of the community.';
comment on function community_deletion.mark_logically_verified(uuid, text, bigint, bigint, jsonb) is
  'Cache_purged stage: absence proven in all three stores; move to logically_verified and drop the key chunks.';
comment on function community_deletion.mark_retention_pending(uuid, text, bigint, bigint, jsonb) is
  'Logically_verified stage: complete the request (retention_pending) and release the lease.';

-- The host application (role community_deletion_app)
comment on function community_deletion.acquire_serving_lease(uuid, text, text, integer) is
  'Admit a serving-path external effect (upload, push, …) for an active community; returns the lease.';
comment on function community_deletion.renew_serving_lease(uuid, text, bigint, bigint, integer) is
  'Renew an admitted serving lease (also while the community is quiescing); DL5S1 once it is lost.';
comment on function community_deletion.verify_serving_lease(uuid, text, bigint, bigint) is
  'Raise DL5S1 unless the serving lease is still live; call right before an irreversible external call.';
comment on function community_deletion.release_serving_lease(uuid, text, bigint, bigint) is
  'Release a serving lease; returns whether it was still live.';
comment on function community_deletion.guard_serving_write(uuid, text, bigint, bigint) is
  'Authorise this transaction''s final write for a leased effect while the community is quiescing.';
comment on function community_deletion.reap_serving_leases(integer) is
  'Remove expired serving leases and finished transactions'' write grants (at most max_rows); returns how many.';
comment on function community_deletion.serving_lease_stats() is
  'Serving leases by state, as jsonb.';
comment on function community_deletion.community_write_allowed(uuid) is
  'Whether this transaction may write the community''s rows now (the write fence''s decision).';
comment on function community_deletion.assert_community_write_allowed(uuid) is
  'Raise 55000 unless community_write_allowed: fail a write transaction before doing work.';

-- DBAs (migrations)
comment on function community_deletion.register_scoped_table(regclass, integer) is
  'Register a tenant table as community-scoped with its purge order and attach the write fence.';
comment on function community_deletion.register_unscoped_table(regclass, text, text) is
  'Register a table with a community_id that is not purged: provenance (its community_id is nulled).';
comment on function community_deletion.install_write_fence(boolean, text) is
  'Install the write fence''s trigger functions: native when the library loads (superuser), else PL/pgSQL.';
--! EndIncluded engine/comments.sql
