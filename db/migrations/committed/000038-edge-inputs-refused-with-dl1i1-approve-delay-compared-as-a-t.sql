--! Previous: sha1:a6eff50bc38dd148054398b77b8c78f93ca4226b
--! Hash: sha1:330bd291492fcb4ff42758dd323e7d9d47eceaa1
--! Message: Edge inputs refused with DL1I1: approve delay compared as a time, -infinity sweep start, unix: without a path, blank list host, executor id with control characters

-- Edge inputs refused with DL1I1, changing nothing (the fourth adversarial
-- pass): approve's delay compared as a time ('12 months 6 days' is past the
-- 366-day cap though 12 months compares as 360 days); a taxonomy sweep that
-- started at -infinity; a Redis socket without a path ('unix:'); a blank
-- host filter in list_requests (it matched nothing, silently); an executor
-- id with control characters (stored as the lease owner). And
-- _refuse_planner_code's own argument check raises DL1I1 (every errcode the
-- engine raises is registered).
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
-- digest (optional): the inventory digest, or a prefix of it of at least 8
-- hex digits, that the approver reviewed (`deletions approve --digest`). The
-- approval is refused (digest_mismatch, DL3A2) unless the frozen inventory's
-- digest starts with it (case-insensitive), so an approver cannot approve an
-- inventory other than the one they looked at; a malformed value is DL1I1.
--
-- Grace period: nothing runs before the approval's not_before. It is the later
-- of now() + settings.approval_grace_period (the configured minimum, 0 allowed)
-- and the requested time (not_before, or now() + delay; at most one of the
-- two). A requested time earlier than the minimum is raised to the minimum; a
-- time in the past is accepted only when the minimum is 0 (it then means now).
-- The requested time is at most a year ahead (a delay of at most 366 days, a
-- finite not_before no later than now() + 366 days; DL1I1 otherwise, the cap
-- of `deletions approve --delay`): an approval that could never run
-- would hold the community's only open request. Abort stays possible
-- throughout the grace period.
create or replace function community_deletion.approve(
  request_id uuid, approved_by text, note text default null,
  not_before timestamptz default null, delay interval default null, digest text default null)
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
  p_approved_by alias for $2;
  p_note alias for $3;
  p_not_before alias for $4;
  p_delay alias for $5;
  p_digest alias for $6;
  v_digest text := lower(btrim(p_digest));
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
  -- (Compared as times: an interval of 12 months compares as 360 days, but
  -- '12 months 6 days' from now is about 371 days ahead.)
  if p_delay is not null and (p_delay > interval '366 days' or now() + p_delay > now() + interval '366 days') then
    raise exception 'deletion request %: delay % is more than a year (366 days)', p_request_id, p_delay
      using errcode = 'DL1I1', hint = 'Pass a delay of at most 366 days.';
  end if;
  if p_not_before is not null and (not pg_catalog.isfinite(p_not_before) or p_not_before > now() + interval '366 days') then
    raise exception 'deletion request %: not_before % is not a time within the next year', p_request_id, p_not_before
      using errcode = 'DL1I1', hint = 'Pass a finite time at most 366 days ahead.';
  end if;
  if p_digest is not null and v_digest !~ '^[0-9a-f]{8,64}$' then
    raise exception 'deletion request %: digest % is not 8 to 64 hex digits of the inventory digest', p_request_id, p_digest
      using errcode = 'DL1I1',
            hint = 'Pass the digest shown by `deletions inspect` (or at least its first 8 hex digits).';
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

  if v_digest is not null and left(v_request.inventory_digest, length(v_digest)) is distinct from v_digest then
    raise exception 'deletion request %: the approver reviewed inventory digest %, but the frozen inventory''s digest is %',
      p_request_id, v_digest, v_request.inventory_digest
      using errcode = 'DL3A2',
            hint = 'Review the request again (`deletions inspect ID`, community_deletion.inspect) and approve the digest it shows.';
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
--! Included functions/record_taxonomy_sweep.sql
-- Records one fleet-wide storage taxonomy sweep (observational: it never
-- gates a deletion). Completion time is the database's clock; a start time
-- more than five minutes in the future is refused (invalid_argument, DL1I1).
create or replace function community_deletion.record_taxonomy_sweep(
  started_at timestamptz, listed_objects bigint, unknown_object_count bigint,
  unknown_key_sample jsonb, object_cap bigint, truncated boolean)
  returns community_deletion.taxonomy_sweeps
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_started_at alias for $1;
  p_listed_objects alias for $2;
  p_unknown_object_count alias for $3;
  p_unknown_key_sample alias for $4;
  p_object_cap alias for $5;
  p_truncated alias for $6;
  v_now timestamptz := clock_timestamp();
  v_row community_deletion.taxonomy_sweeps;
begin
  if p_started_at is null or not pg_catalog.isfinite(p_started_at) or p_started_at > v_now + interval '5 minutes' then
    raise exception 'taxonomy sweep start % is missing or in the future', p_started_at
      using errcode = 'DL1I1', hint = 'Check the sweeper host''s clock.';
  end if;
  if p_unknown_key_sample is null or jsonb_typeof(p_unknown_key_sample) <> 'array'
     or jsonb_array_length(p_unknown_key_sample) > 100 then
    raise exception 'taxonomy sweep sample must be a JSON array of at most 100 keys'
      using errcode = 'DL1I1';
  end if;
  insert into community_deletion.taxonomy_sweeps
    (started_at, completed_at, listed_objects, unknown_object_count, unknown_key_sample, object_cap, truncated)
  values (least(p_started_at, v_now), v_now, p_listed_objects, p_unknown_object_count, p_unknown_key_sample,
          p_object_cap, coalesce(p_truncated, false))
  returning * into v_row;
  return v_row;
exception when check_violation or not_null_violation then
  raise exception 'taxonomy sweep counts are inconsistent (listed %, unknown %, cap %)',
    p_listed_objects, p_unknown_object_count, p_object_cap using errcode = 'DL1I1';
end;
$$;
--! EndIncluded functions/record_taxonomy_sweep.sql
--! Included functions/_normalize_store_identity.sql
-- The canonical identity of the stores a request is deleted from:
-- {"s3_endpoint": "scheme://host[:port][/path]", "s3_bucket": "…",
--  "redis_server": "host:port" (or "unix:/path"), "redis_db": n}.
-- Normalised so the same store is never a mismatch: scheme and host
-- lowercase, the default port dropped (S3: 80 for http, 443 for https) or
-- made explicit (Redis: 6379), trailing slashes, user information, query and
-- fragment removed (credentials are never stored); redis_server may also be a
-- redis:// or rediss:// URL, whose path (/n) gives the database when
-- redis_db is absent; the database defaults to 0. The region and the
-- addressing style are not part of the identity: an endpoint and a bucket
-- name one bucket. Refuses (invalid_argument, DL1I1, naming p_what) a value
-- that is not an object, an unknown key, a missing S3 field, a malformed
-- URL, port or database, or white space / control characters inside a value. The canonical form is a valid input and normalises
-- to itself.
create or replace function community_deletion._normalize_store_identity(p_identity jsonb, p_what text)
  returns jsonb
  language plpgsql
  immutable
  set search_path = pg_catalog, pg_temp
as $$
declare
  -- scheme, user information (dropped), host (or [v6]), port, path, query (dropped)
  c_url constant text := '^([A-Za-z][A-Za-z0-9+.-]*)://(?:[^@/?#]*@)?(\[[^]]*\]|[^:/?#]*)(?::([0-9]*))?([^?#]*)(?:\?[^#]*)?(?:#.*)?$';
  v_key text;
  v_parts text[];
  v_scheme text;
  v_host text;
  v_port text;
  v_path text;
  v_endpoint text;
  v_bucket text;
  v_server text;
  v_db_text text;
  v_db integer;
begin
  if p_identity is null or jsonb_typeof(p_identity) <> 'object' then
    raise exception '%: the store identity must be a json object, got %', p_what, coalesce(jsonb_typeof(p_identity), 'null')
      using errcode = 'DL1I1';
  end if;
  for v_key in select k from jsonb_object_keys(p_identity) k loop
    if v_key not in ('s3_endpoint', 's3_bucket', 'redis_server', 'redis_db') then
      raise exception '%: unknown store identity field %', p_what, v_key
        using errcode = 'DL1I1', hint = 'Fields: s3_endpoint, s3_bucket, redis_server, redis_db.';
    end if;
  end loop;

  -- S3: endpoint URL and bucket.
  v_endpoint := btrim(p_identity ->> 's3_endpoint');
  v_parts := regexp_match(coalesce(v_endpoint, ''), c_url);
  v_scheme := lower(v_parts[1]);
  if v_parts is null or v_scheme not in ('http', 'https') or v_parts[2] = '' then
    raise exception '%: s3_endpoint % is not an http(s) URL', p_what, coalesce(v_endpoint, '(missing)')
      using errcode = 'DL1I1';
  end if;
  v_host := lower(v_parts[2]);
  v_port := nullif(v_parts[3], '');
  if v_port is not null and (length(v_port) > 5 or v_port::integer > 65535) then
    raise exception '%: s3_endpoint % has an invalid port', p_what, v_endpoint using errcode = 'DL1I1';
  end if;
  v_port := nullif(ltrim(v_port, '0'), '');
  if (v_scheme = 'http' and v_port = '80') or (v_scheme = 'https' and v_port = '443') then
    v_port := null;
  end if;
  v_path := rtrim(v_parts[4], '/');
  v_endpoint := v_scheme || '://' || v_host || coalesce(':' || v_port, '') || v_path;
  v_bucket := btrim(p_identity ->> 's3_bucket');
  if v_bucket is null or v_bucket = '' or jsonb_typeof(p_identity -> 's3_bucket') <> 'string' then
    raise exception '%: s3_bucket is missing or blank', p_what using errcode = 'DL1I1';
  end if;

  -- Redis: server and database.
  v_server := btrim(p_identity ->> 'redis_server');
  if v_server is null or v_server = '' then
    raise exception '%: redis_server is missing or blank', p_what using errcode = 'DL1I1';
  end if;
  if v_server like 'unix:%' then
    v_server := 'unix:' || rtrim(substr(v_server, 6), '/');
    if v_server = 'unix:' then
      raise exception '%: redis_server % names no socket path', p_what, p_identity ->> 'redis_server' using errcode = 'DL1I1';
    end if;
  else
    if v_server !~ '://' then
      v_server := 'redis://' || v_server;
    end if;
    v_parts := regexp_match(v_server, c_url);
    if v_parts is null or lower(v_parts[1]) not in ('redis', 'rediss') or v_parts[2] = '' then
      raise exception '%: redis_server % is not host[:port] or a redis:// URL', p_what, p_identity ->> 'redis_server'
        using errcode = 'DL1I1';
    end if;
    v_port := coalesce(nullif(ltrim(v_parts[3], '0'), ''), case when v_parts[3] ~ '^0+$' then '0' end, '6379');
    if length(v_port) > 5 or v_port::integer > 65535 then
      raise exception '%: redis_server % has an invalid port', p_what, p_identity ->> 'redis_server' using errcode = 'DL1I1';
    end if;
    v_server := lower(v_parts[2]) || ':' || v_port;
    v_db_text := nullif(btrim(v_parts[4], '/'), '');
  end if;
  if p_identity ? 'redis_db' and jsonb_typeof(p_identity -> 'redis_db') <> 'null' then
    v_db_text := btrim(p_identity ->> 'redis_db');
  end if;
  if v_db_text is not null and (v_db_text !~ '^[0-9]{1,9}$') then
    raise exception '%: redis_db % is not a database number', p_what, v_db_text using errcode = 'DL1I1';
  end if;
  v_db := coalesce(v_db_text::integer, 0);

  if concat(v_endpoint, v_bucket, v_server) ~ '[[:cntrl:]\s]' then
    raise exception '%: the store identity contains white space or control characters', p_what using errcode = 'DL1I1';
  end if;
  return jsonb_build_object('s3_endpoint', v_endpoint, 's3_bucket', v_bucket, 'redis_server', v_server, 'redis_db', v_db);
end;
$$;
--! EndIncluded functions/_normalize_store_identity.sql
--! Included functions/list_requests.sql
-- Operator API: the newest max_rows requests (1..1000, else invalid_argument
-- DL1I1), one summary line each with the same state word and explanation as
-- community_deletion.inspect. Optional filters: in_state (a state word of
-- inspect, e.g. 'blocked'; an unknown word: DL1I1), host (the community host, case-insensitive).
-- Paging past max_rows: before (a request id) lists only requests older than
-- that one in the same order (created_at desc, id desc), so passing the last
-- request_id of a page returns the next page (an unknown id: DL1N1).
create or replace function community_deletion.list_requests(
    max_rows integer default 100, in_state text default null, host text default null, before uuid default null)
  returns table (
    request_id uuid, community_id uuid, community_host text, stage text, state text,
    requested_by text, approved_by text, not_before timestamptz, lease_owner text,
    lease_until timestamptz, next_attempt_at timestamptz, retry_count integer,
    blocked_reason text, created_at timestamptz, updated_at timestamptz, explanation text)
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_limit alias for $1;
  p_state alias for $2;
  p_host alias for $3;
  p_before alias for $4;
  v_before community_deletion.requests;
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception 'community deletion: list limit % is outside 1..1000', p_limit
      using errcode = 'DL1I1';
  end if;
  if p_state is not null and p_state not in ('waiting_for_inventory', 'waiting_for_approval', 'grace_period', 'runnable',
                                             'leased', 'retry_wait', 'blocked', 'completed', 'aborted') then
    raise exception 'community deletion: % is not a request state', p_state
      using errcode = 'DL1I1',
            hint = 'States: waiting_for_inventory, waiting_for_approval, grace_period, runnable, leased, retry_wait, blocked, completed, aborted.';
  end if;
  if p_host is not null and pg_catalog.btrim(p_host) = '' then
    raise exception 'community deletion: the host filter is blank' using errcode = 'DL1I1',
      hint = 'Pass a community host, or null for every host.';
  end if;
  if p_before is not null then
    select r.* into v_before from community_deletion.requests r where r.id = p_before;
    if not found then
      raise exception 'deletion request % not found (list before)', p_before using errcode = 'DL1N1';
    end if;
  end if;
  return query
    select r.id, r.community_id, r.community_host, r.stage, s.state,
           r.requested_by, a.approved_by, a.not_before, r.lease_owner,
           r.lease_until, r.next_attempt_at, r.retry_count,
           r.blocked_reason, r.created_at, r.updated_at, s.explanation
      from community_deletion.requests r
      left join community_deletion.approvals a on a.request_id = r.id
      cross join lateral community_deletion._request_state(r, a) s
     where (p_host is null or lower(r.community_host) = lower(btrim(p_host)))
       and (p_before is null or (r.created_at, r.id) < (v_before.created_at, v_before.id))
       and (p_state is null or s.state = p_state)
     order by r.created_at desc, r.id desc
     limit p_limit;
end;
$$;
--! EndIncluded functions/list_requests.sql
--! Included functions/claim.sql
-- Executor API: claims the oldest runnable request (or request_id) and
-- returns its lease token; zero rows when nothing is claimable. Claimable:
-- a runnable stage, an approval bound to the exact community and digest whose
-- grace period is over, not blocked, next_attempt_at reached, no live lease.
-- Rows are taken FOR UPDATE SKIP LOCKED, so two claimers never both win.
-- The catalog is validated before the lease is granted. On drift (DL7C1) the
-- claim does NOT raise: it records a failed 'claim:catalog_validation'
-- checkpoint, blocks the request durably with the reason and returns zero
-- rows, so the block commits and community_deletion.inspect explains the stranded
-- request. An unknown request_id raises request_not_found (DL1N1).
-- Granting bumps lease_generation (the token) and attempts.
create or replace function community_deletion.claim(
  executor_id text, request_id uuid default null, lease_seconds integer default 60)
  returns setof community_deletion.lease_token
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_owner alias for $1;
  p_request_id alias for $2;
  p_lease_seconds alias for $3;
  v_owner text := p_owner;
  v_request community_deletion.requests;
  v_error text;
begin
  perform community_deletion._apply_lock_timeout();
  -- The owner is stored exactly as given (later calls present the same
  -- string), so it must already be trimmed.
  if community_deletion._require_text(p_owner, 'executor id (owner)', 256) <> p_owner then
    raise exception 'community deletion: executor id % has leading or trailing whitespace', pg_catalog.quote_literal(p_owner)
      using errcode = 'DL1I1';
  end if;
  -- (Stored as the lease owner and shown on operators' terminals.)
  if p_owner ~ '[\u0001-\u001f\u007f-\u009f]' then
    raise exception 'community deletion: executor id % contains control characters', pg_catalog.quote_literal(p_owner)
      using errcode = 'DL1I1', hint = 'Pass the executor id as plain text.';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception 'community deletion: lease of % seconds is outside 1..3600', p_lease_seconds
      using errcode = 'DL1I1';
  end if;
  if p_request_id is not null
     and not exists (select 1 from community_deletion.requests r where r.id = p_request_id) then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;

  select r.* into v_request
    from community_deletion.requests r
    join community_deletion.approvals a
      on a.request_id = r.id and a.community_id = r.community_id and a.inventory_digest = r.inventory_digest
   where (p_request_id is null or r.id = p_request_id)
     and community_deletion._stage_is_runnable(r.stage)
     and r.blocked_at is null
     and r.next_attempt_at <= now()
     and a.not_before <= now()
     and (r.lease_until is null or r.lease_until < now())
   order by r.created_at, r.id
   limit 1
   for update of r skip locked;
  if not found then
    return;
  end if;

  begin
    perform community_deletion.validate_catalog();
  exception when sqlstate 'DL7C1' then
    get stacked diagnostics v_error = message_text;
    v_error := community_deletion._bound_text(v_error, 4096);
    perform community_deletion._checkpoint(
      v_request.id, v_request.stage, 'claim:catalog_validation', 'failed', v_request.lease_generation,
      jsonb_build_object('executor', v_owner, 'error', v_error), v_error);
    update community_deletion.requests r
       set blocked_at = now(), blocked_reason = v_error, last_error = v_error, last_error_at = now(),
           lease_owner = null, lease_until = null, updated_at = now()
     where r.id = v_request.id;
    return;
  end;

  return query
    update community_deletion.requests r
       set lease_owner = v_owner,
           lease_generation = r.lease_generation + 1,
           lease_until = now() + make_interval(secs => p_lease_seconds),
           attempts = r.attempts + 1,
           updated_at = now()
     where r.id = v_request.id
    returning r.id, r.community_id, r.stage, r.lease_owner, r.lease_generation, r.fence_generation, r.lease_until;
end;
$$;
--! EndIncluded functions/claim.sql
--! Included functions/_refuse_planner_code.sql
-- Refuses (catalog_drift, DL7C1), right before the engine reads registered
-- tables p_rels (plan's and the frozen inventory's counts, the inventory
-- difference, the absence proof, the TRUNCATE guard), when code another
-- role attached to one of them would run as the engine owner while
-- PostgreSQL plans a statement on it: an index expression or predicate or an
-- extended-statistics expression calling an untrusted function (the planner
-- folds an immutable function with constant arguments — and whatever it
-- calls — when it loads them), a constraint of a domain a column is built
-- from, row-level security (_invoker_code_problems, event 'select').
-- Each table is locked first, in oid order, in p_mode: 'share update
-- exclusive' where the caller does not hold the shared schema-destruction
-- lock — it conflicts with CREATE INDEX (CONCURRENTLY too), CREATE
-- STATISTICS and the ALTER TABLE forms that add such code, never with reads
-- or writes, so what is checked here is what the caller's statements plan
-- until its transaction ends; 'access share' where the caller holds that
-- lock (every DDL waits for it already). NULLs in p_rels are skipped.
create or replace function community_deletion._refuse_planner_code(p_rels pg_catalog.regclass[], p_mode text)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_rel pg_catalog.regclass;
  v_rels pg_catalog.regclass[];
  v_problems jsonb;
begin
  if p_mode is null or p_mode not in ('share update exclusive', 'access share') then
    raise exception 'community deletion: _refuse_planner_code lock mode must be share update exclusive or access share, not %', p_mode
      using errcode = 'DL1I1';
  end if;
  select pg_catalog.array_agg(x.rel order by x.rel::pg_catalog.oid) into v_rels
    from (select distinct r.rel from pg_catalog.unnest(p_rels) r(rel) where r.rel is not null) x;
  if v_rels is null then
    return;
  end if;
  foreach v_rel in array v_rels loop
    execute pg_catalog.format('lock table %s in %s mode', v_rel, p_mode);
  end loop;
  select pg_catalog.jsonb_object_agg(x.rel::text, x.problems) into v_problems
    from community_deletion._invoker_code_problems_of(v_rels, 'select') x;
  if v_problems is not null then
    raise exception 'community deletion catalog drift: code another role attached would run as the engine owner when the engine reads %',
      (select pg_catalog.string_agg(pg_catalog.format('%s (%s)', e.key,
                                      (select pg_catalog.string_agg(v, ', ') from pg_catalog.jsonb_array_elements_text(e.value) v)),
                                    '; ' order by e.key)
         from pg_catalog.jsonb_each(v_problems) e)
      using errcode = 'DL7C1',
            detail = pg_catalog.jsonb_build_object('event', 'select', 'code', v_problems)::text,
            hint = 'Drop the index or statistics object, or have a superuser own the function it calls '
                   '(a SECURITY DEFINER function its owner controls is not enough); then retry.';
  end if;
end;
$$;
--! EndIncluded functions/_refuse_planner_code.sql
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
  select 38
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
