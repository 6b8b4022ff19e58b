--! Previous: sha1:42ae70efbb9ceb47995aa06a5cc3f38b169774ce
--! Hash: sha1:a6eff50bc38dd148054398b77b8c78f93ca4226b
--! Message: freeze_inventory requires store_identity (a request frozen without one adopted the first executor's Redis: a mistyped database proved an empty namespace)

-- freeze_inventory requires store_identity (invalid_argument, DL1I1, before
-- anything is recorded). A request frozen without one adopted the first
-- executor's stores; the adoption check (000032) compares the S3 object
-- count with the approved inventory, but nothing in an inventory tells a
-- mistyped Redis server or database from the right one: the engine purged
-- and proved an empty namespace, the keys kept. Requests frozen without an
-- identity before this migration still adopt as before.
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
-- must present the same (community_deletion.verify_store_identity). It is
-- required (invalid_argument, DL1I1, before anything is recorded): a request
-- frozen without one would adopt the first executor's stores, and nothing in
-- the inventory can tell a mistyped Redis server or database from the right
-- one — the engine would purge and prove an empty namespace (the keys kept).
-- `deletions plan --json` prints the identity beside the storage summary.
-- Only the login that submitted the request freezes its inventory
-- (not_the_requester, DL3A3): the approver, from another login, must not
-- produce what they then approve (docs/security.md#two-person-rule). A
-- request submitted before logins were recorded has no login to compare.
create or replace function community_deletion.freeze_inventory(
  request_id uuid, storage_summary jsonb, store_identity jsonb default null)
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
  if v_request.requested_login is not null and v_request.requested_login <> session_user then
    raise exception 'deletion request % was submitted by the database login %; the login % cannot freeze its inventory',
      p_request_id, v_request.requested_login, session_user
      using errcode = 'DL3A3',
            hint = 'The requester freezes the inventory (deletions submit, from their own login); a second operator approves it.';
  end if;
  select c.deletion_state into v_state from public.communities c
   where c.id = v_request.community_id and c.deleted_at is null;
  if v_state is distinct from 'active' then
    raise exception 'community % of deletion request % is %, not active',
      v_request.community_id, p_request_id, coalesce(v_state, 'deleted')
      using errcode = 'DL2C1';
  end if;

  if p_store_identity is null or pg_catalog.jsonb_typeof(p_store_identity) = 'null' then
    raise exception 'store_identity is required: the S3 endpoint and bucket and the Redis server and database the storage summary was enumerated from'
      using errcode = 'DL1I1',
            hint = 'Pass store_identity => the "store_identity" object `deletions plan --json` prints (docs/psql-walkthrough.sql); without it an executor configured for another Redis database would prove an empty namespace.';
  end if;
  v_store_identity := community_deletion._normalize_store_identity(p_store_identity, 'store_identity');

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
-- A request frozen without an identity (before the store-identity migration,
-- or by a DBA's freeze_inventory without store_identity before migration
-- 000037 made it required) has it recorded here, by the first executor step
-- that presents one, with a checkpoint store_identity_recorded; from then on
-- every step is compared with it.
-- Returns the recorded canonical identity.
create or replace function community_deletion.verify_store_identity(
  request_id uuid, executor_id text, lease_generation bigint, store_identity jsonb)
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
  select 37
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
