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
