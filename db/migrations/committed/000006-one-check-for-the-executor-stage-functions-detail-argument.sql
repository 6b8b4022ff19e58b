--! Previous: sha1:992ac67fe5d5634910775e559761db19c6ce18be
--! Hash: sha1:0d507a756f253fa9b72810589da3964254372138
--! Message: One check for the executor stage functions' detail argument

-- One check for the executor stage functions' p_detail (a JSON object or
-- NULL, DL1I1 otherwise), instead of the same three lines in five functions.
--! Included require_detail_object.sql
-- The executor's stage functions take a p_detail (what the driver did:
-- counts, totals) that is merged into the stage's checkpoint; it must be a
-- JSON object or NULL (NULL means {}). Anything else is DL1I1, before any
-- change is made.
create or replace function public._deletion_require_detail_object(p_request_id uuid, p_detail jsonb)
  returns void
  language plpgsql
  immutable
  set search_path = ''
as $$
begin
  if p_detail is not null and pg_catalog.jsonb_typeof(p_detail) <> 'object' then
    raise exception 'request %: detail must be a JSON object, not %', p_request_id, pg_catalog.jsonb_typeof(p_detail)
      using errcode = 'DL1I1';
  end if;
end;
$$;
--! EndIncluded require_detail_object.sql
--! Included key_chunk_stamp.sql
-- Stamps one key chunk deleted and checkpoints drained/chunk:<n> in the same
-- transaction (executor API). One-way: a second stamp is DL6F1, an unknown
-- chunk DL6K1. The driver calls it only after every version in the chunk is
-- confirmed gone from the store.
create or replace function public.deletion_stamp_key_chunk(
  p_request_id uuid,
  p_owner text,
  p_generation bigint,
  p_fence_generation bigint,
  p_chunk_no integer,
  p_detail jsonb default '{}'::jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
declare
  v_request public.community_deletion_requests;
  v_entry_count integer;
begin
  v_request := public._deletion_verify_lease_and_fence(p_request_id, p_owner, p_generation, 'drained', p_fence_generation);
  perform public._deletion_require_detail_object(p_request_id, p_detail);
  update public.community_deletion_manifest_keys k
     set deleted_at = now()
   where k.request_id = p_request_id and k.chunk_no = p_chunk_no and k.deleted_at is null
  returning k.entry_count into v_entry_count;
  if not found then
    if exists (select 1 from public.community_deletion_manifest_keys k
               where k.request_id = p_request_id and k.chunk_no = p_chunk_no) then
      raise exception 'request % (community %): key chunk % is already stamped deleted',
        p_request_id, v_request.community_id, p_chunk_no
        using errcode = 'DL6F1';
    end if;
    raise exception 'request % (community %): there is no key chunk %', p_request_id, v_request.community_id, p_chunk_no
      using errcode = 'DL6K1';
  end if;
  perform public._deletion_checkpoint(p_request_id, 'drained', 'chunk:' || p_chunk_no, 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb) || jsonb_build_object('entries', v_entry_count));
end;
$$;
--! EndIncluded key_chunk_stamp.sql
--! Included mark_bindings_removed.sql
-- drained → bindings_removed (executor API): only when every frozen key chunk
-- is stamped deleted (DL6K2 otherwise) and the chunks still add up to the
-- manifest's entry count. p_detail (the driver's deletion totals) is kept in
-- the drained/remove_storage_bindings checkpoint.
create or replace function public.deletion_mark_bindings_removed(
  p_request_id uuid,
  p_owner text,
  p_generation bigint,
  p_fence_generation bigint,
  p_detail jsonb default '{}'::jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
declare
  v_request public.community_deletion_requests;
  v_total integer;
  v_pending integer;
  v_entries bigint;
  v_manifest_entries bigint;
begin
  v_request := public._deletion_verify_lease_and_fence(p_request_id, p_owner, p_generation, 'drained', p_fence_generation);
  perform public._deletion_require_detail_object(p_request_id, p_detail);
  if v_request.destructive_storage_manifest is null then
    raise exception 'request % (community %) has no frozen destructive manifest', p_request_id, v_request.community_id
      using errcode = 'DL2S1';
  end if;
  select count(*)::integer, count(*) filter (where k.deleted_at is null)::integer, coalesce(sum(k.entry_count), 0)
    into v_total, v_pending, v_entries
  from public.community_deletion_manifest_keys k
  where k.request_id = p_request_id;
  if v_pending > 0 then
    raise exception 'request % (community %): % of % key chunks are not yet stamped deleted',
      p_request_id, v_request.community_id, v_pending, v_total
      using errcode = 'DL6K2',
            hint = 'Delete and stamp every chunk returned by deletion_next_key_chunk first.';
  end if;
  select coalesce(sum((p ->> 'object_count')::bigint), 0) into v_manifest_entries
  from jsonb_array_elements(v_request.destructive_storage_manifest -> 'prefixes') p;
  if v_entries <> v_manifest_entries then
    raise exception 'request % (community %): the key chunks hold % entries but the frozen manifest lists %',
      p_request_id, v_request.community_id, v_entries, v_manifest_entries
      using errcode = 'DL6K1';
  end if;
  perform public._deletion_advance(p_request_id, p_owner, p_generation, 'drained', 'bindings_removed', p_fence_generation);
  perform public._deletion_checkpoint(p_request_id, 'drained', 'remove_storage_bindings', 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb) || jsonb_build_object('chunks', v_total, 'entries', v_entries));
end;
$$;
--! EndIncluded mark_bindings_removed.sql
--! Included mark_cache_purged.sql
-- postgres_purged → cache_purged (executor API) after the driver's Redis
-- SCAN + UNLINK of buzz:<id>:*; p_detail (its counts) is kept in the
-- postgres_purged/purge_cache_namespace checkpoint.
create or replace function public.deletion_mark_cache_purged(
  p_request_id uuid,
  p_owner text,
  p_generation bigint,
  p_fence_generation bigint,
  p_detail jsonb default '{}'::jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
begin
  perform public._deletion_verify_lease_and_fence(p_request_id, p_owner, p_generation, 'postgres_purged', p_fence_generation);
  perform public._deletion_require_detail_object(p_request_id, p_detail);
  perform public._deletion_advance(p_request_id, p_owner, p_generation, 'postgres_purged', 'cache_purged', p_fence_generation);
  perform public._deletion_checkpoint(p_request_id, 'postgres_purged', 'purge_cache_namespace', 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb));
end;
$$;
--! EndIncluded mark_cache_purged.sql
--! Included mark_logically_verified.sql
-- cache_purged → logically_verified (executor API), after the driver proved
-- the three prefixes and the Redis namespace empty (p_detail records it). The
-- PostgreSQL absence proof is repeated in this transaction, under the shared
-- schema-destruction lock with the catalog re-validated, so the transition
-- commits only together with a passing proof. The key chunks are dropped in
-- the same transaction: a deleted community's key list is not retained (the
-- manifest's counts and digests stay on the request).
create or replace function public.deletion_mark_logically_verified(
  p_request_id uuid,
  p_owner text,
  p_generation bigint,
  p_fence_generation bigint,
  p_detail jsonb default '{}'::jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
declare
  v_request public.community_deletion_requests;
  v_checked integer;
  v_dropped integer;
begin
  perform public._deletion_lock_schema_destruction_shared();
  perform public.deletion_validate_catalog();
  v_request := public._deletion_verify_lease_and_fence(p_request_id, p_owner, p_generation, 'cache_purged', p_fence_generation);
  perform public._deletion_require_detail_object(p_request_id, p_detail);
  v_checked := public._deletion_prove_postgres_absence(p_request_id, v_request.community_id, p_fence_generation);
  perform public._deletion_advance(p_request_id, p_owner, p_generation, 'cache_purged', 'logically_verified', p_fence_generation);
  -- The chunk guard admits this delete only now that the stage is logically_verified.
  delete from public.community_deletion_manifest_keys k where k.request_id = p_request_id;
  get diagnostics v_dropped = row_count;
  perform public._deletion_checkpoint(p_request_id, 'cache_purged', 'verify_cross_store_absence', 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb)
      || jsonb_build_object('postgres_tables_checked', v_checked, 'key_chunks_dropped', v_dropped));
end;
$$;
--! EndIncluded mark_logically_verified.sql
--! Included mark_retention_pending.sql
-- logically_verified → retention_pending (executor API): the request is
-- completed, its lease released and its retry state cleared (by
-- _deletion_advance, which does all three on entering the terminal stage).
-- What remains is physical expiry outside the engine (backups, WAL, object
-- versions held by provider retention); p_detail records what the driver
-- reports about it.
create or replace function public.deletion_mark_retention_pending(
  p_request_id uuid,
  p_owner text,
  p_generation bigint,
  p_fence_generation bigint,
  p_detail jsonb default '{}'::jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
begin
  perform public._deletion_verify_lease_and_fence(p_request_id, p_owner, p_generation, 'logically_verified', p_fence_generation);
  perform public._deletion_require_detail_object(p_request_id, p_detail);
  perform public._deletion_checkpoint(p_request_id, 'logically_verified', 'retention_physical_expiry_pending', 'completed',
    p_generation, coalesce(p_detail, '{}'::jsonb));
  perform public._deletion_advance(p_request_id, p_owner, p_generation, 'logically_verified', 'retention_pending', p_fence_generation);
end;
$$;
--! EndIncluded mark_retention_pending.sql
--! Included grants.sql
-- Ownership and privileges of the engine (least privilege). Data-driven and
-- re-runnable: every function in schema public named deletion_*, _deletion_*,
-- tg_* or *community_write_allowed is owned by community_deletion_owner, loses
-- EXECUTE for PUBLIC and the engine roles, and regains it only per the mapping
-- below. A function missing from the mapping is executable by its owner only
-- (fail closed); db/tests/roles/every_engine_function_is_mapped.test.sql fails
-- until it is mapped. Listed LAST in _index_fence.sql so it covers the
-- functions of every workstream; re-include it after adding functions.
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
do $$
declare
  v_fn record;
  v_role text;
  v_map jsonb := pg_catalog.jsonb_build_object(
    'community_deletion_operator', pg_catalog.jsonb_build_array(
      'deletion_submit', 'deletion_freeze_inventory', 'deletion_approve', 'deletion_abort', 'deletion_unblock',
      'deletion_inspect', 'deletion_list', 'deletion_storage_taxonomy', 'deletion_key_chunk_progress',
      'deletion_validate_catalog', 'deletion_validate_serving_catalog',
      'deletion_serving_lease_stats', 'deletion_serving_lease_reap',
      'deletion_record_taxonomy_sweep', 'deletion_latest_taxonomy_sweep', 'deletion_write_fence_implementation'),
    'community_deletion_executor', pg_catalog.jsonb_build_array(
      'deletion_claim', 'deletion_verify_token', 'deletion_lease_state', 'deletion_heartbeat', 'deletion_release',
      'deletion_executor_stopped',
      'deletion_record_failure', 'deletion_block', 'deletion_block_preclaim',
      'deletion_begin_quiescing', 'deletion_fence',
      'deletion_append_key_chunk', 'deletion_clear_key_chunks', 'deletion_freeze_destructive_manifest',
      'deletion_mark_drained', 'deletion_next_key_chunk', 'deletion_stamp_key_chunk', 'deletion_key_chunk_progress',
      'deletion_mark_bindings_removed', 'deletion_purge_postgres', 'deletion_mark_cache_purged',
      'deletion_verify_postgres_absence', 'deletion_mark_logically_verified', 'deletion_mark_retention_pending',
      'deletion_inspect', 'deletion_storage_taxonomy', 'deletion_validate_catalog',
      'deletion_serving_lease_stats', 'deletion_serving_lease_reap', 'deletion_write_fence_implementation'),
    'community_deletion_app', pg_catalog.jsonb_build_array(
      'deletion_serving_lease_acquire', 'deletion_serving_lease_renew', 'deletion_serving_lease_verify',
      'deletion_serving_lease_release', 'deletion_serving_lease_guard', 'deletion_validate_serving_catalog',
      'deletion_write_fence_implementation'),
    'public', pg_catalog.jsonb_build_array(
      'community_write_allowed', 'assert_community_write_allowed', '_deletion_require_read_committed',
      '_deletion_community_lock_key', '_deletion_serving_write_granted', '_deletion_schema_destruction_lock_key'));
begin
  for v_fn in
    select p.oid::pg_catalog.regprocedure as sig, p.proname::text as name
      from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
     where n.nspname = 'public'
       and (p.proname like 'deletion\_%' or p.proname like '\_deletion\_%' or p.proname like 'tg\_%'
            or p.proname in ('community_write_allowed', 'assert_community_write_allowed'))
     order by 1
  loop
    execute format('alter function %s owner to community_deletion_owner', v_fn.sig);
    execute format('revoke all on function %s from public, community_deletion_operator, '
                   'community_deletion_executor, community_deletion_app', v_fn.sig);
    for v_role in select k from pg_catalog.jsonb_object_keys(v_map) k where v_map -> k ? v_fn.name loop
      execute format('grant execute on function %s to %s', v_fn.sig,
                     case when v_role = 'public' then 'public' else pg_catalog.quote_ident(v_role) end);
    end loop;
  end loop;

  -- Tables. Start from nothing for the three client roles.
  revoke all on all tables in schema public from community_deletion_operator, community_deletion_executor,
    community_deletion_app, community_deletion_owner;
  revoke all on all sequences in schema public from community_deletion_operator, community_deletion_executor,
    community_deletion_app, community_deletion_owner;

  -- The owner (the engine's security-definer code) reads and writes every table:
  -- control plane, registries, communities (lifecycle), scoped (purge),
  -- provenance (nulling). Never TRUNCATE, never DDL.
  grant select, insert, update, delete on all tables in schema public to community_deletion_owner;
  grant usage, select on all sequences in schema public to community_deletion_owner;

  -- The application writer: its tenant data, and communities except the
  -- engine-owned lifecycle columns (deletion_state, deletion_fence_generation,
  -- deleted_at) — column privileges refuse those outright (42501), and the
  -- lifecycle guard trigger refuses them for everyone else (DL8T1).
  grant select on public.communities to community_deletion_app;
  grant insert (id, host, name, signing_key, icon, settings, created_at, archived_at) on public.communities
    to community_deletion_app;
  grant update (host, name, signing_key, icon, settings, archived_at) on public.communities
    to community_deletion_app;
  for v_fn in
    select r.table_name from public.community_deletion_tables r
     where r.kind in ('scoped', 'provenance') and pg_catalog.to_regclass(format('public.%I', r.table_name)) is not null
  loop
    execute format('grant select, insert, update, delete on public.%I to community_deletion_app', v_fn.table_name);
  end loop;

  -- Operators read the control plane, registries and communities (psql
  -- inspection); every change goes through the functions.
  grant select on public.communities to community_deletion_operator;
  for v_fn in
    select c.relname::text as table_name
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind in ('r', 'p')
       and (c.relname like 'community\_deletion\_%' or c.relname like 'community\_serving\_%'
            or c.relname like 'storage\_taxonomy\_%')
  loop
    execute format('grant select on public.%I to community_deletion_operator', v_fn.table_name);
  end loop;
  -- The executor gets no table privileges: it only calls functions.
end;
$$;
--! EndIncluded grants.sql
