--! Previous: sha1:330bd291492fcb4ff42758dd323e7d9d47eceaa1
--! Hash: sha1:817a91a143f73a71b17d28b31dd5c9ed88cb0b23
--! Message: Code the planner would run as the engine owner on every read of public.communities is refused when it is added (_guard_communities_planner_code, DL7C2)

-- DDL that adds code the planner would run as the engine owner on every
-- read of public.communities — an index expression or predicate, a
-- statistics expression, a domain constraint calling an untrusted function —
-- is refused when it is added (_guard_communities_planner_code, DL7C2, from
-- the ddl_command_end event trigger): every engine function reads
-- communities, the write fence on every application write among them, so
-- no check right before a read could lock and refuse it in time. Only
-- commands that touch communities, an index or statistics object on it, or
-- a type are checked: code that predates the engine (validate_catalog
-- reports it) does not stop unrelated DDL.
--! Included functions/_guard_communities_planner_code.sql
-- Refuses (protected_table_ddl, DL7C2) a DDL command that adds code the
-- planner would run as the engine owner on every read of
-- public.communities: an index expression or predicate, an extended
-- statistics expression, or a constraint of a domain a column is built
-- from, calling a function neither a superuser nor the engine owner owns
-- (_invoker_code_problems, event 'select'). PostgreSQL folds an immutable
-- function with constant arguments — and whatever it calls — when it loads
-- them to plan a statement, as the role planning; every engine function
-- reads communities (the write fence on every application write among
-- them), so such code would run as community_deletion_owner before any
-- check could lock the table and refuse it. Checked only when the command
-- touched communities, an index or statistics object on it, or a domain or
-- type (pg_event_trigger_ddl_commands: callable only inside the
-- ddl_command_end event trigger, _110_guard_registered_tables), so code
-- that was there before the engine was installed — validate_catalog reports
-- it, DL7C1 — does not stop unrelated DDL. Security definer, executable by
-- every role: the DDL may come from the owner of communities; it only answers.
create or replace function community_deletion._guard_communities_planner_code()
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
declare
  v_rel pg_catalog.regclass := pg_catalog.to_regclass('public.communities');
  v_problems text[];
begin
  if v_rel is null then
    return;
  end if;
  if not exists (
    select 1 from pg_catalog.pg_event_trigger_ddl_commands() c
     where (c.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
            and (c.objid = v_rel::oid
                 or exists (select 1 from pg_catalog.pg_index i where i.indexrelid = c.objid and i.indrelid = v_rel::oid)))
        or (c.classid = 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass
            and exists (select 1 from pg_catalog.pg_statistic_ext s where s.oid = c.objid and s.stxrelid = v_rel::oid))
        or c.classid = 'pg_catalog.pg_type'::pg_catalog.regclass) then
    return;
  end if;
  -- (Row-level security is left to validate_catalog: the engine's functions
  -- set row_security off, so a policy never runs as the engine owner.)
  select pg_catalog.array_agg(p order by p) into v_problems
    from pg_catalog.unnest(community_deletion._invoker_code_problems(v_rel, 'select')) p
   where p not like 'row-level security%';
  if pg_catalog.cardinality(v_problems) > 0 then
    raise exception 'community deletion: refused DDL on public.communities: % — the planner would run it as the engine owner on every read of communities',
      pg_catalog.array_to_string(v_problems, ', ')
      using errcode = 'DL7C2',
            hint = 'Use only functions a superuser owns in indexes, statistics and domains of public.communities, '
                   'or leave the expression out (docs/security.md#table-owners).';
  end if;
end;
$$;
--! EndIncluded functions/_guard_communities_planner_code.sql
--! Included functions/tg_ddl__guard_registered_tables.sql
-- Event trigger function (ddl_command_end, _110_guard_registered_tables):
-- after any DROP (DROP TRIGGER reports nothing to ddl_command_end's command
-- list) and any other command that touched a non-temporary object (GRANT,
-- REVOKE, COMMENT, SECURITY LABEL and ALTER DEFAULT PRIVILEGES cannot weaken
-- a trigger), refuses it if it weakened the guards of a registered table
-- (_guard_registered_tables, DL7C2) or added code the planner would run as
-- the engine owner on every read of public.communities
-- (_guard_communities_planner_code, DL7C2). Runs as whoever issued the DDL and calls
-- only what PUBLIC may execute.
create or replace function community_deletion.tg_ddl__guard_registered_tables()
  returns event_trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  if tg_tag like 'DROP %'
     or (tg_tag not in ('GRANT', 'REVOKE', 'COMMENT', 'SECURITY LABEL', 'ALTER DEFAULT PRIVILEGES')
         and exists (select 1 from pg_catalog.pg_event_trigger_ddl_commands() c
                      where c.schema_name is distinct from 'pg_temp')) then
    perform community_deletion._guard_registered_tables();
    perform community_deletion._guard_communities_planner_code();
  end if;
end;
$$;
--! EndIncluded functions/tg_ddl__guard_registered_tables.sql
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
  select 39
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
      '_guard_registered_tables', '_guard_registered_table_rewrite', '_guard_communities_planner_code',
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
