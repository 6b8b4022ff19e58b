--! Previous: sha1:23cdd32884894b244cfbac82c70dcdfac2796851
--! Hash: sha1:93cf178e27dddbdfd45fc83b2b5891d0a9a065f9
--! Message: A request bound to its stores (store_identity, verify_store_identity, DL4S1); approve(digest) binds what the approver reviewed; destructive_difference after the fence

-- Enter migration here
-- A request bound to its stores, and what the approver approves (issue 14,
-- items 1-2): the store identity a request was inventoried against
-- (requests.store_identity, recorded by freeze_inventory, verified by every
-- executor step through verify_store_identity, store_mismatch DL4S1);
-- approve(digest => prefix) binds the digest the approver reviewed
-- (DL3A2); freeze_destructive_manifest records what appeared or vanished
-- since approval (requests.destructive_difference).
alter table community_deletion.requests
  add column if not exists store_identity jsonb,
  add column if not exists store_identity_recorded_at timestamptz,
  add column if not exists destructive_difference jsonb;

alter table community_deletion.requests
  drop constraint if exists requests_store_identity_shape;
alter table community_deletion.requests
  add constraint requests_store_identity_shape check (
    (store_identity is null) = (store_identity_recorded_at is null)
    and (store_identity is null
         or (jsonb_typeof(store_identity) = 'object'
             and store_identity ?& array['s3_endpoint', 's3_bucket', 'redis_server', 'redis_db'])));
alter table community_deletion.requests
  drop constraint if exists requests_destructive_difference_shape;
alter table community_deletion.requests
  add constraint requests_destructive_difference_shape check (
    destructive_difference is null
    or (jsonb_typeof(destructive_difference) = 'object'
        and destructive_difference ?& array['changed', 'tables', 'prefixes']));

comment on column community_deletion.requests.store_identity is
  'The stores the inventory was taken from (S3 endpoint + bucket, Redis server + database), canonical; every executor step must present the same (verify_store_identity).';
comment on column community_deletion.requests.destructive_difference is
  'Per table rows and per prefix object versions that appeared or vanished between the approved inventory and the post-fence destructive manifest.';

-- New signatures (an extra defaulted argument): the old ones go.
drop function if exists community_deletion.freeze_inventory(uuid, jsonb);
drop function if exists community_deletion.approve(uuid, text, text, timestamptz, interval);

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
--! Included functions/_describe_store_identity.sql
-- One line for people naming a canonical store identity
-- (community_deletion._normalize_store_identity): "S3 <endpoint> bucket <b>,
-- Redis <server> database <n>".
create or replace function community_deletion._describe_store_identity(p_identity jsonb)
  returns text
  language sql
  immutable
  set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.format('S3 %s bucket %s, Redis %s database %s',
                           p_identity ->> 's3_endpoint', p_identity ->> 's3_bucket',
                           p_identity ->> 'redis_server', p_identity ->> 'redis_db')
$$;
--! EndIncluded functions/_describe_store_identity.sql
--! Included functions/_inventory_difference.sql
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
create or replace function community_deletion._inventory_difference(p_community uuid, p_inventory jsonb, p_destructive jsonb)
  returns jsonb
  language plpgsql
  stable
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
--! EndIncluded functions/_inventory_difference.sql
--! Included functions/freeze_inventory.sql
-- Operator API: freezes the inventory of a submitted request and moves it to
-- inventoried. The schema half is computed here in SQL after validating the
-- catalog (DL7C1 on drift); the storage half is the driver's summary of the
-- three owned prefixes, validated and canonicalised (DL1M1). The canonical
-- inventory is {"schema": …, "storage": …}; its digest is the lowercase hex
-- SHA-256 of its jsonb text, which approval later recomputes and binds to.
-- store_identity: the stores the storage summary was enumerated from (S3
-- endpoint + bucket, Redis server + database), normalised and recorded on the
-- request (community_deletion._normalize_store_identity); every executor step
-- must present the same (community_deletion.verify_store_identity). Without
-- it, the first executor step records its own.
create or replace function community_deletion.freeze_inventory(
  request_id uuid, storage_summary jsonb, store_identity jsonb default null)
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
  p_storage_manifest alias for $2;
  p_store_identity alias for $3;
  v_request community_deletion.requests;
  v_state text;
  v_schema jsonb;
  v_storage jsonb;
  v_inventory jsonb;
  v_store_identity jsonb;
begin
  perform community_deletion._apply_lock_timeout();
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is terminal (%)', p_request_id, v_request.stage using errcode = 'DL2T1';
  end if;
  if v_request.stage <> 'submitted' then
    raise exception 'deletion request % is at stage %, the inventory is frozen only at submitted',
      p_request_id, v_request.stage
      using errcode = 'DL2S1';
  end if;
  if v_request.blocked_at is not null then
    raise exception 'deletion request % is blocked: %', p_request_id, v_request.blocked_reason
      using errcode = 'DL2B1', hint = 'Remediate the cause, then run community_deletion.unblock.';
  end if;
  select c.deletion_state into v_state from public.communities c
   where c.id = v_request.community_id and c.deleted_at is null;
  if v_state is distinct from 'active' then
    raise exception 'community % of deletion request % is %, not active',
      v_request.community_id, p_request_id, coalesce(v_state, 'deleted')
      using errcode = 'DL2C1';
  end if;

  if p_store_identity is not null then
    v_store_identity := community_deletion._normalize_store_identity(p_store_identity, 'store_identity');
  end if;

  perform community_deletion.validate_catalog();
  v_storage := community_deletion._canonical_storage_summary(v_request.community_id, p_storage_manifest);
  v_schema := community_deletion._schema_manifest(v_request.community_id);
  v_inventory := jsonb_build_object('schema', v_schema, 'storage', v_storage);

  update community_deletion.requests r
     set stage = 'inventoried',
         schema_manifest = v_schema,
         storage_manifest = v_storage,
         inventory_manifest = v_inventory,
         inventory_digest = community_deletion._inventory_digest(v_inventory),
         inventory_frozen_at = now(),
         store_identity = v_store_identity,
         store_identity_recorded_at = case when v_store_identity is null then null else now() end,
         last_error = null,
         last_error_at = null,
         updated_at = now()
   where r.id = p_request_id and r.stage = 'submitted' and r.blocked_at is null
  returning r.* into v_request;
  return v_request;
end;
$$;
--! EndIncluded functions/freeze_inventory.sql
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
-- Abort stays possible throughout the grace period.
create or replace function community_deletion.approve(
  request_id uuid, approved_by text, note text default null,
  not_before timestamptz default null, delay interval default null, digest text default null)
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
--! Included functions/verify_store_identity.sql
-- Executor API: the stores this executor is configured for must be the ones
-- the request was inventoried against. The executor calls it with its
-- current store identity (S3 endpoint + bucket, Redis server + database; see
-- community_deletion._normalize_store_identity) and lease token at the start
-- of every step — right after the claim, before any effect, and so before
-- each destructive S3, PostgreSQL and Redis phase. Refusals: a stale token
-- (DL4L1); another identity (store_mismatch, DL4S1: permanent, the message
-- names the recorded and the presented stores, the hint what to do) — the
-- executor then records a block, before anything irreversible.
--
-- A request frozen without an identity (before the store-identity migration, or by a
-- DBA's freeze_inventory without store_identity) has it recorded here, by the
-- first executor step that presents one, with a checkpoint
-- store_identity_recorded; from then on every step is compared with it.
-- Returns the recorded canonical identity.
create or replace function community_deletion.verify_store_identity(
  request_id uuid, executor_id text, lease_generation bigint, store_identity jsonb)
  returns jsonb
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_identity alias for $4;
  v_identity jsonb := community_deletion._normalize_store_identity(p_identity, 'store_identity');
  v_request community_deletion.requests;
  v_differs text[];
begin
  perform community_deletion._apply_lock_timeout();
  -- Held until commit: a claim cannot take over between the check and the record.
  perform community_deletion._lock_request(p_request_id);
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id;
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, v_request.stage);

  if v_request.store_identity is null then
    update community_deletion.requests r
       set store_identity = v_identity, store_identity_recorded_at = now(), updated_at = now()
     where r.id = p_request_id and r.store_identity is null;
    perform community_deletion._checkpoint(p_request_id, v_request.stage, 'store_identity_recorded', 'completed', p_generation,
      jsonb_build_object('store_identity', v_identity,
                         'note', 'the inventory was frozen without a store identity; recorded at the first executor step'));
    return v_identity;
  end if;

  if v_request.store_identity = v_identity then
    return v_identity;
  end if;
  select array_agg(k order by k) into v_differs
    from jsonb_object_keys(v_identity) k
   where v_request.store_identity -> k is distinct from v_identity -> k;
  raise exception 'store mismatch for deletion request % (community %): it was inventoried against %, but this executor is configured for % (differing: %); nothing was touched. Run the executor with the recorded stores (BUZZ_S3_ENDPOINT, BUZZ_S3_BUCKET, REDIS_URL with its database), then `deletions unblock %` (community_deletion.unblock)',
    p_request_id, v_request.community_id,
    community_deletion._describe_store_identity(v_request.store_identity),
    community_deletion._describe_store_identity(v_identity),
    array_to_string(v_differs, ', '), p_request_id
    using errcode = 'DL4S1',
          hint = 'If the request really belongs to other stores, abort it (up to fenced) and submit again; past fenced, run it against the recorded stores.';
end;
$$;
--! EndIncluded functions/verify_store_identity.sql
--! Included functions/freeze_destructive_manifest.sql
-- Freezes the post-fence destructive storage manifest (executor API, stage
-- fenced). The manifest's per-prefix counts and chained digests must equal
-- what the stored key chunks hash to, recomputed here chunk by chunk (memory
-- bounded by one chunk, docs/manifest-format.md): chunk numbers contiguous
-- from 0, chunks grouped by prefix in the manifest's order, every chunk but a
-- prefix's last holding exactly chunk_size entries, entries canonical, under
-- their prefix and strictly ascending across chunks (the taxonomy match was
-- done per chunk on insert; chunks cannot change afterwards). Holds the
-- request row lock for the duration (~4 s per million entries, see
-- scripts/bench-freeze.sh), so appends and stamps cannot interleave.
-- Idempotent for the identical manifest; a different one is DL6K1; once
-- frozen the manifest and its chunks are immutable (triggers). With the
-- manifest it records destructive_difference: per table and per prefix what
-- appeared or vanished between the approved inventory and now
-- (community_deletion._inventory_difference), frozen like the manifest.
create or replace function community_deletion.freeze_destructive_manifest(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint,
  manifest jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_manifest alias for $5;
  v_request community_deletion.requests;
  v_manifest jsonb;
  v_prefixes jsonb;
  v_prefix_count integer;
  v_chunk_size integer;
  v_i integer := 0;                 -- index into v_prefixes of the prefix being hashed
  v_chain text := '';               -- h_k of the current prefix
  v_count bigint := 0;              -- entries hashed for the current prefix
  v_last_entry jsonb;               -- last entry of the previous chunk of the current prefix
  v_prev_short boolean := false;    -- previous chunk of the current prefix held < chunk_size entries
  v_expected_no integer := 0;
  v_total bigint := 0;
  v_chunk record;
  v_facts record;
begin
  -- Lock before reading the chunks: appends and the chunk guard wait on it.
  perform 1 from community_deletion.requests r where r.id = p_request_id for no key update;
  if not found then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'fenced', p_fence_generation);

  -- Shape (DL1M1): version 1, chunk_size, exactly the target's owned prefixes
  -- in byte order, integer counts, hex digests. The canonical form is what is
  -- stored and compared, so 3 and 3.0 are the same manifest.
  v_manifest := community_deletion._canonical_storage_summary(v_request.community_id, p_manifest, 'destructive storage manifest');

  if v_request.destructive_storage_manifest is not null then
    if v_request.destructive_storage_manifest = v_manifest then
      return;  -- the identical manifest is already frozen (a retried call)
    end if;
    raise exception 'request % (community %): a different destructive manifest is already frozen',
      p_request_id, v_request.community_id
      using errcode = 'DL6K1',
            hint = 'The frozen manifest is immutable; a drifted enumeration after the freeze is a safety failure to investigate.';
  end if;

  -- An admitted serving write still running could add an object the
  -- enumeration never saw.
  if cardinality(community_deletion._serving_writes_in_flight(v_request.community_id)) > 0 then
    raise exception 'request % (community %): serving-write leases are not released (live, or expired within settings.serving_lease_grace); the manifest cannot be frozen yet',
      p_request_id, v_request.community_id
      using errcode = 'DL5D1',
            hint = 'Wait for the admitted serving writes to finish or expire, then enumerate again.';
  end if;

  v_prefixes := v_manifest -> 'prefixes';
  v_prefix_count := jsonb_array_length(v_prefixes);
  v_chunk_size := (v_manifest ->> 'chunk_size')::integer;

  for v_chunk in
    select k.chunk_no, k.prefix, k.entries
    from community_deletion.manifest_keys k
    where k.request_id = p_request_id
    order by k.chunk_no
  loop
    if v_chunk.chunk_no <> v_expected_no then
      raise exception 'request % (community %): key chunk % is missing (found chunk % next)',
        p_request_id, v_request.community_id, v_expected_no, v_chunk.chunk_no
        using errcode = 'DL6K1';
    end if;

    -- Close every prefix before this chunk's one.
    while v_i < v_prefix_count and (v_prefixes -> v_i ->> 'prefix') <> v_chunk.prefix loop
      perform community_deletion._check_prefix_digest(p_request_id, v_request.community_id, v_prefixes -> v_i, v_count, v_chain);
      v_i := v_i + 1;
      v_chain := '';
      v_count := 0;
      v_last_entry := null;
      v_prev_short := false;
    end loop;
    if v_i >= v_prefix_count then
      raise exception 'request % (community %): key chunk % has prefix %, which is not in the manifest (or is out of prefix order)',
        p_request_id, v_request.community_id, v_chunk.chunk_no, v_chunk.prefix
        using errcode = 'DL6K1';
    end if;
    if v_prev_short then
      raise exception 'request % (community %): a chunk before key chunk % holds fewer than % entries but is not the last of prefix %',
        p_request_id, v_request.community_id, v_chunk.chunk_no, v_chunk_size, v_chunk.prefix
        using errcode = 'DL6K1';
    end if;

    -- No taxonomy pattern (null): the guard trigger matched every key on insert.
    v_facts := community_deletion._key_chunk_facts(v_chunk.entries, v_chunk.prefix, null);
    if v_facts.entry_count = 0 or v_facts.entry_count > v_chunk_size then
      raise exception 'request % (community %): key chunk % holds % entries (must be 1..%)',
        p_request_id, v_request.community_id, v_chunk.chunk_no, v_facts.entry_count, v_chunk_size
        using errcode = 'DL6K1';
    end if;
    if v_facts.bad_shape_at is not null or v_facts.outside_prefix_at is not null or v_facts.out_of_order_at is not null
       or (v_last_entry is not null and not community_deletion._manifest_entry_follows(v_last_entry, v_facts.first_entry)) then
      raise exception 'request % (community %): key chunk % has a malformed, foreign or out-of-order entry (malformed at %, outside the prefix at %, out of order at %)',
        p_request_id, v_request.community_id, v_chunk.chunk_no, v_facts.bad_shape_at, v_facts.outside_prefix_at,
        coalesce(v_facts.out_of_order_at, case when v_last_entry is not null then 1 end)
        using errcode = 'DL6K1';
    end if;

    v_chain := encode(sha256(convert_to(v_chain || v_facts.chunk_text, 'UTF8')), 'hex');
    v_count := v_count + v_facts.entry_count;
    v_total := v_total + v_facts.entry_count;
    v_last_entry := v_facts.last_entry;
    v_prev_short := v_facts.entry_count < v_chunk_size;
    v_expected_no := v_expected_no + 1;
  end loop;

  -- Close the current prefix and every prefix after it.
  while v_i < v_prefix_count loop
    perform community_deletion._check_prefix_digest(p_request_id, v_request.community_id, v_prefixes -> v_i, v_count, v_chain);
    v_i := v_i + 1;
    v_chain := '';
    v_count := 0;
  end loop;

  update community_deletion.requests r
     set destructive_storage_manifest = v_manifest,
         destructive_storage_frozen_at = now(),
         destructive_difference = community_deletion._inventory_difference(
           v_request.community_id, v_request.inventory_manifest, v_manifest),
         updated_at = now()
   where r.id = p_request_id
     and r.stage = 'fenced'
     and r.lease_owner = p_owner
     and r.lease_generation = p_generation
     and r.fence_generation = p_fence_generation
     and r.destructive_storage_manifest is null;
  if not found then
    raise exception 'request %: lease (owner %, generation %) lost before the destructive manifest froze',
      p_request_id, p_owner, p_generation
      using errcode = 'DL4L1';
  end if;

  perform community_deletion._checkpoint(p_request_id, 'fenced', 'freeze_destructive_manifest', 'completed', p_generation,
    jsonb_build_object('chunks', v_expected_no, 'entries', v_total, 'chunk_size', v_chunk_size,
                       'fence_generation', p_fence_generation));
end;
$$;
--! EndIncluded functions/freeze_destructive_manifest.sql
--! Included functions/tg_requests__protect_frozen_fields.sql
-- Keeps a request's evidence immutable (frozen_row, DL6F1): the target
-- (community_id, host), who asked and why, and creation time never change; the
-- frozen inventory (schema/storage/inventory manifests, digest, freeze time),
-- the destructive manifest (and its difference from the approved inventory),
-- the store identity and the pre-quiesce capture change only from unset to
-- set; lease and fence generations never go backwards (an old token must
-- never become current again); a terminal request (aborted,
-- retention_pending) never changes at all. Because the digest cannot change,
-- it cannot drift from the approval bound to it.
create or replace function community_deletion.tg_requests__protect_frozen_fields()
  returns trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_field text;
begin
  if community_deletion._stage_is_terminal(old.stage) and new is distinct from old then
    v_field := 'any column (the request is terminal: ' || old.stage || ')';
  elsif new.id is distinct from old.id then
    v_field := 'id';
  elsif new.community_id is distinct from old.community_id then
    v_field := 'community_id';
  elsif new.community_host is distinct from old.community_host then
    v_field := 'community_host';
  elsif new.requested_by is distinct from old.requested_by then
    v_field := 'requested_by';
  elsif new.requested_login is distinct from old.requested_login then
    v_field := 'requested_login';
  elsif new.reason is distinct from old.reason then
    v_field := 'reason';
  elsif new.created_at is distinct from old.created_at then
    v_field := 'created_at';
  elsif old.schema_manifest is not null and new.schema_manifest is distinct from old.schema_manifest then
    v_field := 'schema_manifest';
  elsif old.storage_manifest is not null and new.storage_manifest is distinct from old.storage_manifest then
    v_field := 'storage_manifest';
  elsif old.inventory_manifest is not null and new.inventory_manifest is distinct from old.inventory_manifest then
    v_field := 'inventory_manifest';
  elsif old.inventory_digest is not null and new.inventory_digest is distinct from old.inventory_digest then
    v_field := 'inventory_digest';
  elsif old.inventory_frozen_at is not null and new.inventory_frozen_at is distinct from old.inventory_frozen_at then
    v_field := 'inventory_frozen_at';
  elsif old.destructive_storage_manifest is not null
        and new.destructive_storage_manifest is distinct from old.destructive_storage_manifest then
    v_field := 'destructive_storage_manifest';
  elsif old.destructive_storage_frozen_at is not null
        and new.destructive_storage_frozen_at is distinct from old.destructive_storage_frozen_at then
    v_field := 'destructive_storage_frozen_at';
  elsif old.store_identity is not null
        and (new.store_identity is distinct from old.store_identity
             or new.store_identity_recorded_at is distinct from old.store_identity_recorded_at) then
    v_field := 'store_identity';
  elsif old.destructive_difference is not null
        and new.destructive_difference is distinct from old.destructive_difference then
    v_field := 'destructive_difference';
  elsif old.quiescing_started_at is not null
        and (new.quiescing_started_at is distinct from old.quiescing_started_at
             or new.pre_quiesce_archived_at is distinct from old.pre_quiesce_archived_at) then
    v_field := 'the pre-quiesce capture (quiescing_started_at, pre_quiesce_archived_at)';
  elsif new.lease_generation < old.lease_generation then
    v_field := 'lease_generation (it never decreases)';
  elsif old.fence_generation is not null
        and (new.fence_generation is null or new.fence_generation < old.fence_generation) then
    v_field := 'fence_generation (it never decreases)';
  end if;
  if v_field is not null then
    raise exception 'deletion request % is frozen: % cannot change', old.id, v_field
      using errcode = 'DL6F1';
  end if;
  return new;
end;
$$;
--! EndIncluded functions/tg_requests__protect_frozen_fields.sql
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
comment on function community_deletion.freeze_inventory(uuid, jsonb, jsonb) is
  'Freeze the request''s inventory: the SQL schema manifest plus the storage summary the driver enumerated, and the store identity it came from; computes the digest an approver approves.';
comment on function community_deletion.approve(uuid, text, text, timestamptz, interval, text) is
  'Approve the exact frozen inventory as a second operator; optional grace period (not_before or delay); optional digest (prefix, 8+ hex) the approver reviewed.';
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
comment on function community_deletion.plan(text) is
  'What a deletion of this host would remove from PostgreSQL (rows per registered table, in purge order), read-only: no request is created.';
comment on function community_deletion.write_fence_implementation() is
  'Which implementation the write-fence triggers execute: native or plpgsql.';

-- Executors (role community_deletion_executor); every call but claim presents
-- the lease token (request_id, executor_id, lease_generation).
comment on function community_deletion.claim(text, uuid, integer) is
  'Claim the oldest runnable request (or request_id) for executor_id; returns the lease token, or no row.';
comment on function community_deletion.verify_store_identity(uuid, text, bigint, jsonb) is
  'Raise DL4S1 unless the executor''s stores (S3 endpoint + bucket, Redis server + database) are the request''s recorded ones; records them for a request frozen without.';
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
  'Bindings_removed stage: the whole PostgreSQL purge and the tombstone in one transaction (grows with the tenant; the executor uses the batched path).';
comment on function community_deletion.purge_postgres_batch(uuid, text, bigint, bigint) is
  'Bindings_removed stage: one bounded batch of the purge (at most settings.purge_batch_rows rows) in its own transaction, resuming from the checkpoints.';
comment on function community_deletion.finish_postgres_purge(uuid, text, bigint, bigint) is
  'Bindings_removed stage: after the batches, prove every table empty, tombstone the community and move to postgres_purged.';
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

comment on column community_deletion.settings.purge_batch_rows is
  'The most rows one batch of the PostgreSQL purge removes or nulls (community_deletion.purge_postgres_batch): one short transaction each.';
comment on column community_deletion.settings.serving_lease_grace is
  'How long after it expired an unreleased serving-write lease still holds the fence back (its writer may have stalled mid-upload; S3 has no fence).';
--! EndIncluded engine/comments.sql
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
  select 15
$$;
--! EndIncluded functions/schema_version.sql
