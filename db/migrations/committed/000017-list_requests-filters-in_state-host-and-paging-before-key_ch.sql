--! Previous: sha1:72410e32a39cc95ebc10e0f8e698c753d155b6df
--! Hash: sha1:484ce7bea7ff712d8c560f729bc242221284a30d
--! Message: list_requests filters (in_state, host) and paging (before); key_chunk_progress counts object versions (entries_total, entries_deleted)

-- Enter migration here
-- list_requests gains filters and paging (in_state, host, before), all
-- defaulted so list_requests() and list_requests(n) keep working;
-- key_chunk_progress also counts object versions (entries_total,
-- entries_deleted). Both change their signature: drop, then recreate.
drop function if exists community_deletion.list_requests(integer);
drop function if exists community_deletion.key_chunk_progress(uuid);
--! Included functions/key_chunk_progress.sql
-- Progress of a request's frozen key chunks, for progress bars and inspect:
-- chunks (total, deleted) and the object versions they hold (entries_total,
-- entries_deleted: what an operator counts). All 0 once the chunks were
-- dropped at logically_verified.
create or replace function community_deletion.key_chunk_progress(request_id uuid)
  returns table (total integer, deleted integer, entries_total bigint, entries_deleted bigint)
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
begin
  if not exists (select 1 from community_deletion.requests r where r.id = p_request_id) then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  return query
    select count(*)::integer, count(k.deleted_at)::integer,
           coalesce(sum(k.entry_count), 0)::bigint,
           coalesce(sum(k.entry_count) filter (where k.deleted_at is not null), 0)::bigint
    from community_deletion.manifest_keys k
    where k.request_id = p_request_id;
end;
$$;
--! EndIncluded functions/key_chunk_progress.sql
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
comment on function community_deletion.list_requests(integer, text, text, uuid) is
  'Requests, newest first (max_rows 1..1000), each with its state and explanation; optional filters in_state and host, paging with before (a request id).';
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
comment on function community_deletion.installation_report() is
  'What protects this installation and what is degraded and why (native fence, DDL lock, DDL guard, RLS exemption) as jsonb.';
comment on function community_deletion.ddl_lock() is
  'Take the schema/destruction lock exclusively until the end of the transaction: call first in every migration where no event trigger does (managed servers).';

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
  'Key chunks and the object versions they hold, in total and already stamped deleted.';
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
      -- the explicit DDL lock (no event trigger on a managed server): every
      -- migrating role calls it, as every role's DDL runs the event trigger
      'ddl_lock',
      -- what is installed: `deletions migrate` asks as the migrating role,
      -- which holds none of the engine roles (they only answer)
      'schema_version', 'write_fence_implementation', 'installation_report',
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
  select 17
$$;
--! EndIncluded functions/schema_version.sql
