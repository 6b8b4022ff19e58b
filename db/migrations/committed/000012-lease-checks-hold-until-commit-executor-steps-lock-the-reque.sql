--! Previous: sha1:a3005fb18024f02573213f37449d00442bb5f936
--! Hash: sha1:b9018f897ec3fc9e59eee030c723253765a6f0b4
--! Message: Lease checks hold until commit: executor steps lock the request row before verifying (model finding F1)

-- Lease checks that hold until commit (found by the protocol model,
-- model/README.md F1): stamp_key_chunk, begin_quiescing,
-- verify_postgres_absence and the purge functions lock the request row
-- (community_deletion._lock_request) before they verify the lease, so a
-- successor's claim can no longer slip in between an executor's check and its
-- effect — a stale executor's stamp used to commit after a takeover and make
-- the successor's own stamp fail (DL6F1), blocking the request for nothing.
--! Included functions/_lock_request.sql
-- Locks the request row FOR NO KEY UPDATE until the end of the transaction
-- (DL1N1 when there is none). Executor steps call it before they verify the
-- lease, so a verification stays true until they commit: a concurrent claim
-- (FOR UPDATE SKIP LOCKED) skips the row instead of taking the request over
-- between the check and the effect, and a claim that committed first fails
-- the verification (DL4L1). Lock order: after the community advisory lock,
-- if the step takes one (docs/design.md#ordering). Found by the protocol
-- model (model/README.md, F1): a stamp that verified with a plain read could
-- commit after a successor claimed the request.
create or replace function community_deletion._lock_request(p_request_id uuid)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  perform 1 from community_deletion.requests r where r.id = p_request_id for no key update;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
end;
$$;
--! EndIncluded functions/_lock_request.sql
--! Included functions/stamp_key_chunk.sql
-- Stamps one key chunk deleted and checkpoints drained/chunk:<n> in the same
-- transaction (executor API). One-way: a second stamp is DL6F1, an unknown
-- chunk DL6K1. The driver calls it only after every version in the chunk is
-- confirmed gone from the store.
create or replace function community_deletion.stamp_key_chunk(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint,
  chunk_no integer,
  detail jsonb default '{}'::jsonb)
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
  p_chunk_no alias for $5;
  p_detail alias for $6;
  v_request community_deletion.requests;
  v_entry_count integer;
begin
  -- The request row first: the verification below then holds until commit.
  perform community_deletion._lock_request(p_request_id);
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'drained', p_fence_generation);
  perform community_deletion._require_detail_object(p_request_id, p_detail);
  update community_deletion.manifest_keys k
     set deleted_at = now()
   where k.request_id = p_request_id and k.chunk_no = p_chunk_no and k.deleted_at is null
  returning k.entry_count into v_entry_count;
  if not found then
    if exists (select 1 from community_deletion.manifest_keys k
               where k.request_id = p_request_id and k.chunk_no = p_chunk_no) then
      raise exception 'request % (community %): key chunk % is already stamped deleted',
        p_request_id, v_request.community_id, p_chunk_no
        using errcode = 'DL6F1';
    end if;
    raise exception 'request % (community %): there is no key chunk %', p_request_id, v_request.community_id, p_chunk_no
      using errcode = 'DL6K1';
  end if;
  perform community_deletion._checkpoint(p_request_id, 'drained', 'chunk:' || p_chunk_no, 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb) || jsonb_build_object('entries', v_entry_count));
end;
$$;
--! EndIncluded functions/stamp_key_chunk.sql
--! Included functions/begin_quiescing.sql
-- approved stage, step 1 (docs/design.md#lifecycle): persist "quiescing" so no new serving-write
-- lease is admitted while admitted ones may renew and finish. Order matters:
-- verify the lease, take the community lock EXCLUSIVELY (waits for every open
-- writer and acquisition holding it shared), verify the lease AGAIN (an abort
-- that won the lock while we waited has terminalised the request and bumped the
-- generation: we must fail with stale_lease DL4L1, never re-quiesce a rescued
-- community), take the schema/destruction lock shared and then ACCESS SHARE
-- on every scoped table (a TRUNCATE in progress finishes first, a later one
-- sees quiescing), re-check the catalog
-- (catalog_drift DL7C1: never start closing a tenant whose tables are not all
-- fenced), capture the pre-quiesce archived_at once, then move the
-- community active → quiescing (archived_at set if it was not). Idempotent
-- while the community is already quiescing. Checkpoint
-- approved/quiesce_serving_writes.
create or replace function community_deletion.begin_quiescing(request_id uuid, executor_id text, lease_generation bigint)
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
  v_request community_deletion.requests;
  v_community public.communities;
begin
  perform community_deletion._require_read_committed('community_deletion.begin_quiescing');
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_community_for_transition(v_request.community_id);
  perform community_deletion._lock_request(p_request_id);
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion._lock_scoped_tables_shared();
  perform community_deletion.validate_catalog();
  select c.* into v_community from public.communities c where c.id = v_request.community_id for update;
  if v_community.deletion_state is distinct from 'active' and v_community.deletion_state is distinct from 'quiescing' then
    raise exception 'community % of request % is %, it cannot enter quiescing',
      v_request.community_id, p_request_id, coalesce(v_community.deletion_state, 'missing')
      using errcode = 'DL2C1';
  end if;
  update community_deletion.requests r
     set pre_quiesce_archived_at = v_community.archived_at,
         quiescing_started_at = now(),
         updated_at = now()
   where r.id = p_request_id and r.quiescing_started_at is null;
  update public.communities c
     set deletion_state = 'quiescing',
         archived_at = coalesce(c.archived_at, now())
   where c.id = v_request.community_id and c.deletion_state in ('active', 'quiescing')
     and c.deletion_fence_generation = v_community.deletion_fence_generation;
  if not found then
    raise exception 'community % of request % changed while entering quiescing', v_request.community_id, p_request_id
      using errcode = 'DL4L1';
  end if;
  perform community_deletion._checkpoint(p_request_id, 'approved', 'quiesce_serving_writes', 'completed', p_generation,
    pg_catalog.jsonb_build_object('community_state', 'quiescing',
                                  'fence_generation', v_community.deletion_fence_generation,
                                  'pre_quiesce_archived_at', v_community.archived_at));
end;
$$;
--! EndIncluded functions/begin_quiescing.sql
--! Included functions/verify_postgres_absence.sql
-- PostgreSQL logical-absence proof at cache_purged (executor API). Does not
-- advance: the driver proves S3 and Redis absence next and then calls
-- community_deletion.mark_logically_verified, which repeats this proof atomically with
-- the transition. Records a cache_purged/verify_postgres_absence checkpoint.
create or replace function community_deletion.verify_postgres_absence(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint)
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
  v_request community_deletion.requests;
  v_checked integer;
begin
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  perform community_deletion._lock_request(p_request_id);
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'cache_purged', p_fence_generation);
  v_checked := community_deletion._prove_postgres_absence(p_request_id, v_request.community_id, p_fence_generation);
  perform community_deletion._checkpoint(p_request_id, 'cache_purged', 'verify_postgres_absence', 'completed', p_generation,
    jsonb_build_object('tables_checked', v_checked, 'fence_generation', p_fence_generation));
end;
$$;
--! EndIncluded functions/verify_postgres_absence.sql
--! Included functions/purge_postgres_batch.sql
-- bindings_removed (executor API): one bounded batch of the PostgreSQL purge,
-- in its own transaction. Under the shared schema-destruction lock (a
-- migration waits for at most this batch, never the whole purge), with the
-- catalog re-validated, the community lock held exclusively (batches of the
-- request never interleave) and lease and fence generation verified, it
-- removes at most settings.purge_batch_rows rows, continuing where the
-- checkpoints say (community_deletion._purge_batch: provenance nulled first,
-- then the scoped tables in purge order, each table's checkpoint carrying its
-- running total). The stage does not move: once a batch returns "done",
-- community_deletion.finish_postgres_purge proves every table empty,
-- tombstones the community and advances, in one short transaction. A crash
-- inside a batch loses only that batch (nothing of it committed); between
-- batches the community stays fenced and only a later batch can touch it
-- (abort is refused from drained on); a blocked or superseded request is
-- refused here (DL2B1, DL4L1) and stops between batches.
-- Returns {"rows": this batch, "done": bool, "purged_rows": total so far,
-- "inventoried_rows": what the frozen inventory counted}.
create or replace function community_deletion.purge_postgres_batch(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint)
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
  p_fence_generation alias for $4;
  v_request community_deletion.requests;
  v_batch jsonb;
  v_totals jsonb;
begin
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'bindings_removed', p_fence_generation);
  perform community_deletion._lock_community_for_transition(v_request.community_id);
  perform community_deletion._lock_request(p_request_id);
  -- Verified again under the community lock and the request row lock: a
  -- successor's claim or batch, or an abort, that went first is seen now, and
  -- none can overtake this batch before it commits.
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'bindings_removed', p_fence_generation);
  perform set_config('community_deletion.read_state_hard_delete', 'on', true);
  v_batch := community_deletion._purge_batch(p_request_id, v_request.community_id, 'bindings_removed', p_generation,
    (select s.purge_batch_rows from community_deletion.settings s));
  perform set_config('community_deletion.read_state_hard_delete', 'off', true);
  v_totals := community_deletion._purge_totals(p_request_id, 'bindings_removed');
  return v_batch || jsonb_build_object('purged_rows', v_totals -> 'purged_rows', 'inventoried_rows', v_totals -> 'inventoried_rows');
end;
$$;
--! EndIncluded functions/purge_postgres_batch.sql
--! Included functions/finish_postgres_purge.sql
-- bindings_removed → postgres_purged (executor API): the last, short
-- transaction of the batched PostgreSQL purge, after
-- community_deletion.purge_postgres_batch returned "done". Same locks and
-- verification as a batch; then community_deletion._finish_postgres_purge:
-- every purge unit completed (DL6P1 otherwise), the community tombstoned,
-- every registered table proven empty for it in the same transaction (DL9A1),
-- and the stage advanced. A replay with the same token finds the request at
-- postgres_purged: DL4L1. Returns {"deleted": {table: rows},
-- "provenance_cleared": {table: rows}} (totals over every batch).
create or replace function community_deletion.finish_postgres_purge(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint)
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
  p_fence_generation alias for $4;
  v_request community_deletion.requests;
begin
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'bindings_removed', p_fence_generation);
  perform community_deletion._lock_community_for_transition(v_request.community_id);
  perform community_deletion._lock_request(p_request_id);
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'bindings_removed', p_fence_generation);
  return community_deletion._finish_postgres_purge(v_request, p_owner, p_generation, p_fence_generation);
end;
$$;
--! EndIncluded functions/finish_postgres_purge.sql
--! Included functions/purge_postgres.sql
-- bindings_removed → postgres_purged (executor API): the whole PostgreSQL
-- purge in ONE transaction — the remaining work of every purge unit without a
-- row limit (community_deletion._purge_batch), then
-- community_deletion._finish_postgres_purge (every table proven empty, the
-- tombstone, the advance) — under the shared schema-destruction lock, the
-- re-validated catalog, the exclusive community lock and a verified lease and
-- fence generation. Kept for DBAs and small tenants: its transaction grows
-- with the tenant (the schema lock, the xmin horizon and one large commit are
-- held for all of it). The executor uses the batched path instead:
-- community_deletion.purge_postgres_batch until "done", then
-- community_deletion.finish_postgres_purge — each batch its own bounded
-- transaction, resumable from the per-table checkpoints; both paths keep the
-- same checkpoints and may follow each other. Returns {"deleted": {table:
-- rows}, "provenance_cleared": {table: rows}}. A replay with the same token
-- finds the request at postgres_purged: DL4L1.
create or replace function community_deletion.purge_postgres(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint)
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
  p_fence_generation alias for $4;
  v_request community_deletion.requests;
begin
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'bindings_removed', p_fence_generation);
  perform community_deletion._lock_community_for_transition(v_request.community_id);
  perform community_deletion._lock_request(p_request_id);
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'bindings_removed', p_fence_generation);
  perform set_config('community_deletion.read_state_hard_delete', 'on', true);
  perform community_deletion._purge_batch(p_request_id, v_request.community_id, 'bindings_removed', p_generation, null);
  perform set_config('community_deletion.read_state_hard_delete', 'off', true);
  return community_deletion._finish_postgres_purge(v_request, p_owner, p_generation, p_fence_generation);
end;
$$;
--! EndIncluded functions/purge_postgres.sql
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
  select 12
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
