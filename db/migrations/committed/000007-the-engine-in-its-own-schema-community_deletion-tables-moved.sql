--! Previous: sha1:0d507a756f253fa9b72810589da3964254372138
--! Hash: sha1:15059bcbd0a4938562f4e9ff3843e7ebe477012b
--! Message: The engine in its own schema, community_deletion: tables moved with their data, functions renamed with plain parameter names, stage list defined once
--! AllowInvalidHash

-- The engine moves into its own schema, community_deletion (docs/sql-api.md).
-- public keeps only the host's tables, and on them the triggers the engine
-- attaches. Everything happens in this migration's one transaction: a request
-- in flight keeps its rows, its stage, its leases and its frozen chunks; the
-- fence and guard triggers are dropped and re-created before anyone can see
-- a table without them.

-- 1. Detach the old engine: event triggers, then every trigger that executes
--    one of its functions, then the functions themselves (by exact signature
--    and without CASCADE, so a host object that depends on one stops the
--    migration instead of being dropped with it).
drop event trigger if exists _100_lock_schema_destruction;
drop event trigger if exists _101_lock_schema_destruction_created;
drop event trigger if exists _102_lock_schema_destruction_dropped;
do $$
declare
  v_trigger record;
begin
  for v_trigger in
    select t.tgname, t.tgrelid::pg_catalog.regclass as tbl
      from pg_catalog.pg_trigger t join pg_catalog.pg_proc p on p.oid = t.tgfoid
     where not t.tgisinternal and p.pronamespace = 'public'::pg_catalog.regnamespace
       and (p.proname like 'tg\_%' or p.proname like '\_deletion\_%')
  loop
    execute pg_catalog.format('drop trigger %I on %s', v_trigger.tgname, v_trigger.tbl);
  end loop;
end;
$$;
drop function public._deletion_advance(p_request_id uuid, p_owner text, p_generation bigint, p_from text, p_to text, p_fence_generation bigint);
drop function public._deletion_attach_early_fence(p_table text);
drop function public._deletion_bound_text(p text, p_max integer);
drop function public._deletion_canonical_storage_summary(p_community uuid, p_summary jsonb, p_what text);
drop function public._deletion_check_key_chunk(p_chunk community_deletion_manifest_keys, p_community uuid);
drop function public._deletion_check_prefix_digest(p_request_id uuid, p_community uuid, p_summary jsonb, p_count bigint, p_chain text);
drop function public._deletion_checkpoint(p_request_id uuid, p_stage text, p_unit_key text, p_status text, p_lease_generation bigint, p_detail jsonb, p_error text);
drop function public._deletion_community_lock_key(p_community uuid);
drop function public._deletion_ddl_tag_is_deferred(p_tag text);
drop function public._deletion_has_community_index(p_table regclass);
drop function public._deletion_install_write_fence(p_native boolean, p_library text);
drop function public._deletion_inventory_digest(p_inventory jsonb);
drop function public._deletion_key_chunk_facts(p_entries jsonb, p_prefix text, p_key_pattern text, OUT entry_count integer, OUT bad_shape_at integer, OUT outside_prefix_at integer, OUT outside_taxonomy_at integer, OUT out_of_order_at integer, OUT first_entry jsonb, OUT last_entry jsonb, OUT chunk_text text);
drop function public._deletion_live_community_tables();
drop function public._deletion_live_fenced_tables();
drop function public._deletion_lock_community(p_community uuid, p_exclusive boolean);
drop function public._deletion_lock_schema_destruction_shared();
drop function public._deletion_manifest_entry_follows(p_prev jsonb, p_next jsonb);
drop function public._deletion_manifest_entry_is_valid(p_entry jsonb);
drop function public._deletion_manifest_entry_line(p_entry jsonb);
-- Edited after release (AllowInvalidHash): "if exists" — the function exists
-- only where 000005 could install the native fence library; on a server
-- without it (a managed server, PostgreSQL 16-18 here) 000005 dropped it and
-- this migration failed. The behaviour on every server that already ran it
-- is unchanged.
drop function if exists public._deletion_native_community_lock_key(uuid);
drop function public._deletion_next_stage(stage text);
drop function public._deletion_owned_key_pattern(p_community uuid, p_prefix text);
drop function public._deletion_owned_prefixes(p_community uuid);
drop function public._deletion_prove_postgres_absence(p_request_id uuid, p_community uuid, p_fence_generation bigint);
drop function public._deletion_reattach_early_fences();
drop function public._deletion_refuse_write_early_plpgsql();
drop function public._deletion_request_state(p_request community_deletion_requests, p_approval community_deletion_approvals, OUT state text, OUT explanation text);
drop function public._deletion_require_detail_object(p_request_id uuid, p_detail jsonb);
drop function public._deletion_require_read_committed(p_what text);
drop function public._deletion_require_text(p_value text, p_name text, p_max integer);
drop function public._deletion_restore_community(p_community uuid, p_archived_at timestamp with time zone, p_restore_archived boolean);
drop function public._deletion_same_operator(p_a text, p_b text);
drop function public._deletion_schema_destruction_lock_key();
drop function public._deletion_schema_manifest(p_community uuid);
drop function public._deletion_serving_lease_check(p_lease_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint);
drop function public._deletion_serving_write_granted(p_community uuid, p_fence_generation bigint);
drop function public._deletion_stage_is_runnable(stage text);
drop function public._deletion_stage_is_terminal(stage text);
drop function public._deletion_stage_order(stage text);
drop function public._deletion_tombstone_community(p_community uuid, p_fence_generation bigint);
drop function public._deletion_verify_lease(p_request_id uuid, p_owner text, p_generation bigint, p_stage text);
drop function public._deletion_verify_lease_and_fence(p_request_id uuid, p_owner text, p_generation bigint, p_stage text, p_fence_generation bigint);
drop function public._deletion_write_fence_plpgsql();
drop function public.assert_community_write_allowed(p_community uuid);
drop function public.community_write_allowed(p_community uuid);
drop function public.deletion_abort(p_request_id uuid, p_aborted_by text, p_reason text);
drop function public.deletion_append_key_chunk(p_request_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint, p_chunk_no integer, p_prefix text, p_entries jsonb);
drop function public.deletion_approve(p_request_id uuid, p_approved_by text, p_note text, p_not_before timestamp with time zone, p_delay interval);
drop function public.deletion_begin_quiescing(p_request_id uuid, p_owner text, p_generation bigint);
drop function public.deletion_block(p_request_id uuid, p_owner text, p_generation bigint, p_stage text, p_unit_key text, p_error text);
drop function public.deletion_block_preclaim(p_request_id uuid, p_unit_key text, p_error text);
drop function public.deletion_claim(p_owner text, p_request_id uuid, p_lease_seconds integer);
drop function public.deletion_clear_key_chunks(p_request_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint);
drop function public.deletion_executor_stopped(p_executor_id text);
drop function public.deletion_fence(p_request_id uuid, p_owner text, p_generation bigint);
drop function public.deletion_freeze_destructive_manifest(p_request_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint, p_manifest jsonb);
drop function public.deletion_freeze_inventory(p_request_id uuid, p_storage_manifest jsonb);
drop function public.deletion_heartbeat(p_request_id uuid, p_owner text, p_generation bigint, p_mode text, p_lease_seconds integer, p_draining boolean);
drop function public.deletion_inspect(p_request_id uuid);
drop function public.deletion_key_chunk_progress(p_request_id uuid);
drop function public.deletion_lease_state(p_request_id uuid, p_owner text, p_generation bigint);
drop function public.deletion_list(p_limit integer);
drop function public.deletion_mark_bindings_removed(p_request_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint, p_detail jsonb);
drop function public.deletion_mark_cache_purged(p_request_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint, p_detail jsonb);
drop function public.deletion_mark_drained(p_request_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint);
drop function public.deletion_mark_logically_verified(p_request_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint, p_detail jsonb);
drop function public.deletion_mark_retention_pending(p_request_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint, p_detail jsonb);
drop function public.deletion_next_key_chunk(p_request_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint);
drop function public.deletion_purge_postgres(p_request_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint);
drop function public.deletion_record_failure(p_request_id uuid, p_owner text, p_generation bigint, p_stage text, p_unit_key text, p_error text);
drop function public.deletion_record_taxonomy_sweep(p_started_at timestamp with time zone, p_listed_objects bigint, p_unknown_object_count bigint, p_unknown_key_sample jsonb, p_object_cap bigint, p_truncated boolean);
drop function public.deletion_register_scoped_table(p_table regclass, p_purge_order integer);
drop function public.deletion_register_unscoped_table(p_table regclass, p_kind text, p_note text);
drop function public.deletion_release(p_request_id uuid, p_owner text, p_generation bigint);
drop function public.deletion_serving_lease_acquire(p_community uuid, p_operation text, p_owner text, p_lease_seconds integer);
drop function public.deletion_serving_lease_guard(p_lease_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint);
drop function public.deletion_serving_lease_reap(p_limit integer);
drop function public.deletion_serving_lease_release(p_lease_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint);
drop function public.deletion_serving_lease_renew(p_lease_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint, p_lease_seconds integer);
drop function public.deletion_serving_lease_stats();
drop function public.deletion_serving_lease_verify(p_lease_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint);
drop function public.deletion_stamp_key_chunk(p_request_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint, p_chunk_no integer, p_detail jsonb);
drop function public.deletion_storage_taxonomy();
drop function public.deletion_submit(p_host text, p_requested_by text, p_reason text);
drop function public.deletion_unblock(p_request_id uuid, p_unblocked_by text, p_reason text);
drop function public.deletion_validate_catalog();
drop function public.deletion_validate_serving_catalog();
drop function public.deletion_verify_postgres_absence(p_request_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint);
drop function public.deletion_verify_token(p_request_id uuid, p_owner text, p_generation bigint, p_stage text);
drop function public.deletion_write_fence_implementation();
drop function public.tg_communities__protect_lifecycle();
drop function public.tg_community_deletion_approvals__check_approval();
drop function public.tg_community_deletion_approvals__refuse_change();
drop function public.tg_community_deletion_checkpoints__protect();
drop function public.tg_community_deletion_manifest_keys__forbid_truncate();
drop function public.tg_community_deletion_manifest_keys__guard();
drop function public.tg_community_deletion_requests__freeze_destructive_manifest();
drop function public.tg_community_deletion_requests__protect_frozen_fields();
drop function public.tg_community_deletion_requests__refuse_delete();
drop function public.tg_community_deletion_requests__stage_moves_forward();
drop function public.tg_control_plane__refuse_truncate();
drop function public.tg_ddl__lock_schema_destruction();
drop function public.tg_ddl__lock_schema_destruction_created();
drop function public.tg_ddl__lock_schema_destruction_dropped();
drop function public.tg_events__guard_read_state_delete();
drop function public.tg_scoped_table__enforce_write_fence();
drop function public.tg_scoped_table__refuse_write_early();

-- 2. The schema, and the control plane's tables moved into it with their data,
--    constraints, indexes and sequences (whose names follow the tables').
create schema community_deletion;
comment on schema community_deletion is
  'community-deletion engine: control plane, registries and the SQL API (docs/sql-api.md)';
alter table public.community_deletion_requests set schema community_deletion;
alter table community_deletion.community_deletion_requests rename to requests;
alter table public.community_deletion_approvals set schema community_deletion;
alter table community_deletion.community_deletion_approvals rename to approvals;
alter table public.community_deletion_checkpoints set schema community_deletion;
alter table community_deletion.community_deletion_checkpoints rename to checkpoints;
alter table public.community_deletion_executor_heartbeats set schema community_deletion;
alter table community_deletion.community_deletion_executor_heartbeats rename to executor_heartbeats;
alter table public.community_deletion_manifest_keys set schema community_deletion;
alter table community_deletion.community_deletion_manifest_keys rename to manifest_keys;
alter table public.community_deletion_serving_write_grants set schema community_deletion;
alter table community_deletion.community_deletion_serving_write_grants rename to serving_write_grants;
alter table public.community_deletion_settings set schema community_deletion;
alter table community_deletion.community_deletion_settings rename to settings;
alter table public.community_deletion_storage_taxonomy set schema community_deletion;
alter table community_deletion.community_deletion_storage_taxonomy rename to storage_taxonomy;
alter table public.community_deletion_tables set schema community_deletion;
alter table community_deletion.community_deletion_tables rename to registered_tables;
alter table public.community_serving_write_leases set schema community_deletion;
alter table community_deletion.community_serving_write_leases rename to serving_write_leases;
alter table public.storage_taxonomy_sweeps set schema community_deletion;
alter table community_deletion.storage_taxonomy_sweeps rename to taxonomy_sweeps;
do $$
declare
  v_table record;
  v_object record;
begin
  for v_table in
    select * from (values
      ('community_deletion_requests', 'requests'),
      ('community_deletion_approvals', 'approvals'),
      ('community_deletion_checkpoints', 'checkpoints'),
      ('community_deletion_executor_heartbeats', 'executor_heartbeats'),
      ('community_deletion_manifest_keys', 'manifest_keys'),
      ('community_deletion_serving_write_grants', 'serving_write_grants'),
      ('community_deletion_settings', 'settings'),
      ('community_deletion_storage_taxonomy', 'storage_taxonomy'),
      ('community_deletion_tables', 'registered_tables'),
      ('community_serving_write_leases', 'serving_write_leases'),
      ('storage_taxonomy_sweeps', 'taxonomy_sweeps')) as t(old_name, new_name)
  loop
    for v_object in
      select con.conname as name, con.conrelid::pg_catalog.regclass as tbl
        from pg_catalog.pg_constraint con
       where con.connamespace = 'community_deletion'::pg_catalog.regnamespace
         and con.conname like v_table.old_name || '\_%'
    loop
      execute pg_catalog.format('alter table %s rename constraint %I to %I', v_object.tbl, v_object.name,
                                v_table.new_name || pg_catalog.substr(v_object.name, pg_catalog.length(v_table.old_name) + 1));
    end loop;
    for v_object in
      select c.relname as name, c.relkind as kind
        from pg_catalog.pg_class c
       where c.relnamespace = 'community_deletion'::pg_catalog.regnamespace and c.relkind in ('i', 'S')
         and c.relname like v_table.old_name || '\_%'
    loop
      execute pg_catalog.format('alter %s community_deletion.%I rename to %I',
                                case v_object.kind when 'S' then 'sequence' else 'index' end, v_object.name,
                                v_table.new_name || pg_catalog.substr(v_object.name, pg_catalog.length(v_table.old_name) + 1));
    end loop;
  end loop;
end;
$$;
-- The engine's own tables left public, where the catalog check looks: they
-- are no longer registry entries.
delete from community_deletion.registered_tables where kind = 'control_plane';

-- 3. Types the API returns.
create type community_deletion.lease_token as (
  request_id uuid, community_id uuid, stage text, lease_owner text,
  lease_generation bigint, fence_generation bigint, lease_until timestamptz);
comment on type community_deletion.lease_token is
  'What claim() returns: the lease token (request_id, lease_owner, lease_generation) every executor call presents.';

-- 4. Every engine function, from db/functions (bodies are checked when they
--    run, as pg_dump does, so the files need no particular order).
set local check_function_bodies = off;
--! Included engine/functions.sql
-- Every engine function, one file each (db/functions/<name>.sql defines
-- community_deletion.<name>), in file-name order. Included with
-- check_function_bodies off, so the order does not matter; a test keeps this
-- list equal to the files in db/functions.
--! Included functions/_advance.sql
-- Moves a leased request one stage forward. Callers verify the lease first and
-- do their stage's work in the same transaction; this is the final guarded
-- write. Refuses anything but the next stage (wrong_stage, DL2S1) and treats a
-- guarded UPDATE that matches no row as lost ownership (stale_lease, DL4L1).
-- A successful advance clears the retry streak (progress resets it, SPEC §6).
-- Entering retention_pending also completes the request and releases the lease
-- (the terminal constraints require both).
create or replace function community_deletion._advance(
  p_request_id uuid, p_owner text, p_generation bigint, p_from text, p_to text,
  p_fence_generation bigint default null)
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_terminal boolean := p_to = 'retention_pending';
begin
  if p_to is null or p_to is distinct from community_deletion._next_stage(p_from) then
    raise exception 'illegal deletion transition % -> % for request %', p_from, p_to, p_request_id
      using errcode = 'DL2S1';
  end if;
  update community_deletion.requests r
     set stage = p_to,
         fence_generation = coalesce(p_fence_generation, r.fence_generation),
         retry_count = 0,
         retry_stage = null,
         last_error = null,
         last_error_at = null,
         completed_at = case when v_terminal then now() else r.completed_at end,
         lease_owner = case when v_terminal then null else r.lease_owner end,
         lease_until = case when v_terminal then null else r.lease_until end,
         updated_at = now()
   where r.id = p_request_id
     and r.stage = p_from
     and r.lease_owner = p_owner
     and r.lease_generation = p_generation
     and r.lease_until >= now()
     and r.blocked_at is null
     and exists (select 1 from community_deletion.approvals a
                  where a.request_id = r.id and a.community_id = r.community_id
                    and a.inventory_digest = r.inventory_digest);
  if not found then
    raise exception 'stale deletion lease for request % (owner %, generation %): cannot advance % -> %',
      p_request_id, p_owner, p_generation, p_from, p_to
      using errcode = 'DL4L1',
            hint = 'Ownership was lost: stop work on this request.';
  end if;
end;
$$;
--! EndIncluded functions/_advance.sql
--! Included functions/_attach_early_fence.sql
-- Attaches (or re-attaches) the early-refusal row triggers of the write fence
-- on public.<p_table>: _010_community_write_fence_early (BEFORE INSERT OR
-- UPDATE) and _010_community_write_fence_early_delete (BEFORE DELETE), FOR EACH
-- ROW, executing tg_scoped_table__refuse_write_early(). With the PL/pgSQL
-- fence they carry a WHEN clause that skips the rows of a community the
-- statement already checked (the hint community_deletion.fence_checked, set by
-- the PL/pgSQL early check; it authorises nothing); the native fast path keeps
-- that list in backend memory instead, so its triggers have no WHEN clause
-- (evaluating one costs more per statement than the native check itself).
-- Called by community_deletion.register_scoped_table and community_deletion.install_write_fence.
create or replace function community_deletion._attach_early_fence(p_table text)
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_native boolean := community_deletion.write_fence_implementation() = 'native';
begin
  execute format('drop trigger if exists _010_community_write_fence_early on public.%I', p_table);
  execute format('drop trigger if exists _010_community_write_fence_early_delete on public.%I', p_table);
  execute format('create trigger _010_community_write_fence_early before insert or update on public.%I '
                 'for each row %s execute function community_deletion.tg_scoped_table__refuse_write_early()', p_table,
                 case when v_native then ''
                      else 'when (pg_catalog.current_setting(''community_deletion.fence_checked'', true) '
                           'is distinct from new.community_id::text)' end);
  execute format('create trigger _010_community_write_fence_early_delete before delete on public.%I '
                 'for each row %s execute function community_deletion.tg_scoped_table__refuse_write_early()', p_table,
                 case when v_native then ''
                      else 'when (pg_catalog.current_setting(''community_deletion.fence_checked'', true) '
                           'is distinct from old.community_id::text)' end);
end;
$$;
--! EndIncluded functions/_attach_early_fence.sql
--! Included functions/_bound_text.sql
-- Truncates operator- or executor-supplied text (errors, reasons, notes) to at
-- most p_max characters before it is stored, so one huge error message cannot
-- bloat a control-plane row. Null stays null.
create or replace function community_deletion._bound_text(p text, p_max integer)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = ''
as $$
  select case when p is null then null
              when pg_catalog.length(p) <= p_max then p
              else pg_catalog.left(p, greatest(p_max, 0)) end
$$;
--! EndIncluded functions/_bound_text.sql
--! Included functions/_canonical_storage_summary.sql
-- Storage summaries (docs/manifest-format.md): the per-prefix object counts,
-- bytes and key-stream digests the driver reports for a community's three owned
-- prefixes. Used for the inventory (and reusable for the destructive manifest).
--
-- Validates a storage summary for p_community and returns its canonical form
-- (only the documented keys, integers as integers). Fails closed with
-- invalid_manifest (DL1M1) on: an unknown key, version other than 1, a
-- chunk_size outside 1..1,000,000, no prefixes, an empty prefix (it would list
-- the whole bucket), prefixes not strictly sorted or not exactly the
-- community's owned prefixes, counts/bytes that are not non-negative integers,
-- a digest that is not lowercase hex SHA-256, or an empty prefix whose bytes or
-- digest say otherwise.
create or replace function community_deletion._canonical_storage_summary(
  p_community uuid, p_summary jsonb, p_what text default 'storage summary')
  returns jsonb
  language plpgsql
  stable
  set search_path = ''
as $$
declare
  c_empty_digest constant text := 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
  c_max_bigint constant numeric := 9223372036854775807;
  v_owned text[] := community_deletion._owned_prefixes(p_community);
  v_key text;
  v_entry jsonb;
  v_prefix text;
  v_previous text;
  v_seen text[] := '{}';
  v_number numeric;
  v_object_count bigint;
  v_total_bytes bigint;
  v_digest text;
  v_field text;
  v_prefixes jsonb := '[]'::jsonb;
  v_problem text;
begin
  <<checks>>
  begin
    if p_summary is null or jsonb_typeof(p_summary) <> 'object' then
      v_problem := 'it is not a JSON object';
      exit checks;
    end if;
    select k into v_key from jsonb_object_keys(p_summary) k
     where k not in ('version', 'chunk_size', 'prefixes') order by k limit 1;
    if v_key is not null then
      v_problem := format('unknown key "%s"', v_key);
      exit checks;
    end if;
    if p_summary->'version' is null or p_summary->'version' <> '1'::jsonb then
      v_problem := format('unsupported version %s (supported: 1)', coalesce(p_summary->>'version', 'missing'));
      exit checks;
    end if;
    if jsonb_typeof(p_summary->'chunk_size') is distinct from 'number' then
      v_problem := format('chunk_size %s is not a number', coalesce(p_summary->>'chunk_size', 'missing'));
      exit checks;
    end if;
    v_number := (p_summary->>'chunk_size')::numeric;
    if v_number <> trunc(v_number) or v_number not between 1 and 1000000 then
      v_problem := format('chunk_size %s is not an integer in 1..1000000', v_number);
      exit checks;
    end if;
    if jsonb_typeof(p_summary->'prefixes') is distinct from 'array' or jsonb_array_length(p_summary->'prefixes') = 0 then
      v_problem := 'it lists no prefixes';
      exit checks;
    end if;
    for v_entry in select e from jsonb_array_elements(p_summary->'prefixes') e loop
      if jsonb_typeof(v_entry) <> 'object' then
        v_problem := 'a prefix entry is not an object';
        exit checks;
      end if;
      select k into v_key from jsonb_object_keys(v_entry) k
       where k not in ('prefix', 'object_count', 'total_bytes', 'keys_digest') order by k limit 1;
      if v_key is not null then
        v_problem := format('unknown prefix key "%s"', v_key);
        exit checks;
      end if;
      if jsonb_typeof(v_entry->'prefix') is distinct from 'string' or v_entry->>'prefix' = '' then
        v_problem := 'it contains an empty or missing prefix';
        exit checks;
      end if;
      v_prefix := v_entry->>'prefix';
      if v_previous is not null and not (v_previous < v_prefix collate "C") then
        v_problem := format('prefixes are not strictly sorted (%s then %s)', v_previous, v_prefix);
        exit checks;
      end if;
      v_previous := v_prefix;
      if v_prefix <> all (v_owned) then
        v_problem := format('prefix %s is not owned by community %s', v_prefix, p_community);
        exit checks;
      end if;
      foreach v_field in array array['object_count', 'total_bytes'] loop
        if jsonb_typeof(v_entry->v_field) is distinct from 'number' then
          v_problem := format('%s of %s is not a number', v_field, v_prefix);
          exit checks;
        end if;
        v_number := (v_entry->>v_field)::numeric;
        if v_number <> trunc(v_number) or v_number < 0 or v_number > c_max_bigint then
          v_problem := format('%s of %s is not a non-negative integer', v_field, v_prefix);
          exit checks;
        end if;
      end loop;
      v_object_count := (v_entry->>'object_count')::numeric::bigint;
      v_total_bytes := (v_entry->>'total_bytes')::numeric::bigint;
      v_digest := v_entry->>'keys_digest';
      if jsonb_typeof(v_entry->'keys_digest') is distinct from 'string' or v_digest !~ '^[0-9a-f]{64}$' then
        v_problem := format('keys_digest of %s is not lowercase hex SHA-256', v_prefix);
        exit checks;
      end if;
      if v_object_count = 0 and (v_total_bytes <> 0 or v_digest <> c_empty_digest) then
        v_problem := format('prefix %s has no objects but non-zero bytes or a non-empty digest', v_prefix);
        exit checks;
      end if;
      v_seen := v_seen || v_prefix;
      v_prefixes := v_prefixes || jsonb_build_array(jsonb_build_object(
        'prefix', v_prefix, 'object_count', v_object_count, 'total_bytes', v_total_bytes, 'keys_digest', v_digest));
    end loop;
    if v_seen <> v_owned then
      v_problem := format('prefixes [%s] are not exactly the owned prefixes [%s]',
                          array_to_string(v_seen, ', '), array_to_string(v_owned, ', '));
      exit checks;
    end if;
  end checks;
  if v_problem is not null then
    raise exception 'community deletion: % for community % is invalid: %', p_what, p_community, v_problem
      using errcode = 'DL1M1',
            hint = 'See docs/manifest-format.md: version 1, chunk_size, the three owned prefixes strictly sorted, integer counts, lowercase hex digests.';
  end if;
  return jsonb_build_object(
    'version', 1,
    'chunk_size', (p_summary->>'chunk_size')::numeric::integer,
    'prefixes', v_prefixes);
end;
$$;
--! EndIncluded functions/_canonical_storage_summary.sql
--! Included functions/_check_key_chunk.sql
-- Validates one key chunk row about to be inserted, however it is written
-- (called by the chunk guard trigger, so community_deletion.append_key_chunk and a
-- direct INSERT get the same rules): chunk numbers contiguous from 0; prefix
-- one of the target community's owned prefixes and not before the previous
-- chunk's prefix; a non-empty array of canonical entries, each under the
-- prefix, matching the storage taxonomy, strictly ascending by
-- (key, version_id) in byte order, and after the last entry of the previous
-- chunk of the same prefix. Raises DL6K1 (DL1M1 for malformed JSON). Chunks
-- are immutable once inserted, so the freeze need not repeat the (costly)
-- taxonomy match; it re-checks everything else.
create or replace function community_deletion._check_key_chunk(
  p_chunk community_deletion.manifest_keys,
  p_community uuid)
  returns void
  language plpgsql
  stable
  set search_path = ''
as $$
declare
  v_last community_deletion.manifest_keys;
  v_pattern text;
  v_facts record;
  v_where text := format('request %s (community %s): key chunk %s', p_chunk.request_id, p_community, p_chunk.chunk_no);
begin
  select k.* into v_last
  from community_deletion.manifest_keys k
  where k.request_id = p_chunk.request_id
  order by k.chunk_no desc
  limit 1;
  if p_chunk.chunk_no is distinct from coalesce(v_last.chunk_no + 1, 0) then
    raise exception '% refused: the next chunk number is %', v_where, coalesce(v_last.chunk_no + 1, 0)
      using errcode = 'DL6K1',
            hint = 'Chunk numbers are contiguous from 0; after an interrupted enumeration call community_deletion.clear_key_chunks and start again.';
  end if;

  v_pattern := community_deletion._owned_key_pattern(p_community, p_chunk.prefix);
  if v_pattern is null then
    raise exception '% has prefix %, which is not an owned prefix of the target', v_where, p_chunk.prefix
      using errcode = 'DL6K1';
  end if;
  if v_last.prefix is not null and v_last.prefix collate "C" > p_chunk.prefix collate "C" then
    raise exception '% has prefix % after prefix % (prefixes go in byte order)', v_where, p_chunk.prefix, v_last.prefix
      using errcode = 'DL6K1';
  end if;

  if jsonb_typeof(p_chunk.entries) is distinct from 'array' then
    raise exception '%: entries must be a JSON array', v_where using errcode = 'DL1M1';
  end if;
  v_facts := community_deletion._key_chunk_facts(p_chunk.entries, p_chunk.prefix, v_pattern);
  if v_facts.entry_count = 0 then
    raise exception '% is empty', v_where
      using errcode = 'DL6K1',
            hint = 'A prefix with no entries has no chunks.';
  end if;
  if v_facts.bad_shape_at is not null then
    raise exception '%: entry % is not {"key", "version_id", "kind"} with non-empty TAB/LF-free strings: %',
      v_where, v_facts.bad_shape_at,
      community_deletion._bound_text((p_chunk.entries -> (v_facts.bad_shape_at - 1))::text, 512)
      using errcode = 'DL1M1';
  end if;
  if v_facts.outside_prefix_at is not null then
    raise exception '%: key % is outside the chunk prefix %', v_where,
      community_deletion._bound_text(p_chunk.entries -> (v_facts.outside_prefix_at - 1) ->> 'key', 512), p_chunk.prefix
      using errcode = 'DL6K1';
  end if;
  if v_facts.outside_taxonomy_at is not null then
    raise exception '%: key % under owned prefix % matches no known writer shape', v_where,
      community_deletion._bound_text(p_chunk.entries -> (v_facts.outside_taxonomy_at - 1) ->> 'key', 512), p_chunk.prefix
      using errcode = 'DL6K1',
            hint = 'A malformed key inside an owned prefix fails the deletion closed: register the writer''s key shape in community_deletion.storage_taxonomy or remove the object, then unblock.';
  end if;
  if v_facts.out_of_order_at is not null then
    raise exception '%: entry % is not strictly after its predecessor by (key, version_id)', v_where, v_facts.out_of_order_at
      using errcode = 'DL6K1';
  end if;
  if v_last.prefix = p_chunk.prefix
     and not community_deletion._manifest_entry_follows(v_last.entries -> -1, v_facts.first_entry) then
    raise exception '% does not continue strictly after chunk %', v_where, v_last.chunk_no
      using errcode = 'DL6K1';
  end if;
  if p_chunk.entry_count is distinct from v_facts.entry_count then
    raise exception '%: entry_count % does not match its % entries', v_where, p_chunk.entry_count, v_facts.entry_count
      using errcode = 'DL6K1';
  end if;
end;
$$;
--! EndIncluded functions/_check_key_chunk.sql
--! Included functions/_check_prefix_digest.sql
-- Compares what one prefix's chunks hashed to (entry count, chain value
-- h_last) with the manifest's summary of that prefix; a prefix without
-- entries must carry the SHA-256 of the empty string. Raises DL6K1.
create or replace function community_deletion._check_prefix_digest(
  p_request_id uuid,
  p_community uuid,
  p_summary jsonb,
  p_count bigint,
  p_chain text)
  returns void
  language plpgsql
  immutable
  set search_path = ''
as $$
declare
  v_digest text := case when p_count = 0 then encode(sha256(''::bytea), 'hex') else p_chain end;
begin
  if p_count <> (p_summary ->> 'object_count')::bigint or v_digest <> (p_summary ->> 'keys_digest') then
    raise exception 'request % (community %): the key chunks of prefix % hash to % entries / % but the manifest says % / %',
      p_request_id, p_community, p_summary ->> 'prefix', p_count, v_digest,
      p_summary ->> 'object_count', p_summary ->> 'keys_digest'
      using errcode = 'DL6K1',
            hint = 'The chunks must be exactly the enumeration the manifest summarises; clear them and enumerate again.';
  end if;
end;
$$;
--! EndIncluded functions/_check_prefix_digest.sql
--! Included functions/_checkpoint.sql
-- Records one unit checkpoint (request, stage, unit_key): the first call
-- inserts it, later calls count another attempt and overwrite its status,
-- lease generation, detail and error. completed_at is set exactly while the
-- status is completed. Checkpoints are upsert-only evidence; they are never deleted.
create or replace function community_deletion._checkpoint(
  p_request_id uuid, p_stage text, p_unit_key text, p_status text, p_lease_generation bigint,
  p_detail jsonb default '{}'::jsonb, p_error text default null)
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  insert into community_deletion.checkpoints as cp
    (request_id, stage, unit_key, status, lease_generation, detail, error, completed_at)
  values
    (p_request_id, p_stage, p_unit_key, p_status, p_lease_generation, coalesce(p_detail, '{}'::jsonb),
     community_deletion._bound_text(p_error, 4096),
     case when p_status = 'completed' then now() end)
  on conflict (request_id, stage, unit_key) do update
     set attempts = cp.attempts + 1,
         status = excluded.status,
         lease_generation = excluded.lease_generation,
         detail = excluded.detail,
         error = excluded.error,
         completed_at = excluded.completed_at;
end;
$$;
--! EndIncluded functions/_checkpoint.sql
--! Included functions/_community_lock_key.sql
-- The per-community advisory lock that orders lifecycle transitions (quiesce,
-- fence, abort: exclusive) against serving writers (shared). SPEC §5.3.

-- Advisory-lock key of a community. Derivation (stable forever; changing it
-- would let old and new code hold "the same" lock on different keys):
--   the first 8 bytes of the uuid (its first 16 hex digits, big-endian) read as
--   a signed bigint, XOR 0x636f6d6d64656c65 (ASCII "commdele").
-- The XOR moves community keys away from small integer keys other code may use.
create or replace function community_deletion._community_lock_key(p_community uuid)
  returns bigint
  language sql
  immutable
  parallel safe
  strict
  set search_path = ''
as $$
  select ('x' || pg_catalog.left(pg_catalog.replace(p_community::text, '-', ''), 16))::bit(64)::bigint
         # 7165065848772979813::bigint
$$;
--! EndIncluded functions/_community_lock_key.sql
--! Included functions/_ddl_tag_is_deferred.sql
-- Event trigger functions. Any DDL on a non-temporary object takes the lock
-- EXCLUSIVELY until the end of its transaction:
--  * ddl_command_start (_100_lock_schema_destruction): every command except
--    the ones below, BEFORE it takes any table lock, so a migration altering a
--    scoped table can never deadlock against a purge;
--  * commands that may well target only temporary objects (CREATE TABLE /
--    TABLE AS / SELECT INTO / SEQUENCE / VIEW / INDEX / FUNCTION, ALTER
--    SEQUENCE, DROP of those) are decided after the fact — ddl_command_end
--    (_101_…) and sql_drop (_102_…) — and take the lock only if a
--    non-temporary object is involved. Otherwise every transaction using a
--    temporary table (pgTAP's plan() does) would serialise with every other
--    and hold destructive stages back. Such a command may have taken a table
--    lock before it waits; a rare deadlock with a purge is detected by
--    PostgreSQL (40P01, retryable) and never lets the catalog change under a
--    destructive transaction.
--  * GRANT, REVOKE, COMMENT, SECURITY LABEL, ALTER DEFAULT PRIVILEGES do not
--    change which tables, fences or indexes exist: no lock.
create or replace function community_deletion._ddl_tag_is_deferred(p_tag text)
  returns boolean
  language sql
  immutable
  set search_path = ''
as $$
  select p_tag in ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'CREATE SEQUENCE', 'ALTER SEQUENCE',
                   'CREATE VIEW', 'CREATE INDEX', 'CREATE FUNCTION', 'DROP TABLE', 'DROP SEQUENCE', 'DROP VIEW',
                   'DROP INDEX', 'DROP FUNCTION',
                   'GRANT', 'REVOKE', 'COMMENT', 'SECURITY LABEL', 'ALTER DEFAULT PRIVILEGES')
$$;
--! EndIncluded functions/_ddl_tag_is_deferred.sql
--! Included functions/_has_community_index.sql
-- True when p_table has a valid, non-partial index whose first column is
-- community_id (the purge and the absence proof then never scan the fleet).
create or replace function community_deletion._has_community_index(p_table regclass)
  returns boolean
  language sql
  stable
  set search_path = ''
as $$
  select exists (
    select 1 from pg_catalog.pg_index i
      join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
     where i.indrelid = p_table and a.attname = 'community_id' and not a.attisdropped
       and i.indisvalid and i.indpred is null)
$$;
--! EndIncluded functions/_has_community_index.sql
--! Included functions/_inventory_digest.sql
-- Digest of a canonical inventory: lowercase hex SHA-256 of its jsonb text
-- (jsonb's text form is deterministic: keys sorted, whitespace normalised).
create or replace function community_deletion._inventory_digest(p_inventory jsonb)
  returns text
  language sql
  immutable
  parallel safe
  strict
  set search_path = ''
as $$
  select encode(sha256(convert_to(p_inventory::text, 'UTF8')), 'hex')
$$;
--! EndIncluded functions/_inventory_digest.sql
--! Included functions/_key_chunk_facts.sql
-- One pass over a key chunk's entries: the facts the chunk guard (on insert)
-- and the freeze check — shape, prefix, taxonomy, strict (key, version_id)
-- byte order — and the chunk's canonical text for the chained digest. Memory
-- is bounded by one chunk. Positions are 1-based; null means "no such entry".
-- A null p_key_pattern skips the taxonomy match (the freeze's case).
create or replace function community_deletion._key_chunk_facts(
  p_entries jsonb,
  p_prefix text,
  p_key_pattern text,
  out entry_count integer,
  out bad_shape_at integer,
  out outside_prefix_at integer,
  out outside_taxonomy_at integer,
  out out_of_order_at integer,
  out first_entry jsonb,
  out last_entry jsonb,
  out chunk_text text)
  language sql
  immutable
  parallel safe
  set search_path = ''
as $$
  with e as (
    select t.ord::integer as ord,
           t.x,
           community_deletion._manifest_entry_is_valid(t.x) as shape_ok,
           t.x ->> 'key' as k,
           t.x ->> 'version_id' as v
    from pg_catalog.jsonb_array_elements(p_entries) with ordinality as t (x, ord)
  ), o as (
    select e.*,
           lag(e.k) over w as prev_k,
           lag(e.v) over w as prev_v
    from e
    window w as (order by e.ord)
  )
  select count(*)::integer,
         min(o.ord) filter (where not o.shape_ok),
         min(o.ord) filter (where o.shape_ok and not starts_with(o.k, p_prefix)),
         min(o.ord) filter (where o.shape_ok and o.k !~ p_key_pattern),
         min(o.ord) filter (where o.prev_k is not null
                              and not (o.k collate "C" > o.prev_k collate "C"
                                       or (o.k = o.prev_k and o.v collate "C" > o.prev_v collate "C"))),
         p_entries -> 0,
         p_entries -> -1,
         string_agg(community_deletion._manifest_entry_line(o.x), '' order by o.ord)
  from o
$$;
--! EndIncluded functions/_key_chunk_facts.sql
--! Included functions/_live_community_tables.sql
-- Sorted names of the live public tables (not partitions) that have a
-- community_id column: the set the registry must equal.
create or replace function community_deletion._live_community_tables()
  returns text[]
  language sql
  stable
  set search_path = ''
as $$
  select coalesce(array_agg(c.relname::text order by c.relname::text collate "C"), '{}')
    from pg_catalog.pg_class c
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    join pg_catalog.pg_attribute a on a.attrelid = c.oid
   where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
     and a.attname = 'community_id' and not a.attisdropped
$$;
--! EndIncluded functions/_live_community_tables.sql
--! Included functions/_live_fenced_tables.sql
-- Detection rule for "fenced": the table (public, not a partition) carries, for
-- EACH of INSERT, UPDATE and DELETE, a trigger that is not internal, is enabled
-- (origin or always), is STATEMENT level, AFTER (neither BEFORE nor INSTEAD
-- OF), has no WHEN condition and no column list, executes exactly
-- community_deletion.tg_scoped_table__enforce_write_fence(), and names the transition
-- tables that function reads: INSERT → NEW TABLE fence_new_rows; UPDATE → OLD
-- TABLE fence_old_rows and NEW TABLE fence_new_rows; DELETE → OLD TABLE
-- fence_old_rows. That is precisely what community_deletion.register_scoped_table attaches
-- (_010_community_write_fence, _010_community_write_fence_update,
-- _010_community_write_fence_delete). A disabled trigger, a row-level or BEFORE
-- one, one without its transition tables, one with a WHEN clause, or a set
-- missing an event is not a fence. The early-refusal row triggers
-- (_010_community_write_fence_early[_delete]) only order error codes; they are
-- not part of the rule (dropping them leaves every write decided exactly as
-- before), but a fence trigger of either kind on a table that is not a
-- registered scoped table is drift.
--
-- Sorted names of the public tables carrying the write fence (rule above).
create or replace function community_deletion._live_fenced_tables()
  returns text[]
  language sql
  stable
  set search_path = ''
as $$
  select coalesce(array_agg(f.relname order by f.relname collate "C"), '{}')
    from (select c.relname::text as relname
            from pg_catalog.pg_trigger t
            join pg_catalog.pg_class c on c.oid = t.tgrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where n.nspname = 'public' and not c.relispartition and not t.tgisinternal
             and t.tgenabled in ('O', 'A')
             and t.tgfoid = pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()')
             and (t.tgtype & 1) = 0      -- statement level
             and (t.tgtype & 66) = 0     -- AFTER: neither BEFORE (2) nor INSTEAD OF (64)
             and t.tgqual is null        -- no WHEN condition
             and pg_catalog.cardinality(t.tgattr::int2[]) = 0   -- no column list
           group by c.relname
          having pg_catalog.bool_or((t.tgtype & 4) = 4 and t.tgnewtable = 'fence_new_rows')    -- insert
             and pg_catalog.bool_or((t.tgtype & 16) = 16 and t.tgoldtable = 'fence_old_rows'   -- update
                                    and t.tgnewtable = 'fence_new_rows')
             and pg_catalog.bool_or((t.tgtype & 8) = 8 and t.tgoldtable = 'fence_old_rows')    -- delete
         ) f
$$;
--! EndIncluded functions/_live_fenced_tables.sql
--! Included functions/_lock_community.sql
-- Takes the community's transaction-scoped advisory lock, exclusively for
-- lifecycle transitions or shared for writers. Lock order everywhere: this lock
-- first, then row locks (the reverse deadlocks abort against the executor).
create or replace function community_deletion._lock_community(p_community uuid, p_exclusive boolean)
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  if p_exclusive then
    perform pg_catalog.pg_advisory_xact_lock(community_deletion._community_lock_key(p_community));
  else
    perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(p_community));
  end if;
end;
$$;
--! EndIncluded functions/_lock_community.sql
--! Included functions/_lock_schema_destruction_shared.sql
-- Takes the schema/destruction lock SHARED until the end of the transaction.
-- Call it first in every destructive transaction, then community_deletion.validate_catalog().
create or replace function community_deletion._lock_schema_destruction_shared()
  returns void
  language sql
  volatile
  set search_path = ''
as $$
  select pg_catalog.pg_advisory_xact_lock_shared(community_deletion._schema_destruction_lock_key())
$$;
--! EndIncluded functions/_lock_schema_destruction_shared.sql
--! Included functions/_manifest_entry_follows.sql
-- Canonical storage-manifest entry helpers (docs/manifest-format.md). The
-- TypeScript enumerator (src/manifest.ts) produces the same bytes; change both
-- together or the per-prefix digests stop matching.
--
-- These three run once per entry (a million times for a large community), so
-- they are plain SQL expressions WITHOUT a `set search_path` clause: a SET
-- clause would stop PostgreSQL from inlining them into the per-chunk query
-- (measured: 3x slower). They reference only pg_catalog built-ins and are
-- called only from engine functions that themselves run with search_path ''.
--
-- True when entry p_next sorts strictly after p_prev by (key, version_id) in
-- byte order: the cross-chunk half of the manifest ordering rule.
create or replace function community_deletion._manifest_entry_follows(p_prev jsonb, p_next jsonb)
  returns boolean
  language sql
  immutable
  parallel safe
as $$
  select coalesce(
    (p_next ->> 'key') collate "C" > (p_prev ->> 'key') collate "C"
    or ((p_next ->> 'key') = (p_prev ->> 'key')
        and (p_next ->> 'version_id') collate "C" > (p_prev ->> 'version_id') collate "C"),
    false)
$$;
--! EndIncluded functions/_manifest_entry_follows.sql
--! Included functions/_manifest_entry_is_valid.sql
-- Canonical storage-manifest entry helpers (docs/manifest-format.md). The
-- TypeScript enumerator (src/manifest.ts) produces the same bytes; change both
-- together or the per-prefix digests stop matching.
--
-- These three run once per entry (a million times for a large community), so
-- they are plain SQL expressions WITHOUT a `set search_path` clause: a SET
-- clause would stop PostgreSQL from inlining them into the per-chunk query
-- (measured: 3x slower). They reference only pg_catalog built-ins and are
-- called only from engine functions that themselves run with search_path ''.

-- True when p_entry is exactly {"key", "version_id", "kind"} with non-empty
-- string fields free of TAB/LF and kind object|delete_marker: the shape whose
-- canonical line cannot alias another entry's.
create or replace function community_deletion._manifest_entry_is_valid(p_entry jsonb)
  returns boolean
  language sql
  immutable
  parallel safe
as $$
  select case when jsonb_typeof(p_entry) = 'object' then coalesce(
    (p_entry - 'key' - 'version_id' - 'kind') = '{}'::jsonb
    and jsonb_typeof(p_entry -> 'key') = 'string'
    and jsonb_typeof(p_entry -> 'version_id') = 'string'
    and (p_entry ->> 'kind') in ('object', 'delete_marker')
    and (p_entry ->> 'key') <> ''
    and (p_entry ->> 'version_id') <> ''
    and strpos(p_entry ->> 'key', E'\t') = 0 and strpos(p_entry ->> 'key', E'\n') = 0
    and strpos(p_entry ->> 'version_id', E'\t') = 0 and strpos(p_entry ->> 'version_id', E'\n') = 0,
    false) else false end
$$;
--! EndIncluded functions/_manifest_entry_is_valid.sql
--! Included functions/_manifest_entry_line.sql
-- Canonical storage-manifest entry helpers (docs/manifest-format.md). The
-- TypeScript enumerator (src/manifest.ts) produces the same bytes; change both
-- together or the per-prefix digests stop matching.
--
-- These three run once per entry (a million times for a large community), so
-- they are plain SQL expressions WITHOUT a `set search_path` clause: a SET
-- clause would stop PostgreSQL from inlining them into the per-chunk query
-- (measured: 3x slower). They reference only pg_catalog built-ins and are
-- called only from engine functions that themselves run with search_path ''.
--
-- Canonical text of one entry: key TAB version_id TAB kind LF (the digest input).
create or replace function community_deletion._manifest_entry_line(p_entry jsonb)
  returns text
  language sql
  immutable
  parallel safe
as $$
  select (p_entry ->> 'key') || E'\t' || (p_entry ->> 'version_id') || E'\t' || (p_entry ->> 'kind') || E'\n'
$$;
--! EndIncluded functions/_manifest_entry_line.sql
--! Included functions/_next_stage.sql
-- The only stage a request may move to from `stage` (null for the terminal
-- stages and for a value that is not a stage): transitions never skip and
-- never go backwards.
create or replace function community_deletion._next_stage(stage text)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = ''
as $$
  select s.next_stage from community_deletion._stages() s where s.stage = _next_stage.stage
$$;
--! EndIncluded functions/_next_stage.sql
--! Included functions/_owned_key_pattern.sql
-- The anchored key pattern a key under p_prefix must match when p_prefix is
-- one of p_community's owned prefixes; null otherwise (a foreign or unknown
-- prefix), so callers fail closed.
create or replace function community_deletion._owned_key_pattern(p_community uuid, p_prefix text)
  returns text
  language sql
  stable
  set search_path = ''
as $$
  select replace(t.key_pattern, '{community}', p_community::text)
  from community_deletion.storage_taxonomy t
  where t.scope = 'owned'
    and replace(t.prefix_template, '{community}', p_community::text) = p_prefix
$$;
--! EndIncluded functions/_owned_key_pattern.sql
--! Included functions/_owned_prefixes.sql
-- The community's owned prefixes from the storage taxonomy ("{community}"
-- replaced by the lowercase uuid), in byte order.
create or replace function community_deletion._owned_prefixes(p_community uuid)
  returns text[]
  language sql
  stable
  set search_path = ''
as $$
  select coalesce(array_agg(p order by p collate "C"), '{}')
    from (select replace(t.prefix_template, '{community}', lower(p_community::text)) as p
            from community_deletion.storage_taxonomy t
           where t.scope = 'owned') owned
$$;
--! EndIncluded functions/_owned_prefixes.sql
--! Included functions/_prove_postgres_absence.sql
-- The PostgreSQL half of the absence proof, run inside the caller's
-- transaction after it took the shared schema-destruction lock and
-- re-validated the catalog: the community is a tombstone at exactly
-- p_fence_generation (DL8T1 otherwise) and no registered scoped or provenance
-- table holds a row for it (DL9A1 naming the table). Returns the number of
-- tables checked. The registry is read live, so a table registered after the
-- purge is part of the proof and fails it closed if it holds tenant rows.
create or replace function community_deletion._prove_postgres_absence(
  p_request_id uuid,
  p_community uuid,
  p_fence_generation bigint)
  returns integer
  language plpgsql
  stable
  set search_path = ''
as $$
declare
  v_table record;
  v_remains boolean;
  v_checked integer := 0;
begin
  if not exists (select 1 from public.communities c
                 where c.id = p_community and c.deletion_state = 'tombstone'
                   and c.deleted_at is not null and c.deletion_fence_generation = p_fence_generation) then
    raise exception 'request %: community % is not a tombstone at fence generation %',
      p_request_id, p_community, p_fence_generation
      using errcode = 'DL8T1',
            hint = 'The community row changed outside the engine after the purge; investigate before unblocking.';
  end if;
  for v_table in
    select t.table_name from community_deletion.registered_tables t
    where t.kind in ('scoped', 'provenance')
    order by t.table_name
  loop
    execute format('select exists (select 1 from public.%I where community_id = $1)', v_table.table_name)
      into v_remains using p_community;
    if v_remains then
      raise exception 'request %: table % still holds rows of purged community %', p_request_id, v_table.table_name, p_community
        using errcode = 'DL9A1',
              hint = 'Rows of a tombstoned community reappeared or escaped the purge; investigate the writer before unblocking.';
    end if;
    v_checked := v_checked + 1;
  end loop;
  return v_checked;
end;
$$;
--! EndIncluded functions/_prove_postgres_absence.sql
--! Included functions/_reattach_early_fences.sql
-- Re-attaches the early-refusal row triggers of every registered scoped table
-- in the form of the installed fence implementation (_attach_early_fence).
create or replace function community_deletion._reattach_early_fences()
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_table text;
begin
  for v_table in
    select r.table_name from community_deletion.registered_tables r
     where r.kind = 'scoped' and pg_catalog.to_regclass(format('public.%I', r.table_name)) is not null
     order by r.purge_order
  loop
    perform community_deletion._attach_early_fence(v_table);
  end loop;
end;
$$;
--! EndIncluded functions/_reattach_early_fences.sql
--! Included functions/_refuse_write_early_plpgsql.sql
-- The write fence's early refusal (SPEC §5.2), in PL/pgSQL. The triggers
-- execute community_deletion.tg_scoped_table__refuse_write_early(), which
-- write_fence_install.sql makes either the native fast path (it passes rows
-- of an active community itself, looked up once per statement, and hands
-- every other row to this function) or a PL/pgSQL copy of this function.
-- BEFORE … FOR EACH ROW on every
-- registered scoped table (attached by community_deletion.register_scoped_table next to
-- the statement-level fence of tg_scoped_table__enforce_write_fence.sql):
--   _010_community_write_fence_early         BEFORE INSERT OR UPDATE, WHEN the hint differs from NEW.community_id
--   _010_community_write_fence_early_delete  BEFORE DELETE,           WHEN the hint differs from OLD.community_id
--
-- It exists so that a refused write fails with the fence's own SQLSTATE
-- (25000, 55000) BEFORE the row's constraints and foreign-key checks can fail
-- with theirs (a DELETE of a fenced parent row, an INSERT for a missing
-- community), exactly as the row-level fence did. It is NOT what makes the
-- fence hold: the statement-level triggers decide every statement on their
-- own, whatever happened here.
--
-- The hint: after this check passes for a community, the transaction-local
-- setting community_deletion.fence_checked is set to that community, and the
-- triggers' WHEN clause (evaluated in C, no function call) skips the check for
-- the following rows of that community — so a 1,000-row statement runs this
-- function once, not 1,000 times. The statement-level fence clears the hint
-- when the statement ends, so it never outlives the statement that set it (a
-- state change later in the transaction cannot leave a stale hint). A client
-- can set the hint too; that only skips this early check: the statement-level
-- fence still refuses (55000), as
-- db/tests/write_fence/forged_fence_hint_changes_nothing.test.sql proves. No
-- setting authorises anything.
--
-- Per checked row: not READ COMMITTED → 25000; the community's state (its row
-- must exist); not active → community_write_allowed (which takes the
-- community lock: engine at fenced/tombstone, admitted serving lease at
-- quiescing) or 55000 "community write refused: …". An UPDATE that moves a
-- row is checked for its old community too. A NULL community_id is left to
-- the NOT NULL constraint. The active case takes no lock here: the
-- statement-level fence takes it and decides; a fence that commits between
-- the two only moves the refusal to the statement level.
create or replace function community_deletion._refuse_write_early_plpgsql()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
-- Kept to few statements and expressions on the common path (active
-- community): each costs microseconds on its first use in every transaction.
declare
  v_community uuid;
  v_ok boolean;
  v_state text;
  v_hint text;
  v_pass integer := 1;
begin
  -- The common case in one statement: the row's community is active, the
  -- transaction is READ COMMITTED, the row does not move between communities;
  -- the hint is set in the same statement (a refusal below aborts the
  -- statement, which takes the hint back with it).
  select c.deletion_state = 'active'
         and pg_catalog.current_setting('transaction_isolation') = 'read committed'
         and (tg_op <> 'UPDATE' or old.community_id is not distinct from new.community_id),
         pg_catalog.set_config('community_deletion.fence_checked', c.id::text, true)
    into v_ok, v_hint
    from public.communities c
   where c.id = case when tg_op = 'DELETE' then old.community_id else new.community_id end;
  if v_ok then
    if tg_op = 'DELETE' then
      return old;
    end if;
    return new;
  end if;

  -- Everything else, in the order the row-level fence used.
  if pg_catalog.current_setting('transaction_isolation') <> 'read committed' then
    perform community_deletion._require_read_committed(tg_table_name);
  end if;
  if tg_op = 'DELETE' then
    v_community := old.community_id;
  else
    v_community := new.community_id;
  end if;
  if tg_level <> 'ROW' or tg_when <> 'BEFORE' then
    raise exception 'the early community write check on %.% must be attached by community_deletion.register_scoped_table (BEFORE … FOR EACH ROW), not % %',
      tg_table_schema, tg_table_name, tg_when, tg_level
      using errcode = 'DL7C1';
  end if;
  loop
    if v_community is not null then
      select c.deletion_state into v_state from public.communities c where c.id = v_community;
      if v_state is distinct from 'active' and not community_deletion.community_write_allowed(v_community) then
        select c.deletion_state into v_state from public.communities c where c.id = v_community;
        raise exception 'community write refused: % on %.% for community % (%)',
          tg_op, tg_table_schema, tg_table_name, v_community, coalesce(v_state, 'missing')
          using errcode = '55000',
                hint = 'The community is being deleted (or does not exist); its rows accept no writes.';
      end if;
    end if;
    exit when tg_op <> 'UPDATE' or v_pass = 2 or old.community_id is not distinct from new.community_id;
    v_pass := 2;
    v_community := old.community_id;
  end loop;
  if tg_op = 'DELETE' then
    return old;
  end if;
  return new;
end;
$$;
--! EndIncluded functions/_refuse_write_early_plpgsql.sql
--! Included functions/_request_state.sql
-- Why a request is (not) progressing, as one machine word and one human
-- sentence; shared by community_deletion.inspect and community_deletion.list_requests. States:
-- waiting_for_inventory, waiting_for_approval, grace_period, runnable, leased,
-- retry_wait, blocked, completed, aborted. p_approval is the request's approval
-- row (null if none); only an approval for the exact community and digest counts.
create or replace function community_deletion._request_state(
  p_request community_deletion.requests, p_approval community_deletion.approvals,
  out state text, out explanation text)
  language plpgsql
  stable
  set search_path = ''
as $$
declare
  v_bound boolean := coalesce(p_approval.request_id is not null
                              and p_approval.community_id = p_request.community_id
                              and p_approval.inventory_digest = p_request.inventory_digest, false);
begin
  if p_request.stage = 'aborted' then
    state := 'aborted';
    explanation := format('Aborted by %s at %s: %s. A fresh request may be submitted for the community.',
                          p_request.aborted_by, p_request.aborted_at, p_request.abort_reason);
  elsif p_request.stage = 'retention_pending' then
    state := 'completed';
    explanation := format('Completed at %s: logical deletion verified in PostgreSQL, storage and cache; the community is a tombstone.',
                          p_request.completed_at);
  elsif p_request.blocked_at is not null then
    state := 'blocked';
    explanation := format('Blocked at stage %s since %s: %s. Remediate, then run community_deletion.unblock.',
                          p_request.stage, p_request.blocked_at, p_request.blocked_reason);
  elsif p_request.stage = 'submitted' then
    state := 'waiting_for_inventory';
    explanation := format('Submitted by %s; waiting for community_deletion.freeze_inventory with the storage summary.',
                          p_request.requested_by);
  elsif p_request.stage = 'inventoried' then
    state := 'waiting_for_approval';
    explanation := format('Inventory frozen (digest %s); waiting for approval by an operator other than %s.',
                          p_request.inventory_digest, p_request.requested_by);
  elsif not v_bound then
    state := 'waiting_for_approval';
    explanation := format('At stage %s but no approval matches its community and inventory digest, so no executor will claim it.',
                          p_request.stage);
  elsif p_request.lease_owner is not null and p_request.lease_until >= now() then
    state := 'leased';
    explanation := format('Leased by %s (generation %s) until %s, working on stage %s.',
                          p_request.lease_owner, p_request.lease_generation, p_request.lease_until, p_request.stage);
  elsif p_approval.not_before > now() then
    state := 'grace_period';
    explanation := format('Approved by %s; waiting for the grace period until %s (nothing runs before then; abort stays possible).',
                          p_approval.approved_by, p_approval.not_before);
  elsif p_request.next_attempt_at > now() then
    state := 'retry_wait';
    explanation := format('Waiting for retry until %s at stage %s after %s consecutive failure(s): %s.',
                          p_request.next_attempt_at, p_request.stage, p_request.retry_count,
                          coalesce(p_request.last_error, 'no error recorded'));
  else
    state := 'runnable';
    explanation := format('Runnable at stage %s; waiting for an executor to claim it%s.', p_request.stage,
                          case when p_request.lease_owner is not null
                               then format(' (the lease of %s expired at %s)', p_request.lease_owner, p_request.lease_until)
                               else '' end);
  end if;
end;
$$;
--! EndIncluded functions/_request_state.sql
--! Included functions/_require_detail_object.sql
-- The executor's stage functions take a p_detail (what the driver did:
-- counts, totals) that is merged into the stage's checkpoint; it must be a
-- JSON object or NULL (NULL means {}). Anything else is DL1I1, before any
-- change is made.
create or replace function community_deletion._require_detail_object(p_request_id uuid, p_detail jsonb)
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
--! EndIncluded functions/_require_detail_object.sql
--! Included functions/_require_read_committed.sql
-- Writers to community-scoped data, and every function that decides on a
-- community's lifecycle state, must run READ COMMITTED: each statement then sees
-- a snapshot taken after the community lock was granted. REPEATABLE READ and
-- SERIALIZABLE keep the transaction's first snapshot, which may predate a
-- quiesce/fence that committed while the writer waited for the lock, so they are
-- refused (SQLSTATE 25000) before any authorisation is considered.
create or replace function community_deletion._require_read_committed(p_what text)
  returns void
  language plpgsql
  stable
  set search_path = ''
as $$
begin
  if pg_catalog.current_setting('transaction_isolation') <> 'read committed' then
    raise exception 'community write (%) requires READ COMMITTED isolation, not %',
      p_what, pg_catalog.current_setting('transaction_isolation')
      using errcode = '25000',
            hint = 'Run writers to community data with transaction isolation READ COMMITTED.';
  end if;
end;
$$;
--! EndIncluded functions/_require_read_committed.sql
--! Included functions/_require_text.sql
-- Validates a required operator-supplied text argument (identity, reason,
-- executor id, error): trimmed, non-blank, at most p_max characters. Returns the
-- trimmed value; raises invalid_argument (DL1I1) naming the argument otherwise.
create or replace function community_deletion._require_text(p_value text, p_name text, p_max integer)
  returns text
  language plpgsql
  immutable
  set search_path = ''
as $$
declare
  v_value text := pg_catalog.btrim(p_value);
begin
  if v_value is null or v_value = '' then
    raise exception 'community deletion: % is required and must not be blank', p_name
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Pass a non-empty %s.', p_name);
  end if;
  if pg_catalog.length(v_value) > p_max then
    raise exception 'community deletion: % is longer than % characters', p_name, p_max
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Shorten %s to at most %s characters.', p_name, p_max);
  end if;
  return v_value;
end;
$$;
--! EndIncluded functions/_require_text.sql
--! Included functions/_restore_community.sql
-- Abort's community restoration (SPEC §6), kept in one helper so the fence
-- workstream can adjust how it passes the communities lifecycle guard: back to
-- active, archived_at restored to its pre-quiesce value when quiescing had
-- captured it (p_restore_archived), and deletion_fence_generation bumped so
-- every stale executor token and serving lease fails closed. Returns the new
-- generation; refuses (community_not_eligible, DL2C1) a deleted/tombstoned
-- community. The caller holds the exclusive community lock.
create or replace function community_deletion._restore_community(
  p_community uuid, p_archived_at timestamptz, p_restore_archived boolean)
  returns bigint
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_generation bigint;
begin
  update public.communities c
     set deletion_state = 'active',
         deletion_fence_generation = c.deletion_fence_generation + 1,
         archived_at = case when p_restore_archived then p_archived_at else c.archived_at end
   where c.id = p_community
     and c.deletion_state in ('active', 'quiescing', 'fenced')
     and c.deleted_at is null
  returning c.deletion_fence_generation into v_generation;
  if not found then
    raise exception 'community % cannot be restored: it is missing, deleted or tombstoned', p_community
      using errcode = 'DL2C1';
  end if;
  return v_generation;
end;
$$;
--! EndIncluded functions/_restore_community.sql
--! Included functions/_same_operator.sql
-- Whether two operator identities name the same person: identities compare
-- trimmed and case-insensitively, so "Alice" cannot approve "alice"'s request.
create or replace function community_deletion._same_operator(p_a text, p_b text)
  returns boolean
  language sql
  immutable
  parallel safe
  set search_path = ''
as $$
  select pg_catalog.lower(pg_catalog.btrim(p_a)) = pg_catalog.lower(pg_catalog.btrim(p_b))
$$;
--! EndIncluded functions/_same_operator.sql
--! Included functions/_schema_destruction_lock_key.sql
-- Schema/destruction serialisation (SPEC §5.5). One fixed, deployment-wide
-- advisory key: destructive transactions (catalog re-validation + purge, absence
-- proof) hold it SHARED for their whole transaction; any DDL holds it EXCLUSIVE
-- from its first DDL command to the end of its transaction (event trigger
-- _100_lock_schema_destruction), whatever tool issued it. So a migration waits
-- for a running purge, and a purge waits for a running migration and then
-- validates the committed catalog. Shared holders do not block each other.
-- The key must never change: ASCII "cd-ddl-1" = 0x63642d64646c2d31.

create or replace function community_deletion._schema_destruction_lock_key()
  returns bigint
  language sql
  immutable
  parallel safe
  set search_path = ''
as $$
  select 7161899216630721841::bigint
$$;
--! EndIncluded functions/_schema_destruction_lock_key.sql
--! Included functions/_schema_manifest.sql
-- Computes the schema half of a frozen inventory for one community, in SQL:
-- {"scoped_tables": [sorted], "row_counts": {table: rows}, "fenced_tables": [sorted]}.
-- Row counts are observational evidence bound into the approved digest; the
-- executor never requires them to stay equal (it fences, purges and proves zero).
-- Callers validate the catalog first, so the registry equals the live catalog.
create or replace function community_deletion._schema_manifest(p_community uuid)
  returns jsonb
  language plpgsql
  stable
  set search_path = ''
as $$
declare
  v_table text;
  v_tables text[];
  v_count bigint;
  v_counts jsonb := '{}'::jsonb;
begin
  select coalesce(array_agg(r.table_name order by r.table_name collate "C"), '{}') into v_tables
    from community_deletion.registered_tables r where r.kind = 'scoped';
  foreach v_table in array v_tables loop
    execute format('select count(*) from public.%I where community_id = $1', v_table)
      into v_count using p_community;
    v_counts := v_counts || jsonb_build_object(v_table, v_count);
  end loop;
  return jsonb_build_object(
    'scoped_tables', to_jsonb(v_tables),
    'row_counts', v_counts,
    'fenced_tables', to_jsonb(community_deletion._live_fenced_tables()));
end;
$$;
--! EndIncluded functions/_schema_manifest.sql
--! Included functions/_serving_lease_check.sql
-- Shared by verify and guard: locks the lease's community shared, checks the
-- lease, returns its community id or raises DL5S1.
create or replace function community_deletion._serving_lease_check(
  p_lease_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint)
  returns uuid
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_community uuid;
  v_valid boolean := false;
begin
  select l.community_id into v_community from community_deletion.serving_write_leases l where l.id = p_lease_id;
  if v_community is not null then
    perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(v_community));
    select exists (
      select 1 from community_deletion.serving_write_leases l
        join public.communities c on c.id = l.community_id
       where l.id = p_lease_id and l.community_id = v_community and l.owner = p_owner
         and l.generation = p_generation and l.fence_generation = p_fence_generation
         and l.lease_until >= now()
         and c.deletion_state in ('active', 'quiescing')
         and c.deletion_fence_generation = l.fence_generation) into v_valid;
  end if;
  if not v_valid then
    raise exception 'stale serving-write lease % (owner %, generation %, fence generation %)',
      p_lease_id, p_owner, p_generation, p_fence_generation
      using errcode = 'DL5S1',
            hint = 'The lease expired, was released, or the community was fenced: do not perform the effect.';
  end if;
  return v_community;
end;
$$;
--! EndIncluded functions/_serving_lease_check.sql
--! Included functions/_serving_write_granted.sql
-- True when the current transaction holds a serving-write authorisation
-- (community_deletion.guard_serving_write) for the community at exactly p_fence_generation.
-- Security definer so the write-fence trigger, which runs as the writing role,
-- can consult the owner-only grants table; it answers only for the caller's own
-- transaction, so it discloses nothing.
create or replace function community_deletion._serving_write_granted(p_community uuid, p_fence_generation bigint)
  returns boolean
  language sql
  stable
  security definer
  set search_path = ''
as $$
  select exists (
    select 1 from community_deletion.serving_write_grants g
     where g.xact_id = pg_catalog.pg_current_xact_id_if_assigned()
       and g.community_id = p_community
       and g.fence_generation = p_fence_generation)
$$;
--! EndIncluded functions/_serving_write_granted.sql
--! Included functions/_stage_is_abortable.sql
-- Whether an operator may abort a request at `stage` (approved, fenced:
-- nothing irreversible has happened yet). False for a value that is not a
-- stage.
create or replace function community_deletion._stage_is_abortable(stage text)
  returns boolean
  language sql
  immutable
  parallel safe
  set search_path = ''
as $$
  select coalesce((select s.abortable from community_deletion._stages() s where s.stage = _stage_is_abortable.stage), false)
$$;
--! EndIncluded functions/_stage_is_abortable.sql
--! Included functions/_stage_is_fenced.sql
-- Whether a request at `stage` has closed the fence (fenced …
-- retention_pending): its fence generation is set. False for a value that is
-- not a stage.
create or replace function community_deletion._stage_is_fenced(stage text)
  returns boolean
  language sql
  immutable
  parallel safe
  set search_path = ''
as $$
  select coalesce((select s.fenced from community_deletion._stages() s where s.stage = _stage_is_fenced.stage), false)
$$;
--! EndIncluded functions/_stage_is_fenced.sql
--! Included functions/_stage_is_runnable.sql
-- Whether an executor may claim a request at `stage` (approved …
-- logically_verified). False for a value that is not a stage.
create or replace function community_deletion._stage_is_runnable(stage text)
  returns boolean
  language sql
  immutable
  parallel safe
  set search_path = ''
as $$
  select coalesce((select s.runnable from community_deletion._stages() s where s.stage = _stage_is_runnable.stage), false)
$$;
--! EndIncluded functions/_stage_is_runnable.sql
--! Included functions/_stage_is_terminal.sql
-- Whether `stage` is terminal (aborted, retention_pending): nothing moves it
-- again. False for a value that is not a stage.
create or replace function community_deletion._stage_is_terminal(stage text)
  returns boolean
  language sql
  immutable
  parallel safe
  set search_path = ''
as $$
  select coalesce((select s.terminal from community_deletion._stages() s where s.stage = _stage_is_terminal.stage), false)
$$;
--! EndIncluded functions/_stage_is_terminal.sql
--! Included functions/_stage_order.sql
-- Position of a stage in the lifecycle (submitted=1 … retention_pending=10,
-- aborted=99); null for a value that is not a stage.
create or replace function community_deletion._stage_order(stage text)
  returns integer
  language sql
  immutable
  parallel safe
  set search_path = ''
as $$
  select s.stage_order from community_deletion._stages() s where s.stage = _stage_order.stage
$$;
--! EndIncluded functions/_stage_order.sql
--! Included functions/_stages.sql
-- The request lifecycle's stages (docs/lifecycle.md, "Stages"): the one
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
  set search_path = ''
as $$
  values
    ('submitted',          1,  'inventoried',        false, false, false, false),
    ('inventoried',        2,  'approved',           false, false, false, false),
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
--! Included functions/_tombstone_community.sql
-- Turns a fenced community into its permanent tombstone: deletion_state
-- 'tombstone', deleted_at and archived_at set, signing key and icon cleared.
-- Only if it is still fenced at exactly p_fence_generation (an abort or a
-- newer fence changes one of the two); returns whether it did. Kept as the
-- single place the purge writes communities, so the tombstone guard has one
-- sanctioned writer to admit.
create or replace function community_deletion._tombstone_community(p_community uuid, p_fence_generation bigint)
  returns boolean
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  update public.communities c
     set deletion_state = 'tombstone',
         deleted_at = coalesce(c.deleted_at, now()),
         archived_at = coalesce(c.archived_at, now()),
         signing_key = null,
         icon = null
   where c.id = p_community
     and c.deletion_state = 'fenced'
     and c.deletion_fence_generation = p_fence_generation;
  return found;
end;
$$;
--! EndIncluded functions/_tombstone_community.sql
--! Included functions/_verify_lease.sql
-- Lease verification: every executor-side mutation calls one of these inside
-- its own transaction before it changes anything. Plain reads, no row locks:
-- the lock order is "community advisory lock, then rows", and a row lock taken
-- here (before a caller's community lock) would deadlock against abort.

-- Returns the request if (owner, generation) is its current, unexpired,
-- unblocked lease at p_stage with an approval bound to its exact digest;
-- otherwise raises stale_lease (DL4L1) naming the request, owner, generation
-- and the first reason found. The caller must stop work on DL4L1.
create or replace function community_deletion._verify_lease(
  p_request_id uuid, p_owner text, p_generation bigint, p_stage text)
  returns community_deletion.requests
  language plpgsql
  stable
  set search_path = ''
as $$
declare
  v_request community_deletion.requests;
  v_reason text;
begin
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id;
  if not found then
    v_reason := 'the request does not exist';
  elsif v_request.stage is distinct from p_stage then
    v_reason := format('the request is at stage %s, not %s', v_request.stage, p_stage);
  elsif v_request.lease_owner is distinct from p_owner or v_request.lease_generation is distinct from p_generation then
    v_reason := format('the lease is held by %s at generation %s',
                       coalesce(v_request.lease_owner, '(nobody)'), v_request.lease_generation);
  elsif v_request.lease_until < now() then
    v_reason := format('the lease expired at %s', v_request.lease_until);
  elsif v_request.blocked_at is not null then
    v_reason := format('the request is blocked: %s', v_request.blocked_reason);
  elsif not exists (
    select 1 from community_deletion.approvals a
     where a.request_id = v_request.id and a.community_id = v_request.community_id
       and a.inventory_digest = v_request.inventory_digest) then
    v_reason := 'no approval matches the request''s community and inventory digest';
  end if;
  if v_reason is not null then
    raise exception 'stale deletion lease for request % (owner %, generation %): %',
      p_request_id, p_owner, p_generation, v_reason
      using errcode = 'DL4L1',
            hint = 'Ownership was lost: stop work on this request; a current executor will resume from checkpoints.';
  end if;
  return v_request;
end;
$$;
--! EndIncluded functions/_verify_lease.sql
--! Included functions/_verify_lease_and_fence.sql
-- Lease verification: every executor-side mutation calls one of these inside
-- its own transaction before it changes anything. Plain reads, no row locks:
-- the lock order is "community advisory lock, then rows", and a row lock taken
-- here (before a caller's community lock) would deadlock against abort.
--
-- As community_deletion._verify_lease, and also: the request carries fence generation
-- p_fence_generation and its community is fenced (or tombstoned) at exactly that
-- generation. Every stage after the fence uses this variant, so an abort (which
-- bumps the community's generation) invalidates every older token.
create or replace function community_deletion._verify_lease_and_fence(
  p_request_id uuid, p_owner text, p_generation bigint, p_stage text, p_fence_generation bigint)
  returns community_deletion.requests
  language plpgsql
  stable
  set search_path = ''
as $$
declare
  v_request community_deletion.requests;
  v_state text;
  v_community_generation bigint;
  v_reason text;
begin
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, p_stage);
  select c.deletion_state, c.deletion_fence_generation into v_state, v_community_generation
    from public.communities c where c.id = v_request.community_id;
  if p_fence_generation is null then
    v_reason := 'no fence generation was presented';
  elsif v_request.fence_generation is distinct from p_fence_generation then
    v_reason := format('the request is at fence generation %s, not %s',
                       coalesce(v_request.fence_generation::text, '(none)'), p_fence_generation);
  elsif v_state is null or v_state not in ('fenced', 'tombstone') then
    v_reason := format('community %s is %s, not fenced', v_request.community_id, coalesce(v_state, 'missing'));
  elsif v_community_generation is distinct from p_fence_generation then
    v_reason := format('community %s is at fence generation %s, not %s',
                       v_request.community_id, v_community_generation, p_fence_generation);
  end if;
  if v_reason is not null then
    raise exception 'stale deletion lease for request % (owner %, generation %, fence generation %): %',
      p_request_id, p_owner, p_generation, p_fence_generation, v_reason
      using errcode = 'DL4L1',
            hint = 'Ownership or the fence was lost: stop work on this request.';
  end if;
  return v_request;
end;
$$;
--! EndIncluded functions/_verify_lease_and_fence.sql
--! Included functions/_write_fence_plpgsql.sql
-- The write fence (SPEC §5.2), statement-level — its rules, in PL/pgSQL.
-- The triggers execute community_deletion.tg_scoped_table__enforce_write_fence(), which
-- write_fence_install.sql makes either the native fast path (library
-- community_deletion_fence, db/native: it decides the common case — one
-- community, active — itself and hands every other case to this function with
-- the same trigger context) or a PL/pgSQL copy of this function.
-- On every registered
-- community-scoped table community_deletion.register_scoped_table attaches three AFTER …
-- FOR EACH STATEMENT triggers executing it, one per event, each with
-- its transition tables (PostgreSQL allows transition tables on single-event
-- triggers only):
--   _010_community_write_fence         AFTER INSERT  REFERENCING NEW TABLE AS fence_new_rows
--   _010_community_write_fence_update  AFTER UPDATE  REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows
--   _010_community_write_fence_delete  AFTER DELETE  REFERENCING OLD TABLE AS fence_old_rows
-- (exactly what community_deletion.validate_catalog detects as "fenced"). These decide.
-- Next to them, the early-refusal row triggers of
-- tg_scoped_table__refuse_write_early.sql make a refused write fail before
-- the row's constraints; they authorise nothing.
--
-- Once per statement, for the DISTINCT communities the statement touched (an
-- UPDATE: those of the old AND the new rows, so a row moved between
-- communities is checked for both):
--   1. no rows touched → nothing to decide;
--   2. not READ COMMITTED → 25000 (before any authorisation is considered);
--   3. every community's advisory lock SHARED until commit, in key order
--      (quiesce, fence and abort take it EXCLUSIVE: they order after every
--      writer that holds it, and a writer that queues behind them sees their
--      committed state);
--   4. then, in a NEW statement (a fresh READ COMMITTED snapshot taken after
--      the locks were granted), the communities' states: all active → allowed.
--      Otherwise each non-active one goes through community_write_allowed
--      (engine at fenced/tombstone, admitted serving lease at quiescing) and a
--      refusal raises 55000 "community write refused: …", which aborts the
--      whole statement (every row it wrote is undone).
-- The rule per row is the one the row-level fence applied; what changed is the
-- cost: a 1,000-row INSERT for one community pays one lock and one lookup,
-- not 1,000 (see docs/fence.md and docs/benchmarks.md).
--
-- Why AFTER is as strong as BEFORE here: the statement's rows are invisible to
-- every other transaction until commit, and a refusal raised by an AFTER
-- statement trigger rolls the statement back, so no refused row can ever be
-- seen or committed. A writer that waits for the lock while a transition
-- holds it has already written its (uncommitted) rows; that cannot deadlock
-- with the transition, because quiesce, fence and abort touch no
-- community-scoped table while they hold the lock.
--
-- Attached any other way it fails closed: without its transition tables the
-- first statement fails (42P01, relation "fence_new_rows" does not exist); as
-- a row-level trigger it refuses every write it does not wave through as
-- active (DL7C1). The writing role needs SELECT on communities (the
-- application role has it).
-- A NULL community_id is left to the NOT NULL constraint.
create or replace function community_deletion._write_fence_plpgsql()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
-- Kept to few statements and expressions on the common path (one community,
-- active): each costs microseconds on the first use in every transaction,
-- and single-row autocommit writes are nothing but first uses.
declare
  v_ids uuid[];
  v_hint text;
  v_state text;
  v_id uuid;
begin
  -- 1. The distinct communities of the statement (an aggregate's DISTINCT
  --    sorts within work_mem and spills beyond it); in the same statement the
  --    early-refusal hint is cleared: it lives for one statement only (see
  --    tg_scoped_table__refuse_write_early.sql).
  if tg_op = 'INSERT' then
    select pg_catalog.array_agg(distinct n.community_id) filter (where n.community_id is not null),
           pg_catalog.set_config('community_deletion.fence_checked', '', true)
      into v_ids, v_hint
      from fence_new_rows n;
  elsif tg_op = 'DELETE' then
    select pg_catalog.array_agg(distinct o.community_id) filter (where o.community_id is not null),
           pg_catalog.set_config('community_deletion.fence_checked', '', true)
      into v_ids, v_hint
      from fence_old_rows o;
  elsif tg_op = 'UPDATE' then
    select pg_catalog.array_agg(distinct u.c) filter (where u.c is not null),
           pg_catalog.set_config('community_deletion.fence_checked', '', true)
      into v_ids, v_hint
      from (select o.community_id as c from fence_old_rows o
            union all
            select n.community_id from fence_new_rows n) u;
  else
    raise exception 'the community write fence does not handle % on %.%', tg_op, tg_table_schema, tg_table_name
      using errcode = 'DL7C1';
  end if;

  if pg_catalog.cardinality(v_ids) = 1 and pg_catalog.current_setting('transaction_isolation') = 'read committed' then
    -- 2. The common case. The lock (= community_deletion._community_lock_key,
    --    inlined: that function's SET search_path costs microseconds per call;
    --    equality is pinned by write_fence/fence_uses_the_community_lock_key),
    -- 3. then, in a new statement (fresh snapshot, taken after the lock was
    --    granted), the state.
    perform pg_catalog.pg_advisory_xact_lock_shared(
      ('x' || pg_catalog.left(pg_catalog.replace(v_ids[1]::text, '-', ''), 16))::bit(64)::bigint
      # 7165065848772979813::bigint);
    select c.deletion_state into v_state from public.communities c where c.id = v_ids[1];
    if v_state = 'active' then
      return null;
    end if;
  elsif v_ids is null then
    return null;
  elsif pg_catalog.current_setting('transaction_isolation') <> 'read committed' then
    perform community_deletion._require_read_committed(tg_table_name);
  else
    -- Several communities: every lock, in key order, then one lookup.
    if tg_level <> 'STATEMENT' then
      raise exception 'the community write fence on %.% must be attached by community_deletion.register_scoped_table (AFTER … FOR EACH STATEMENT with transition tables), not % %',
        tg_table_schema, tg_table_name, tg_when, tg_level
        using errcode = 'DL7C1';
    end if;
    perform pg_catalog.pg_advisory_xact_lock_shared(k.key)
       from (select distinct ('x' || pg_catalog.left(pg_catalog.replace(x::text, '-', ''), 16))::bit(64)::bigint
                             # 7165065848772979813::bigint as key
               from pg_catalog.unnest(v_ids) x) k
      order by k.key;
    select pg_catalog.array_agg(x order by x) into v_ids
      from pg_catalog.unnest(v_ids) x
      left join public.communities c on c.id = x
     where c.deletion_state is distinct from 'active';
    if v_ids is null then
      return null;
    end if;
  end if;

  -- 4. Not active: the engine, or an admitted serving lease, or 55000.
  if tg_level <> 'STATEMENT' then
    raise exception 'the community write fence on %.% must be attached by community_deletion.register_scoped_table (AFTER … FOR EACH STATEMENT with transition tables), not % %',
      tg_table_schema, tg_table_name, tg_when, tg_level
      using errcode = 'DL7C1';
  end if;
  foreach v_id in array v_ids loop
    if not community_deletion.community_write_allowed(v_id) then
      select c.deletion_state into v_state from public.communities c where c.id = v_id;
      raise exception 'community write refused: % on %.% for community % (%)',
        tg_op, tg_table_schema, tg_table_name, v_id, coalesce(v_state, 'missing')
        using errcode = '55000',
              hint = 'The community is being deleted (or does not exist); its rows accept no writes.';
    end if;
  end loop;
  return null;
end;
$$;
--! EndIncluded functions/_write_fence_plpgsql.sql
--! Included functions/abort.sql
-- Operator API: terminally aborts a request before any object is deleted
-- (SPEC §6). Only at approved or fenced (wrong_stage, DL2S1; never from drained
-- on, whatever the checkpoints say); terminal requests refuse (DL2T1); live
-- serving-write leases refuse (serving_not_drained, DL5D1, retryable).
-- Under the exclusive community lock (taken FIRST, then row locks, so a queued
-- quiesce/fence re-verifies its lease after abort and fails): restores the
-- community (active, pre-quiesce archived_at, fence generation + 1), writes an
-- 'operator_abort:<uuid>' audit checkpoint, and terminalises the request (lease
-- dropped, lease generation + 1, block and retry streak cleared). A fresh
-- request for the community may follow.
create or replace function community_deletion.abort(request_id uuid, aborted_by text, reason text)
  returns community_deletion.requests
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_aborted_by alias for $2;
  p_reason alias for $3;
  v_aborted_by text := community_deletion._require_text(p_aborted_by, 'aborted_by', 512);
  v_reason text := community_deletion._bound_text(community_deletion._require_text(p_reason, 'reason', 100000), 4096);
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
  perform community_deletion._lock_community(v_community, true);

  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is already terminal (%)', p_request_id, v_request.stage
      using errcode = 'DL2T1';
  end if;
  if not community_deletion._stage_is_abortable(v_request.stage) then
    raise exception 'deletion request % is at stage %; abort is possible only at approved or fenced',
      p_request_id, v_request.stage
      using errcode = 'DL2S1',
            hint = case when v_request.stage in ('submitted', 'inventoried')
                        then 'Nothing has changed for the community yet; approve and then abort, or leave the request unapproved.'
                        else 'Object deletion may already have begun; the request can only run to completion (unblock after remediation).' end;
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
  return v_request;
end;
$$;
--! EndIncluded functions/abort.sql
--! Included functions/acquire_serving_lease.sql
-- Serving-write leases (SPEC §3.2, §4 approved stage, §7): a short lease the
-- serving path holds around an external side effect (S3 upload, git push, push
-- notification). Acquisition shares the community lock with the writers, so
-- quiesce (exclusive) orders after every acquisition that started first and
-- refuses every later one; the fence then waits for admitted leases to drain.

-- Acquires a lease for operation on an ACTIVE community (serving_lease_denied
-- DL5S1 for quiescing/fenced/tombstone, community_not_found DL1N2 for an unknown
-- id). The lease carries the community's current fence generation; every later
-- renew/verify/guard must present it. lease_seconds in 1..3600 (DL1I1).
create or replace function community_deletion.acquire_serving_lease(
  community_id uuid, operation text, owner text, lease_seconds integer default 60)
  returns community_deletion.serving_write_leases
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_community alias for $1;
  p_operation alias for $2;
  p_owner alias for $3;
  p_lease_seconds alias for $4;
  v_state text;
  v_generation bigint;
  v_lease community_deletion.serving_write_leases;
begin
  perform community_deletion._require_read_committed('community_deletion.acquire_serving_lease');
  if p_community is null or p_operation is null or pg_catalog.btrim(p_operation) = ''
     or p_owner is null or pg_catalog.btrim(p_owner) = ''
     or p_lease_seconds is null or p_lease_seconds not between 1 and 3600 then
    raise exception 'serving lease acquisition needs a community, an operation, an owner and 1..3600 lease seconds'
      using errcode = 'DL1I1';
  end if;
  perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(p_community));
  select c.deletion_state, c.deletion_fence_generation into v_state, v_generation
    from public.communities c where c.id = p_community;
  if not found then
    raise exception 'community % does not exist', p_community using errcode = 'DL1N2';
  end if;
  if v_state <> 'active' then
    raise exception 'community write refused: community % is % and admits no new serving-write lease (operation %)',
      p_community, v_state, p_operation
      using errcode = 'DL5S1',
            hint = 'The community is being deleted; new external side effects are not admitted.';
  end if;
  insert into community_deletion.serving_write_leases (community_id, operation, owner, fence_generation, lease_until)
  values (p_community, p_operation, p_owner, v_generation, now() + pg_catalog.make_interval(secs => p_lease_seconds))
  returning * into v_lease;
  return v_lease;
end;
$$;
--! EndIncluded functions/acquire_serving_lease.sql
--! Included functions/append_key_chunk.sql
-- Appends one chunk of the post-fence destructive key list (executor API,
-- stage fenced, current lease + fence token, manifest not yet frozen). The
-- chunk guard trigger validates the chunk itself (community_deletion._check_key_chunk):
-- contiguous number, owned prefix, canonical, ordered entries matching the
-- storage taxonomy. The freeze later binds the chunks to the manifest digests.
create or replace function community_deletion.append_key_chunk(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint,
  chunk_no integer,
  prefix text,
  entries jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_chunk_no alias for $5;
  p_prefix alias for $6;
  p_entries alias for $7;
  v_request community_deletion.requests;
begin
  -- Serialise with the freeze and with other appends of this request.
  perform 1 from community_deletion.requests r where r.id = p_request_id for no key update;
  if not found then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'fenced', p_fence_generation);
  if v_request.destructive_storage_manifest is not null then
    raise exception 'request % (community %): the destructive manifest is frozen; no chunk can be appended',
      p_request_id, v_request.community_id
      using errcode = 'DL6F1';
  end if;
  insert into community_deletion.manifest_keys (request_id, chunk_no, prefix, entries, entry_count)
  values (p_request_id, p_chunk_no, p_prefix, p_entries,
          case when jsonb_typeof(p_entries) = 'array' then jsonb_array_length(p_entries) else 0 end);
end;
$$;
--! EndIncluded functions/append_key_chunk.sql
--! Included functions/approve.sql
-- Operator API: a second operator approves the exact frozen inventory of an
-- inventoried, unblocked request and moves it to approved. Refusals: the
-- requester approving (self_approval, DL3A1), a stored inventory that no longer
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
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_approved_by alias for $2;
  p_note alias for $3;
  p_not_before alias for $4;
  p_delay alias for $5;
  v_approved_by text := community_deletion._require_text(p_approved_by, 'approved_by', 512);
  v_note text := community_deletion._bound_text(nullif(btrim(p_note), ''), 4096);
  v_minimum interval;
  v_not_before timestamptz;
  v_request community_deletion.requests;
begin
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
  if v_request.inventory_digest is distinct from community_deletion._inventory_digest(v_request.inventory_manifest) then
    raise exception 'deletion request %: the frozen inventory no longer hashes to its digest %',
      p_request_id, v_request.inventory_digest
      using errcode = 'DL3A2',
            hint = 'The stored inventory was modified after it was frozen; investigate the control plane before anyone approves.';
  end if;

  insert into community_deletion.approvals
    (request_id, community_id, inventory_digest, approved_by, note, not_before, approved_at)
  values
    (v_request.id, v_request.community_id, v_request.inventory_digest, v_approved_by, v_note, v_not_before, now());

  update community_deletion.requests r
     set stage = 'approved', next_attempt_at = v_not_before, updated_at = now()
   where r.id = p_request_id and r.stage = 'inventoried' and r.blocked_at is null
  returning r.* into v_request;
  return v_request;
end;
$$;
--! EndIncluded functions/approve.sql
--! Included functions/assert_community_write_allowed.sql
-- Raises community_write_fenced (55000, message "community write …") unless
-- community_write_allowed(community_id). Application code calls it at the start
-- of a write transaction to fail before doing work; the write-fence trigger
-- enforces the same decision on every row anyway.
create or replace function community_deletion.assert_community_write_allowed(community_id uuid)
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_community alias for $1;
  v_state text;
  v_generation bigint;
begin
  if community_deletion.community_write_allowed(p_community) then
    return;
  end if;
  select c.deletion_state, c.deletion_fence_generation into v_state, v_generation
    from public.communities c where c.id = p_community;
  raise exception 'community write refused: community % is %', p_community,
    case when v_state is null then 'missing'
         else format('%s (fence generation %s)', v_state, v_generation) end
    using errcode = '55000',
          hint = case when v_state = 'quiescing'
                      then 'The community is being deleted; only writes under an admitted serving-write lease (community_deletion.guard_serving_write) may finish.'
                      else 'The community is being deleted or does not exist; writes are not accepted.' end;
end;
$$;
--! EndIncluded functions/assert_community_write_allowed.sql
--! Included functions/begin_quiescing.sql
-- approved stage, step 1 (SPEC §4): persist "quiescing" so no new serving-write
-- lease is admitted while admitted ones may renew and finish. Order matters:
-- verify the lease, take the community lock EXCLUSIVELY (waits for every open
-- writer and acquisition holding it shared), verify the lease AGAIN (an abort
-- that won the lock while we waited has terminalised the request and bumped the
-- generation: we must fail with stale_lease DL4L1, never re-quiesce a rescued
-- community), re-check the catalog under the shared schema/destruction lock
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
  set search_path = ''
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
  perform community_deletion._lock_community(v_request.community_id, true);
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_schema_destruction_shared();
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
--! Included functions/block.sql
-- Executor API: records a permanent (safety) failure of one unit at stage:
-- a failed checkpoint, a durable block with the reason, the lease released.
-- Only an operator's community_deletion.unblock (after remediation) resumes it. Verifies
-- the lease first (stale_lease, DL4L1).
create or replace function community_deletion.block(
  request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
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
--! Included functions/block_preclaim.sql
-- Executor API: records a failure that happened before any claim existed
-- (missing service configuration, a setup error) against an identifiable
-- request, so it is durable and community_deletion.inspect explains it. Upserts a failed
-- 'pre_claim:<unit>' checkpoint at the request's stage (attempts counted across
-- repeats, e.g. block -> unblock -> block again gives attempts = 2) and blocks
-- the request. Refuses terminal requests (DL2T1) and requests leased by a live
-- executor (lease_held, DL4L2), which record their own failures.
create or replace function community_deletion.block_preclaim(request_id uuid, unit_key text, error text)
  returns community_deletion.requests
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_unit_key alias for $2;
  p_error alias for $3;
  v_unit_key text := community_deletion._require_text(p_unit_key, 'unit_key', 246);
  v_error text := community_deletion._bound_text(community_deletion._require_text(p_error, 'error', 1000000), 4096);
  v_request community_deletion.requests;
begin
  if v_unit_key not like 'pre\_claim:%' then
    v_unit_key := 'pre_claim:' || v_unit_key;
  end if;
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is terminal (%); no setup failure is recorded against it',
      p_request_id, v_request.stage
      using errcode = 'DL2T1';
  end if;
  if v_request.lease_owner is not null and v_request.lease_until >= now() then
    raise exception 'deletion request % is leased by % (generation %) until %',
      p_request_id, v_request.lease_owner, v_request.lease_generation, v_request.lease_until
      using errcode = 'DL4L2';
  end if;
  perform community_deletion._checkpoint(
    v_request.id, v_request.stage, v_unit_key, 'failed', v_request.lease_generation,
    jsonb_build_object('error', v_error), v_error);
  update community_deletion.requests r
     set blocked_at = now(), blocked_reason = v_error, last_error = v_error, last_error_at = now(),
         updated_at = now()
   where r.id = p_request_id
  returning r.* into v_request;
  return v_request;
end;
$$;
--! EndIncluded functions/block_preclaim.sql
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
  set search_path = ''
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
  -- The owner is stored exactly as given (later calls present the same
  -- string), so it must already be trimmed.
  if community_deletion._require_text(p_owner, 'executor id (owner)', 256) <> p_owner then
    raise exception 'community deletion: executor id % has leading or trailing whitespace', pg_catalog.quote_literal(p_owner)
      using errcode = 'DL1I1';
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
--! Included functions/clear_key_chunks.sql
-- Removes the key chunks of an interrupted, never-frozen enumeration so a
-- retried freeze starts again from chunk 0 (executor API). Refused once the
-- manifest is frozen: frozen chunks are the binding delete list.
create or replace function community_deletion.clear_key_chunks(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint)
  returns integer
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  v_request community_deletion.requests;
  v_deleted integer;
begin
  perform 1 from community_deletion.requests r where r.id = p_request_id for no key update;
  if not found then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'fenced', p_fence_generation);
  if v_request.destructive_storage_manifest is not null then
    raise exception 'request % (community %): the destructive manifest is frozen; its key chunks cannot be cleared',
      p_request_id, v_request.community_id
      using errcode = 'DL6F1';
  end if;
  delete from community_deletion.manifest_keys k where k.request_id = p_request_id;
  get diagnostics v_deleted = row_count;
  return v_deleted;
end;
$$;
--! EndIncluded functions/clear_key_chunks.sql
--! Included functions/community_write_allowed.sql
-- The write-fence decision for one community, inside the caller's transaction
-- (SPEC §5.2, §5.3). Takes the community advisory lock SHARED (held to the end of
-- the transaction, so quiesce/fence/abort, which take it exclusively, order
-- after this writer), then allows the write iff the community
--   * is active, or
--   * is fenced (or tombstoned) and the caller is the engine: current_user is
--     community_deletion_owner, which only the engine's security-definer
--     functions run as (they verify lease and fence generation first), or
--   * is quiescing and this transaction holds a serving-write authorisation from
--     community_deletion.guard_serving_write at the community's current fence generation.
-- No session setting is consulted: nothing a client can SET authorises a write.
-- Refuses REPEATABLE READ / SERIALIZABLE first (25000). A missing community is
-- not writable.
create or replace function community_deletion.community_write_allowed(community_id uuid)
  returns boolean
  language plpgsql
  volatile
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_community alias for $1;
  v_state text;
  v_generation bigint;
begin
  perform community_deletion._require_read_committed('community_write_allowed');
  if p_community is null then
    return false;
  end if;
  perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(p_community));
  select c.deletion_state, c.deletion_fence_generation into v_state, v_generation
    from public.communities c where c.id = p_community;
  return case
    when v_state is null then false
    when v_state = 'active' then true
    when v_state in ('fenced', 'tombstone') then current_user = 'community_deletion_owner'
    when v_state = 'quiescing' then community_deletion._serving_write_granted(p_community, v_generation)
    else false
  end;
end;
$$;
--! EndIncluded functions/community_write_allowed.sql
--! Included functions/executor_stopped.sql
-- Executor API: records that an executor process stopped (its liveness row
-- keeps the last heartbeat, marked draining and stopped). Unknown ids are ignored.
create or replace function community_deletion.executor_stopped(executor_id text)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_executor_id alias for $1;
begin
  update community_deletion.executor_heartbeats h
     set request_id = null, draining = true, heartbeat_at = now(), stopped_at = now()
   where h.executor_id = p_executor_id;
end;
$$;
--! EndIncluded functions/executor_stopped.sql
--! Included functions/fence.sql
-- approved stage, step 2 (SPEC §4, §5.2): close the fence. Same lock discipline
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
  set search_path = ''
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
  perform community_deletion._lock_community(v_request.community_id, true);
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
  select count(*), coalesce(pg_catalog.array_agg(distinct l.operation order by l.operation), '{}')
    into v_live, v_operations
    from community_deletion.serving_write_leases l
   where l.community_id = v_request.community_id and l.lease_until >= now();
  if v_live > 0 then
    raise exception 'community % of request % is not drained: % live serving-write lease(s) (%)',
      v_request.community_id, p_request_id, v_live, pg_catalog.array_to_string(v_operations, ', ')
      using errcode = 'DL5D1',
            detail = pg_catalog.jsonb_build_object('community_id', v_request.community_id,
                                                   'live_leases', v_live, 'operations', v_operations)::text,
            hint = 'Retry after the admitted serving-write leases are released or expire.';
  end if;
  v_new_generation := v_community.deletion_fence_generation + 1;
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
-- frozen the manifest and its chunks are immutable (triggers).
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
  set search_path = ''
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
  if exists (select 1 from community_deletion.serving_write_leases l
             where l.community_id = v_request.community_id and l.lease_until >= now()) then
    raise exception 'request % (community %): serving-write leases are still live; the manifest cannot be frozen yet',
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
--! Included functions/freeze_inventory.sql
-- Operator API: freezes the inventory of a submitted request and moves it to
-- inventoried. The schema half is computed here in SQL after validating the
-- catalog (DL7C1 on drift); the storage half is the driver's summary of the
-- three owned prefixes, validated and canonicalised (DL1M1). The canonical
-- inventory is {"schema": …, "storage": …}; its digest is the lowercase hex
-- SHA-256 of its jsonb text, which approval later recomputes and binds to.
create or replace function community_deletion.freeze_inventory(request_id uuid, storage_summary jsonb)
  returns community_deletion.requests
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_storage_manifest alias for $2;
  v_request community_deletion.requests;
  v_state text;
  v_schema jsonb;
  v_storage jsonb;
  v_inventory jsonb;
begin
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
         last_error = null,
         last_error_at = null,
         updated_at = now()
   where r.id = p_request_id and r.stage = 'submitted' and r.blocked_at is null
  returning r.* into v_request;
  return v_request;
end;
$$;
--! EndIncluded functions/freeze_inventory.sql
--! Included functions/guard_serving_write.sql
-- The transaction guard for a final database mutation under an admitted lease:
-- verifies the exact lease (as community_deletion.verify_serving_lease, community lock
-- shared, held to commit) and records an authorisation for THIS transaction
-- (pg_current_xact_id()) and the lease's community at its fence generation in
-- the owner-only grants table. While the community is quiescing the write fence
-- admits this transaction's writes to that community only; on an active
-- community the grant is not needed but harmless. Raises DL5S1 for a stale lease.
create or replace function community_deletion.guard_serving_write(
  lease_id uuid, owner text, lease_generation bigint, fence_generation bigint)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_lease_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  v_community uuid;
begin
  perform community_deletion._require_read_committed('community_deletion.guard_serving_write');
  v_community := community_deletion._serving_lease_check(p_lease_id, p_owner, p_generation, p_fence_generation);
  insert into community_deletion.serving_write_grants (xact_id, community_id, lease_id, fence_generation)
  values (pg_catalog.pg_current_xact_id(), v_community, p_lease_id, p_fence_generation)
  on conflict (xact_id, community_id) do update
    set lease_id = excluded.lease_id, fence_generation = excluded.fence_generation, granted_at = now();
end;
$$;
--! EndIncluded functions/guard_serving_write.sql
--! Included functions/heartbeat.sql
-- Executor API: renews the lease for lease_seconds (1..3600) and records the
-- executor's liveness. Only the exact owner + generation of a live, unblocked
-- lease at a runnable stage with a bound approval is renewed; anything else is
-- stale_lease (DL4L1) — in particular a blocked request cannot renew, so its
-- executor stops. Returns the new lease expiry.
create or replace function community_deletion.heartbeat(
  request_id uuid, executor_id text, lease_generation bigint, mode text default 'run',
  lease_seconds integer default 60, draining boolean default false)
  returns timestamptz
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_mode alias for $4;
  p_lease_seconds alias for $5;
  p_draining alias for $6;
  v_until timestamptz;
begin
  if p_mode is null or p_mode not in ('run', 'drain', 'worker') then
    raise exception 'community deletion: executor mode % is not run, drain or worker', p_mode
      using errcode = 'DL1I1';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception 'community deletion: lease of % seconds is outside 1..3600', p_lease_seconds
      using errcode = 'DL1I1';
  end if;
  update community_deletion.requests r
     set lease_until = now() + make_interval(secs => p_lease_seconds), updated_at = now()
   where r.id = p_request_id
     and r.lease_owner = p_owner
     and r.lease_generation = p_generation
     and r.lease_until >= now()
     and r.blocked_at is null
     and community_deletion._stage_is_runnable(r.stage)
     and exists (select 1 from community_deletion.approvals a
                  where a.request_id = r.id and a.community_id = r.community_id
                    and a.inventory_digest = r.inventory_digest)
  returning r.lease_until into v_until;
  if not found then
    -- Raise with the precise reason.
    perform community_deletion._verify_lease(p_request_id, p_owner, p_generation,
      (select r.stage from community_deletion.requests r where r.id = p_request_id));
    raise exception 'stale deletion lease for request % (owner %, generation %): the stage is not runnable',
      p_request_id, p_owner, p_generation
      using errcode = 'DL4L1';
  end if;
  insert into community_deletion.executor_heartbeats as h (executor_id, mode, request_id, draining)
  values (p_owner, p_mode, p_request_id, coalesce(p_draining, false))
  on conflict (executor_id) do update
     set mode = excluded.mode, request_id = excluded.request_id, draining = excluded.draining,
         heartbeat_at = now(), stopped_at = null;
  return v_until;
end;
$$;
--! EndIncluded functions/heartbeat.sql
--! Included functions/inspect.sql
-- Operator API: everything about one request as jsonb: the request row, its
-- community's lifecycle columns, its approval (or null), its checkpoints in
-- order, and why it is (not) progressing: "state" (one machine word, see
-- community_deletion._request_state) and "explanation" (one human sentence).
create or replace function community_deletion.inspect(request_id uuid)
  returns jsonb
  language plpgsql
  stable
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  v_request community_deletion.requests;
  v_approval community_deletion.approvals;
  v_state text;
  v_explanation text;
begin
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  select a.* into v_approval from community_deletion.approvals a where a.request_id = p_request_id;
  select s.state, s.explanation into v_state, v_explanation
    from community_deletion._request_state(v_request, v_approval) s;
  return jsonb_build_object(
    'request', to_jsonb(v_request),
    'community', (select jsonb_build_object(
                           'id', c.id, 'host', c.host, 'deletion_state', c.deletion_state,
                           'deletion_fence_generation', c.deletion_fence_generation,
                           'archived_at', c.archived_at, 'deleted_at', c.deleted_at)
                    from public.communities c where c.id = v_request.community_id),
    'approval', case when v_approval.request_id is null then null else to_jsonb(v_approval) end,
    'checkpoints', coalesce((select jsonb_agg(to_jsonb(cp) - 'request_id' order by cp.sequence)
                               from community_deletion.checkpoints cp
                              where cp.request_id = p_request_id), '[]'::jsonb),
    'state', v_state,
    'explanation', v_explanation);
end;
$$;
--! EndIncluded functions/inspect.sql
--! Included functions/install_write_fence.sql
-- Which implementation the write-fence triggers execute (docs/fence.md,
-- "Native fast path").
--
-- The triggers attached by community_deletion.register_scoped_table always execute
-- community_deletion.tg_scoped_table__enforce_write_fence() (AFTER … FOR EACH STATEMENT)
-- and community_deletion.tg_scoped_table__refuse_write_early() (BEFORE … FOR EACH ROW).
-- Those two functions are either
--   native:  LANGUAGE c from the library community_deletion_fence (db/native,
--            installed into the server's $libdir by `make -C db/native
--            install`). It decides only the common case itself — the
--            statement touched one community and it is active — and hands
--            every other case, with the same trigger context, to
--            community_deletion._write_fence_plpgsql / community_deletion._refuse_write_early_plpgsql;
--   plpgsql: copies of those two PL/pgSQL functions.
-- The rules are the PL/pgSQL ones either way; the native path only makes a
-- single-row write to an active community cheaper (docs/benchmarks.md).
--
-- community_deletion.install_write_fence(p_native, p_library) (re)defines the two
-- functions — natively when p_native and the library (default
-- $libdir/community_deletion_fence) can be loaded by a role allowed to
-- create C functions (a superuser), otherwise as PL/pgSQL with a WARNING
-- saying why — and returns what it installed. The migrations call it; run it
-- again as a superuser after installing the library on a server that lacked
-- it. The statement-level triggers reference the functions by oid, which
-- CREATE OR REPLACE keeps; the early row triggers of every registered scoped
-- table are re-attached in the implementation's form (community_deletion._attach_early_fence:
-- a WHEN clause for PL/pgSQL, none for native), in the caller's transaction.
create or replace function community_deletion.install_write_fence(
  native boolean default true,
  library text default '$libdir/community_deletion_fence')
  returns text
  language plpgsql
  volatile
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_native alias for $1;
  p_library alias for $2;
  v_body text;
  v_why text;
begin
  if p_native then
    begin
      execute pg_catalog.format(
        'create or replace function community_deletion.tg_scoped_table__enforce_write_fence() returns trigger '
        'language c volatile as %L, %L', p_library, 'cd_fence_statement');
      execute pg_catalog.format(
        'create or replace function community_deletion.tg_scoped_table__refuse_write_early() returns trigger '
        'language c volatile as %L, %L', p_library, 'cd_fence_early');
      execute pg_catalog.format(
        'create or replace function community_deletion._native_community_lock_key(uuid) returns bigint '
        'language c immutable strict parallel safe as %L, %L', p_library, 'cd_community_lock_key');
      -- As grants.sql leaves every engine function: the owner's, no PUBLIC.
      alter function community_deletion._native_community_lock_key(uuid) owner to community_deletion_owner;
      revoke all on function community_deletion._native_community_lock_key(uuid) from public;
      perform community_deletion._reattach_early_fences();
      return 'native';
    exception when undefined_file or insufficient_privilege or undefined_function then
      v_why := sqlerrm;
    end;
    raise warning 'community write fence: the native library is not usable (%); installing the PL/pgSQL fence', v_why
      using hint = 'Build and install db/native (make -C db/native install, needs the server''s development headers), '
                   'then run select community_deletion.install_write_fence() as a superuser.';
  end if;

  select p.prosrc into strict v_body from pg_catalog.pg_proc p
   where p.oid = 'community_deletion._write_fence_plpgsql()'::pg_catalog.regprocedure;
  execute pg_catalog.format(
    'create or replace function community_deletion.tg_scoped_table__enforce_write_fence() returns trigger '
    'language plpgsql volatile set search_path = %L as %L', '', v_body);
  select p.prosrc into strict v_body from pg_catalog.pg_proc p
   where p.oid = 'community_deletion._refuse_write_early_plpgsql()'::pg_catalog.regprocedure;
  execute pg_catalog.format(
    'create or replace function community_deletion.tg_scoped_table__refuse_write_early() returns trigger '
    'language plpgsql volatile set search_path = %L as %L', '', v_body);
  drop function if exists community_deletion._native_community_lock_key(uuid);
  perform community_deletion._reattach_early_fences();
  return 'plpgsql';
end;
$$;
--! EndIncluded functions/install_write_fence.sql
--! Included functions/key_chunk_progress.sql
-- (total, deleted) key chunks of a request, for progress bars and inspect.
-- Both are 0 once the chunks were dropped at logically_verified.
create or replace function community_deletion.key_chunk_progress(request_id uuid)
  returns table (total integer, deleted integer)
  language plpgsql
  stable
  security definer
  set search_path = ''
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
    select count(*)::integer, count(k.deleted_at)::integer
    from community_deletion.manifest_keys k
    where k.request_id = p_request_id;
end;
$$;
--! EndIncluded functions/key_chunk_progress.sql
--! Included functions/lease_state.sql
-- What the lease holder should do next: the request's current stage (and the
-- facts the driver needs to resume inside it), after verifying that the
-- caller still holds the lease (stale_lease, DL4L1). The driver never
-- computes stages itself; it asks here after every step.
create or replace function community_deletion.lease_state(request_id uuid, executor_id text, lease_generation bigint)
  returns table (stage text, community_id uuid, fence_generation bigint, lease_until timestamptz,
                 destructive_manifest_frozen boolean)
  language plpgsql
  stable
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  v_request community_deletion.requests;
begin
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id;
  if not found then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  if v_request.stage = 'retention_pending' and v_request.lease_owner is null then
    -- The final transition releases the lease; report completion to its last holder.
    return query select v_request.stage, v_request.community_id, v_request.fence_generation, null::timestamptz, false;
    return;
  end if;
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, v_request.stage);
  return query select v_request.stage, v_request.community_id, v_request.fence_generation, v_request.lease_until,
                      v_request.destructive_storage_manifest is not null;
end;
$$;
--! EndIncluded functions/lease_state.sql
--! Included functions/list_requests.sql
-- Operator API: the newest max_rows requests (1..1000, else invalid_argument
-- DL1I1), one summary line each with the same state word and explanation as
-- community_deletion.inspect.
create or replace function community_deletion.list_requests(max_rows integer default 100)
  returns table (
    request_id uuid, community_id uuid, community_host text, stage text, state text,
    requested_by text, approved_by text, not_before timestamptz, lease_owner text,
    lease_until timestamptz, next_attempt_at timestamptz, retry_count integer,
    blocked_reason text, created_at timestamptz, updated_at timestamptz, explanation text)
  language plpgsql
  stable
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_limit alias for $1;
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception 'community deletion: list limit % is outside 1..1000', p_limit
      using errcode = 'DL1I1';
  end if;
  return query
    select r.id, r.community_id, r.community_host, r.stage, s.state,
           r.requested_by, a.approved_by, a.not_before, r.lease_owner,
           r.lease_until, r.next_attempt_at, r.retry_count,
           r.blocked_reason, r.created_at, r.updated_at, s.explanation
      from community_deletion.requests r
      left join community_deletion.approvals a on a.request_id = r.id
      cross join lateral community_deletion._request_state(r, a) s
     order by r.created_at desc, r.id desc
     limit p_limit;
end;
$$;
--! EndIncluded functions/list_requests.sql
--! Included functions/mark_bindings_removed.sql
-- drained → bindings_removed (executor API): only when every frozen key chunk
-- is stamped deleted (DL6K2 otherwise) and the chunks still add up to the
-- manifest's entry count. detail (the driver's deletion totals) is kept in
-- the drained/remove_storage_bindings checkpoint.
create or replace function community_deletion.mark_bindings_removed(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint,
  detail jsonb default '{}'::jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_detail alias for $5;
  v_request community_deletion.requests;
  v_total integer;
  v_pending integer;
  v_entries bigint;
  v_manifest_entries bigint;
begin
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'drained', p_fence_generation);
  perform community_deletion._require_detail_object(p_request_id, p_detail);
  if v_request.destructive_storage_manifest is null then
    raise exception 'request % (community %) has no frozen destructive manifest', p_request_id, v_request.community_id
      using errcode = 'DL2S1';
  end if;
  select count(*)::integer, count(*) filter (where k.deleted_at is null)::integer, coalesce(sum(k.entry_count), 0)
    into v_total, v_pending, v_entries
  from community_deletion.manifest_keys k
  where k.request_id = p_request_id;
  if v_pending > 0 then
    raise exception 'request % (community %): % of % key chunks are not yet stamped deleted',
      p_request_id, v_request.community_id, v_pending, v_total
      using errcode = 'DL6K2',
            hint = 'Delete and stamp every chunk returned by community_deletion.next_key_chunk first.';
  end if;
  select coalesce(sum((p ->> 'object_count')::bigint), 0) into v_manifest_entries
  from jsonb_array_elements(v_request.destructive_storage_manifest -> 'prefixes') p;
  if v_entries <> v_manifest_entries then
    raise exception 'request % (community %): the key chunks hold % entries but the frozen manifest lists %',
      p_request_id, v_request.community_id, v_entries, v_manifest_entries
      using errcode = 'DL6K1';
  end if;
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'drained', 'bindings_removed', p_fence_generation);
  perform community_deletion._checkpoint(p_request_id, 'drained', 'remove_storage_bindings', 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb) || jsonb_build_object('chunks', v_total, 'entries', v_entries));
end;
$$;
--! EndIncluded functions/mark_bindings_removed.sql
--! Included functions/mark_cache_purged.sql
-- postgres_purged → cache_purged (executor API) after the driver's Redis
-- SCAN + UNLINK of buzz:<id>:*; detail (its counts) is kept in the
-- postgres_purged/purge_cache_namespace checkpoint.
create or replace function community_deletion.mark_cache_purged(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint,
  detail jsonb default '{}'::jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_detail alias for $5;
begin
  perform community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'postgres_purged', p_fence_generation);
  perform community_deletion._require_detail_object(p_request_id, p_detail);
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'postgres_purged', 'cache_purged', p_fence_generation);
  perform community_deletion._checkpoint(p_request_id, 'postgres_purged', 'purge_cache_namespace', 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb));
end;
$$;
--! EndIncluded functions/mark_cache_purged.sql
--! Included functions/mark_drained.sql
-- fenced → drained (executor API): fence ownership verified, the destructive
-- manifest frozen (the chunk loop needs its binding key list) and no live
-- serving-write lease left on the community (DL5D1, retryable).
create or replace function community_deletion.mark_drained(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
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
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'fenced', p_fence_generation);
  if v_request.destructive_storage_manifest is null then
    raise exception 'request % (community %) cannot be marked drained before its destructive manifest is frozen',
      p_request_id, v_request.community_id
      using errcode = 'DL2S1',
            hint = 'Enumerate the owned prefixes into key chunks and call community_deletion.freeze_destructive_manifest first.';
  end if;
  if exists (select 1 from community_deletion.serving_write_leases l
             where l.community_id = v_request.community_id and l.lease_until >= now()) then
    raise exception 'request % (community %): serving-write leases are still live', p_request_id, v_request.community_id
      using errcode = 'DL5D1',
            hint = 'Admitted serving writes must finish or expire before destruction starts; retry later.';
  end if;
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'fenced', 'drained', p_fence_generation);
  perform community_deletion._checkpoint(p_request_id, 'fenced', 'serving_writes_drained', 'completed', p_generation,
    jsonb_build_object('fence_generation', p_fence_generation));
end;
$$;
--! EndIncluded functions/mark_drained.sql
--! Included functions/mark_logically_verified.sql
-- cache_purged → logically_verified (executor API), after the driver proved
-- the three prefixes and the Redis namespace empty (detail records it). The
-- PostgreSQL absence proof is repeated in this transaction, under the shared
-- schema-destruction lock with the catalog re-validated, so the transition
-- commits only together with a passing proof. The key chunks are dropped in
-- the same transaction: a deleted community's key list is not retained (the
-- manifest's counts and digests stay on the request).
create or replace function community_deletion.mark_logically_verified(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint,
  detail jsonb default '{}'::jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_detail alias for $5;
  v_request community_deletion.requests;
  v_checked integer;
  v_dropped integer;
begin
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'cache_purged', p_fence_generation);
  perform community_deletion._require_detail_object(p_request_id, p_detail);
  v_checked := community_deletion._prove_postgres_absence(p_request_id, v_request.community_id, p_fence_generation);
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'cache_purged', 'logically_verified', p_fence_generation);
  -- The chunk guard admits this delete only now that the stage is logically_verified.
  delete from community_deletion.manifest_keys k where k.request_id = p_request_id;
  get diagnostics v_dropped = row_count;
  perform community_deletion._checkpoint(p_request_id, 'cache_purged', 'verify_cross_store_absence', 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb)
      || jsonb_build_object('postgres_tables_checked', v_checked, 'key_chunks_dropped', v_dropped));
end;
$$;
--! EndIncluded functions/mark_logically_verified.sql
--! Included functions/mark_retention_pending.sql
-- logically_verified → retention_pending (executor API): the request is
-- completed, its lease released and its retry state cleared (by
-- community_deletion._advance, which does all three on entering the terminal stage).
-- What remains is physical expiry outside the engine (backups, WAL, object
-- versions held by provider retention); detail records what the driver
-- reports about it.
create or replace function community_deletion.mark_retention_pending(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint,
  detail jsonb default '{}'::jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_detail alias for $5;
begin
  perform community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'logically_verified', p_fence_generation);
  perform community_deletion._require_detail_object(p_request_id, p_detail);
  perform community_deletion._checkpoint(p_request_id, 'logically_verified', 'retention_physical_expiry_pending', 'completed',
    p_generation, coalesce(p_detail, '{}'::jsonb));
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'logically_verified', 'retention_pending', p_fence_generation);
end;
$$;
--! EndIncluded functions/mark_retention_pending.sql
--! Included functions/next_key_chunk.sql
-- The lowest-numbered key chunk not yet stamped deleted (executor API, stage
-- drained); no row when every chunk is stamped. Resuming after a crash picks
-- up exactly the chunks whose deletion was never confirmed.
create or replace function community_deletion.next_key_chunk(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint)
  returns table (chunk_no integer, prefix text, entries jsonb)
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
begin
  perform community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'drained', p_fence_generation);
  return query
    select k.chunk_no, k.prefix, k.entries
    from community_deletion.manifest_keys k
    where k.request_id = p_request_id and k.deleted_at is null
    order by k.chunk_no
    limit 1;
end;
$$;
--! EndIncluded functions/next_key_chunk.sql
--! Included functions/purge_postgres.sql
-- bindings_removed → postgres_purged (executor API): the PostgreSQL purge.
--
-- One transaction:
--   1. the shared schema-destruction lock (migrations hold it exclusively for
--      their whole run, so none can commit a new scoped table before this
--      transaction ends) and the exact catalog re-validated inside it;
--   2. lease owner + generation + fence generation verified;
--   3. provenance-only tables: community_id set to NULL (rows kept);
--   4. every registered scoped table: DELETE … WHERE community_id = target, in
--      registry purge order (child before parent), one checkpoint per table
--      with its row count; read-state rows go through the sanctioned opt-in
--      (community_deletion.read_state_hard_delete, transaction-local, reset
--      before returning);
--   5. the community tombstoned, only if still fenced at the same generation;
--   6. advance, with a postgres_tombstone_committed checkpoint.
-- Returns {"deleted": {table: rows}, "provenance_cleared": {table: rows}}.
-- A replay with the same token finds the request at postgres_purged: DL4L1.
--
-- Why one transaction, and what a 10-million-row tenant costs. The single
-- transaction makes "rows gone" and "tombstone present" one atomic fact: no
-- reader ever sees a half-purged community that is not yet a tombstone, a
-- crash leaves everything exactly as before, and the checkpoints are evidence
-- rather than resume points. The price for a very large tenant is one long
-- transaction: WAL volume proportional to the rows (unavoidable either way),
-- row locks on every deleted row until commit (harmless: the fence already
-- rejects every write to them), the shared schema-destruction lock held for
-- the duration (migrations wait; they must not be running against this
-- tenant's tables anyway) and dead tuples that vacuum reclaims only after
-- commit; the executor keeps heartbeating from its other connection because
-- this transaction takes no lock on the request row until the final advance.
-- Every DELETE uses the community_id-leading index the catalog check demands,
-- so the cost is proportional to the tenant, never the fleet.
--
-- A batched variant (if lock duration or replication lag ever matters) stays
-- safe because of the fence, not because of the transaction: the community is
-- fenced, so no writer can add rows between batches; each batch would run as
-- its own transaction with steps 1–2 (lock, catalog, lease + fence
-- generation), delete at most N rows of the current table in purge order and
-- upsert that table's checkpoint with a running total, so a successor resumes
-- from the checkpoints; step 5 (tombstone) and step 6 (advance) would commit
-- in the same transaction as the last batch, after a final check that every
-- registered table is empty for the target. A crash between batches leaves a
-- fenced, partially purged community that only a later batch can touch (abort
-- is refused from drained onwards). That variant is not built: the single
-- transaction is simpler and correct, and the fence makes batching a pure
-- operational change.
create or replace function community_deletion.purge_postgres(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint)
  returns jsonb
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  v_request community_deletion.requests;
  v_table record;
  v_rows bigint;
  v_deleted jsonb := '{}'::jsonb;
  v_cleared jsonb := '{}'::jsonb;
begin
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'bindings_removed', p_fence_generation);

  for v_table in
    select t.table_name from community_deletion.registered_tables t where t.kind = 'provenance' order by t.table_name
  loop
    execute format('update public.%I set community_id = null where community_id = $1', v_table.table_name)
      using v_request.community_id;
    get diagnostics v_rows = row_count;
    v_cleared := v_cleared || jsonb_build_object(v_table.table_name, v_rows);
    perform community_deletion._checkpoint(p_request_id, 'bindings_removed', 'clear_provenance:' || v_table.table_name,
      'completed', p_generation, jsonb_build_object('rows', v_rows));
  end loop;

  perform set_config('community_deletion.read_state_hard_delete', 'on', true);
  for v_table in
    select t.table_name from community_deletion.registered_tables t where t.kind = 'scoped' order by t.purge_order
  loop
    execute format('delete from public.%I where community_id = $1', v_table.table_name)
      using v_request.community_id;
    get diagnostics v_rows = row_count;
    v_deleted := v_deleted || jsonb_build_object(v_table.table_name, v_rows);
    perform community_deletion._checkpoint(p_request_id, 'bindings_removed', 'purge:' || v_table.table_name,
      'completed', p_generation, jsonb_build_object('rows', v_rows));
  end loop;
  perform set_config('community_deletion.read_state_hard_delete', 'off', true);

  if not community_deletion._tombstone_community(v_request.community_id, p_fence_generation) then
    raise exception 'request %: community % is no longer fenced at generation %; nothing was purged',
      p_request_id, v_request.community_id, p_fence_generation
      using errcode = 'DL4L1';
  end if;

  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'bindings_removed', 'postgres_purged', p_fence_generation);
  perform community_deletion._checkpoint(p_request_id, 'bindings_removed', 'postgres_tombstone_committed', 'completed',
    p_generation, jsonb_build_object('deleted', v_deleted, 'provenance_cleared', v_cleared,
                                     'fence_generation', p_fence_generation));
  return jsonb_build_object('deleted', v_deleted, 'provenance_cleared', v_cleared);
end;
$$;
--! EndIncluded functions/purge_postgres.sql
--! Included functions/reap_serving_leases.sql
-- Deletes up to max_rows (1..10000, DL1I1 otherwise) expired serving-write leases,
-- oldest expiry first, skipping rows another session holds; fleet-wide, whatever
-- the communities' states. Also prunes serving-write grants of transactions that
-- have finished (committed, aborted, or too old to know). Returns the number
-- of leases deleted. Safe to run from any number of workers.
create or replace function community_deletion.reap_serving_leases(max_rows integer default 1000)
  returns integer
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_limit alias for $1;
  v_count integer;
begin
  if p_limit is null or p_limit not between 1 and 10000 then
    raise exception 'serving lease reap limit must be 1..10000, got %', p_limit using errcode = 'DL1I1';
  end if;
  with expired as (
    select l.id from community_deletion.serving_write_leases l
     where l.lease_until < now()
     order by l.lease_until
     limit p_limit
     for update skip locked)
  delete from community_deletion.serving_write_leases l using expired where l.id = expired.id;
  get diagnostics v_count = row_count;
  delete from community_deletion.serving_write_grants g
   where pg_catalog.pg_xact_status(g.xact_id) is distinct from 'in progress';
  return v_count;
end;
$$;
--! EndIncluded functions/reap_serving_leases.sql
--! Included functions/record_failure.sql
-- Executor API: records a transient (retryable) failure of one unit at stage
-- and releases the lease. Consecutive failures at the same stage form a streak
-- (a stage advance or an unblock resets it). Retry n waits
--   min(retry_max_delay, retry_base_delay * 2^(n-1)) plus up to 10% jitter
-- (settings row); the max_consecutive_failures-th (default 8th) consecutive
-- failure blocks the request durably instead. Verifies the lease first
-- (stale_lease, DL4L1). Returns {"blocked", "retry_count", "next_attempt_at"}.
create or replace function community_deletion.record_failure(
  request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text)
  returns jsonb
  language plpgsql
  volatile
  security definer
  set search_path = ''
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
  set search_path = ''
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
  if p_started_at is null or p_started_at > v_now + interval '5 minutes' then
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
--! Included functions/register_scoped_table.sql
-- Registers a public table as community-scoped with its purge position and
-- attaches the write fence (triggers _010_community_write_fence (INSERT),
-- _010_community_write_fence_update, _010_community_write_fence_delete: AFTER …
-- FOR EACH STATEMENT with transition tables, function
-- tg_scoped_table__enforce_write_fence — exactly what community_deletion.validate_catalog
-- detects — plus the early refusal _010_community_write_fence_early[_delete],
-- BEFORE … FOR EACH ROW, function tg_scoped_table__refuse_write_early).
-- Refuses (catalog_drift, DL7C1)
-- a table outside schema public, without community_id uuid NOT NULL, without an
-- index leading with community_id, or registered with another kind. Re-running
-- it is harmless (the purge order may be changed). Migrations call it; it runs
-- with the migrating role's rights.
create or replace function community_deletion.register_scoped_table(table_name regclass, purge_order integer)
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_table alias for $1;
  p_purge_order alias for $2;
  v_schema text;
  v_name text;
  v_kind text;
begin
  if p_table is null or p_purge_order is null or p_purge_order <= 0 then
    raise exception 'community_deletion.register_scoped_table needs a table and a positive purge order'
      using errcode = 'DL1I1';
  end if;
  select n.nspname, c.relname into v_schema, v_name
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where c.oid = p_table and c.relkind in ('r', 'p') and not c.relispartition;
  if v_schema is distinct from 'public' then
    raise exception 'cannot register % as community-scoped: only ordinary tables in schema public can be registered', p_table
      using errcode = 'DL7C1';
  end if;
  if not exists (select 1 from pg_catalog.pg_attribute a
                  where a.attrelid = p_table and a.attname = 'community_id' and not a.attisdropped
                    and a.atttypid = 'uuid'::pg_catalog.regtype and a.attnotnull) then
    raise exception 'cannot register % as community-scoped: it has no community_id uuid NOT NULL column', p_table
      using errcode = 'DL7C1',
            hint = 'Scoped tables carry community_id uuid not null references communities.';
  end if;
  if not community_deletion._has_community_index(p_table) then
    raise exception 'cannot register % as community-scoped: no valid index leads with community_id', p_table
      using errcode = 'DL7C1',
            hint = 'Create an index (or primary key) whose first column is community_id first.';
  end if;
  select r.kind into v_kind from community_deletion.registered_tables r where r.table_name = v_name;
  if v_kind is not null and v_kind <> 'scoped' then
    raise exception 'cannot register % as community-scoped: it is registered as %', p_table, v_kind
      using errcode = 'DL7C1';
  end if;
  insert into community_deletion.registered_tables (table_name, kind, purge_order)
  values (v_name, 'scoped', p_purge_order)
  on conflict (table_name) do update set purge_order = excluded.purge_order
    where community_deletion.registered_tables.purge_order is distinct from excluded.purge_order;
  -- The fence (tg_scoped_table__enforce_write_fence.sql): one AFTER … FOR EACH
  -- STATEMENT trigger per event with its transition tables (PostgreSQL allows
  -- transition tables only on single-event triggers) — these decide; and the
  -- early refusal (tg_scoped_table__refuse_write_early.sql,
  -- community_deletion._attach_early_fence): BEFORE … FOR EACH ROW — it only makes a
  -- refusal fail before the row's constraints.
  -- Dropping first replaces an older form (the row-level fence) in place.
  execute format('drop trigger if exists _010_community_write_fence on public.%I', v_name);
  execute format('drop trigger if exists _010_community_write_fence_update on public.%I', v_name);
  execute format('drop trigger if exists _010_community_write_fence_delete on public.%I', v_name);
  execute format('create trigger _010_community_write_fence after insert on public.%I '
                 'referencing new table as fence_new_rows '
                 'for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence()', v_name);
  execute format('create trigger _010_community_write_fence_update after update on public.%I '
                 'referencing old table as fence_old_rows new table as fence_new_rows '
                 'for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence()', v_name);
  execute format('create trigger _010_community_write_fence_delete after delete on public.%I '
                 'referencing old table as fence_old_rows '
                 'for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence()', v_name);
  perform community_deletion._attach_early_fence(v_name);
end;
$$;
--! EndIncluded functions/register_scoped_table.sql
--! Included functions/register_unscoped_table.sql
-- Registers a public table that has a community_id column but is not purged as
-- community-scoped: 'provenance' (operator-global rows; the purge nulls their
-- community_id — needs a nullable community_id and an index leading with it) or
-- 'control_plane' (deletion evidence and engine bookkeeping, kept). Such tables
-- carry no write fence. Refuses (DL7C1) tables registered with another kind.
create or replace function community_deletion.register_unscoped_table(table_name regclass, kind text, note text)
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_table alias for $1;
  p_kind alias for $2;
  p_note alias for $3;
  v_schema text;
  v_name text;
  v_kind text;
begin
  if p_table is null or p_kind is null or p_kind not in ('provenance', 'control_plane')
     or p_note is null or pg_catalog.btrim(p_note) = '' then
    raise exception 'community_deletion.register_unscoped_table needs a table, kind provenance|control_plane and a note'
      using errcode = 'DL1I1';
  end if;
  select n.nspname, c.relname into v_schema, v_name
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where c.oid = p_table and c.relkind in ('r', 'p') and not c.relispartition;
  if v_schema is distinct from 'public' then
    raise exception 'cannot register %: only ordinary tables in schema public can be registered', p_table
      using errcode = 'DL7C1';
  end if;
  if p_kind = 'provenance' and (
       not exists (select 1 from pg_catalog.pg_attribute a
                    where a.attrelid = p_table and a.attname = 'community_id' and not a.attisdropped
                      and not a.attnotnull)
       or not community_deletion._has_community_index(p_table)) then
    raise exception 'cannot register % as provenance: it needs a nullable community_id and an index leading with it', p_table
      using errcode = 'DL7C1';
  end if;
  select r.kind into v_kind from community_deletion.registered_tables r where r.table_name = v_name;
  if v_kind is not null and v_kind <> p_kind then
    raise exception 'cannot register % as %: it is registered as %', p_table, p_kind, v_kind
      using errcode = 'DL7C1';
  end if;
  insert into community_deletion.registered_tables (table_name, kind, purge_order, note)
  values (v_name, p_kind, null, p_note)
  on conflict (table_name) do nothing;
end;
$$;
--! EndIncluded functions/register_unscoped_table.sql
--! Included functions/release.sql
-- Executor API: gives up the lease cleanly (SIGTERM/SIGINT, or done for now)
-- without recording a failure. Only the exact owner + generation releases; a
-- stale release is harmless and returns false.
create or replace function community_deletion.release(request_id uuid, executor_id text, lease_generation bigint)
  returns boolean
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
begin
  update community_deletion.requests r
     set lease_owner = null, lease_until = null, updated_at = now()
   where r.id = p_request_id and r.lease_owner = p_owner and r.lease_generation = p_generation;
  return found;
end;
$$;
--! EndIncluded functions/release.sql
--! Included functions/release_serving_lease.sql
-- Releases a serving-write lease (exact id, owner, generation, fence
-- generation). A stale or repeated release is harmless and returns false.
create or replace function community_deletion.release_serving_lease(
  lease_id uuid, owner text, lease_generation bigint, fence_generation bigint)
  returns boolean
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_lease_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
begin
  delete from community_deletion.serving_write_leases l
   where l.id = p_lease_id and l.owner = p_owner and l.generation = p_generation
     and l.fence_generation = p_fence_generation;
  return found;
end;
$$;
--! EndIncluded functions/release_serving_lease.sql
--! Included functions/renew_serving_lease.sql
-- Renews an admitted, unexpired serving-write lease while its community is
-- active OR quiescing (an admitted effect keeps its exclusion proof until it
-- finishes; seeds review finding P1). The exact lease id, owner, lease
-- generation and fence generation must match and the community must still be at
-- that fence generation; otherwise serving_lease_denied (DL5S1): the holder must
-- stop its effect. Returns the new expiry.
create or replace function community_deletion.renew_serving_lease(
  lease_id uuid, owner text, lease_generation bigint, fence_generation bigint,
  lease_seconds integer default 60)
  returns timestamptz
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_lease_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_lease_seconds alias for $5;
  v_community uuid;
  v_until timestamptz;
begin
  perform community_deletion._require_read_committed('community_deletion.renew_serving_lease');
  if p_lease_seconds is null or p_lease_seconds not between 1 and 3600 then
    raise exception 'serving lease renewal needs 1..3600 lease seconds' using errcode = 'DL1I1';
  end if;
  select l.community_id into v_community from community_deletion.serving_write_leases l where l.id = p_lease_id;
  if v_community is not null then
    perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(v_community));
    update community_deletion.serving_write_leases l
       set lease_until = now() + pg_catalog.make_interval(secs => p_lease_seconds),
           heartbeat_at = now()
      from public.communities c
     where l.id = p_lease_id and l.community_id = v_community and l.owner = p_owner
       and l.generation = p_generation and l.fence_generation = p_fence_generation
       and l.lease_until >= now()
       and c.id = l.community_id and c.deletion_state in ('active', 'quiescing')
       and c.deletion_fence_generation = l.fence_generation
    returning l.lease_until into v_until;
  end if;
  if v_until is null then
    raise exception 'stale serving-write lease % (owner %, generation %, fence generation %)',
      p_lease_id, p_owner, p_generation, p_fence_generation
      using errcode = 'DL5S1',
            hint = 'The lease expired, was released, or the community was fenced: stop the protected effect.';
  end if;
  return v_until;
end;
$$;
--! EndIncluded functions/renew_serving_lease.sql
--! Included functions/request_checkpoints.sql
-- Operator API, for people in psql: a request's checkpoints as rows, in the
-- order they were first written (a repeated unit keeps its place and counts
-- its attempts). A failed checkpoint carries the error. Unknown request: DL1N1.
create or replace function community_deletion.request_checkpoints(request_id uuid)
  returns table (
    sequence bigint, stage text, unit_key text, status text, attempts integer,
    lease_generation bigint, started_at timestamptz, completed_at timestamptz, error text, detail jsonb)
  language plpgsql
  stable
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
begin
  if not exists (select 1 from community_deletion.requests r where r.id = p_request_id) then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  return query
    select cp.sequence, cp.stage, cp.unit_key, cp.status, cp.attempts,
           cp.lease_generation, cp.started_at, cp.completed_at, cp.error, cp.detail
      from community_deletion.checkpoints cp
     where cp.request_id = p_request_id
     order by cp.sequence;
end;
$$;
--! EndIncluded functions/request_checkpoints.sql
--! Included functions/request_status.sql
-- Operator API, for people in psql: one request as one row — where it is
-- (stage), whether and why it is (not) progressing (state, explanation), who
-- asked and approved, its lease, its retry streak and its block. The same
-- facts inspect() returns as jsonb for programs; request_checkpoints() lists
-- its checkpoints. Unknown request: DL1N1.
create or replace function community_deletion.request_status(request_id uuid)
  returns table (
    id uuid, community_host text, stage text, state text, explanation text,
    requested_by text, approved_by text, not_before timestamptz,
    lease_owner text, lease_generation bigint, lease_until timestamptz, fence_generation bigint,
    next_attempt_at timestamptz, retry_count integer, blocked_reason text, last_error text,
    created_at timestamptz, updated_at timestamptz)
  language plpgsql
  stable
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
begin
  return query
    select r.id, r.community_host, r.stage, s.state, s.explanation,
           r.requested_by, a.approved_by, a.not_before,
           r.lease_owner, r.lease_generation, r.lease_until, r.fence_generation,
           r.next_attempt_at, r.retry_count, r.blocked_reason, r.last_error,
           r.created_at, r.updated_at
      from community_deletion.requests r
      left join community_deletion.approvals a on a.request_id = r.id
      cross join lateral community_deletion._request_state(r, a) s
     where r.id = p_request_id;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
end;
$$;
--! EndIncluded functions/request_status.sql
--! Included functions/serving_lease_stats.sql
-- Observability of the hot serving-lease table: {"active": live leases,
-- "expired": rows awaiting the reaper, "dead_tuples": PostgreSQL's estimate}.
create or replace function community_deletion.serving_lease_stats()
  returns jsonb
  language sql
  stable
  security definer
  set search_path = ''
as $$
  select pg_catalog.jsonb_build_object(
    'active', count(*) filter (where l.lease_until >= now()),
    'expired', count(*) filter (where l.lease_until < now()),
    'dead_tuples', coalesce((select s.n_dead_tup from pg_catalog.pg_stat_user_tables s
                              where s.relid = 'community_deletion.serving_write_leases'::pg_catalog.regclass), 0))
  from community_deletion.serving_write_leases l
$$;
--! EndIncluded functions/serving_lease_stats.sql
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
  set search_path = ''
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
--! Included functions/storage_taxonomy_rules.sql
-- The storage key taxonomy as the driver reads it (owned and shared shapes).
-- The driver matches keys with these patterns; SQL re-checks owned keys when
-- chunks are appended, so a stale copy in a process can only fail closed.
create or replace function community_deletion.storage_taxonomy_rules()
  returns setof community_deletion.storage_taxonomy
  language sql
  stable
  security definer
  set search_path = ''
as $$
  select * from community_deletion.storage_taxonomy order by name
$$;
--! EndIncluded functions/storage_taxonomy_rules.sql
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
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_host alias for $1;
  p_requested_by alias for $2;
  p_reason alias for $3;
  v_host text := community_deletion._require_text(p_host, 'host', 253);
  v_requested_by text := community_deletion._require_text(p_requested_by, 'requested_by', 512);
  v_reason text := community_deletion._bound_text(nullif(btrim(p_reason), ''), 4096);
  v_community public.communities;
  v_request community_deletion.requests;
begin
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

  insert into community_deletion.requests (community_id, community_host, requested_by, reason)
  values (v_community.id, v_community.host, v_requested_by, v_reason)
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
--! Included functions/tg_approvals__check_approval.sql
-- Admits an approval only for an unblocked request at stage inventoried, and
-- only from someone other than the requester (identities compare trimmed and
-- case-insensitively). The composite foreign key then binds it to the
-- request's exact community and inventory digest.
create or replace function community_deletion.tg_approvals__check_approval()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_request community_deletion.requests;
begin
  select r.* into v_request from community_deletion.requests r where r.id = new.request_id;
  if not found then
    return new; -- the foreign key reports the missing request
  end if;
  if v_request.stage <> 'inventoried' then
    raise exception 'deletion request % is at stage %, approvals are recorded only at inventoried',
      v_request.id, v_request.stage
      using errcode = 'DL2S1';
  end if;
  if v_request.blocked_at is not null then
    raise exception 'deletion request % is blocked: %', v_request.id, v_request.blocked_reason
      using errcode = 'DL2B1',
            hint = 'Remediate the cause and run community_deletion.unblock before approving.';
  end if;
  if community_deletion._same_operator(new.approved_by, v_request.requested_by) then
    raise exception 'deletion request %: % requested it and cannot also approve it', v_request.id, new.approved_by
      using errcode = 'DL3A1',
            hint = 'A second operator must approve.';
  end if;
  return new;
end;
$$;
--! EndIncluded functions/tg_approvals__check_approval.sql
--! Included functions/tg_approvals__refuse_change.sql
-- Approvals are immutable evidence: no UPDATE, no DELETE (frozen_row, DL6F1).
create or replace function community_deletion.tg_approvals__refuse_change()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  raise exception 'approval of deletion request % is immutable evidence (% refused)', old.request_id, lower(tg_op)
    using errcode = 'DL6F1';
end;
$$;
--! EndIncluded functions/tg_approvals__refuse_change.sql
--! Included functions/tg_checkpoints__protect.sql
-- Checkpoints are append/upsert-only: never deleted, and a checkpoint's
-- identity (request, stage, unit, start time) and attempt count never go back.
create or replace function community_deletion.tg_checkpoints__protect()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  if tg_op = 'DELETE' then
    raise exception 'checkpoint % of deletion request % is evidence and cannot be deleted', old.unit_key, old.request_id
      using errcode = 'DL6F1';
  end if;
  if new.request_id is distinct from old.request_id or new.stage is distinct from old.stage
     or new.unit_key is distinct from old.unit_key or new.started_at is distinct from old.started_at
     or new.attempts < old.attempts then
    raise exception 'checkpoint % of deletion request %: identity, start time and attempts are frozen',
      old.unit_key, old.request_id
      using errcode = 'DL6F1';
  end if;
  return new;
end;
$$;
--! EndIncluded functions/tg_checkpoints__protect.sql
--! Included functions/tg_communities__protect_lifecycle.sql
-- Tombstone and lifecycle protection on communities (SPEC §5.4). The engine is
-- recognised by current_user = community_deletion_owner (only its
-- security-definer functions run as that role; no session setting counts).
--  * INSERT: a host that belongs to a tombstone is reserved forever
--    (host_reserved DL8T2, case-insensitive, checked before the unique index so
--    the error is clear); a new community starts active and not deleted (DL8T1).
--  * UPDATE of a tombstone: nobody may change its lifecycle columns or host; the
--    engine alone may rewrite its other columns (clearing secrets), others may
--    change nothing (DL8T1).
--  * UPDATE by anyone but the engine: deletion_state, deletion_fence_generation
--    and deleted_at never change, and a community that is not active (under
--    deletion) cannot be changed at all — its archived_at is restored by abort.
--  * UPDATE by the engine: only the lifecycle edges active→quiescing,
--    quiescing→fenced, fenced→tombstone and quiescing|fenced→active (abort); the
--    fence generation never decreases.
--  * DELETE: a tombstone can never be deleted; a community under deletion can be
--    deleted by nobody.
create or replace function community_deletion.tg_communities__protect_lifecycle()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_engine boolean := current_user = 'community_deletion_owner';
begin
  if tg_op = 'DELETE' then
    if old.deletion_state <> 'active' then
      raise exception 'community % is % and cannot be deleted', old.id, old.deletion_state
        using errcode = 'DL8T1',
              hint = case when old.deletion_state = 'tombstone'
                          then 'A tombstone is permanent evidence of a completed deletion.'
                          else 'Abort the deletion request (community_deletion.abort) first.' end;
    end if;
    return old;
  end if;

  if tg_op = 'UPDATE' and old.deletion_state = 'tombstone' then
    if not v_engine
       or new.deletion_state is distinct from old.deletion_state
       or new.deletion_fence_generation is distinct from old.deletion_fence_generation
       or new.deleted_at is distinct from old.deleted_at
       or new.host is distinct from old.host
       or new.id is distinct from old.id then
      raise exception 'community % is a tombstone and cannot be changed', old.id
        using errcode = 'DL8T1',
              hint = 'A tombstone is permanent: it cannot be revived, renamed or reused.';
    end if;
    return new;
  end if;

  if (tg_op = 'INSERT' or new.host is distinct from old.host)
     and exists (select 1 from public.communities c
                  where pg_catalog.lower(c.host) = pg_catalog.lower(new.host)
                    and c.deletion_state = 'tombstone') then
    raise exception 'host % belongs to a deleted community and is reserved forever', new.host
      using errcode = 'DL8T2',
            hint = 'Choose another host; a tombstoned community''s host is never reused.';
  end if;

  if tg_op = 'INSERT' then
    if new.deletion_state <> 'active' or new.deleted_at is not null then
      raise exception 'a new community (host %) must start active and not deleted', new.host
        using errcode = 'DL8T1';
    end if;
    return new;
  end if;

  if not v_engine then
    if old.deletion_state <> 'active' then
      raise exception 'community % is % and cannot be changed outside the deletion engine', old.id, old.deletion_state
        using errcode = 'DL8T1',
              hint = 'Abort the deletion request (community_deletion.abort) to return the community to active.';
    end if;
    if new.deletion_state is distinct from old.deletion_state
       or new.deletion_fence_generation is distinct from old.deletion_fence_generation
       or new.deleted_at is distinct from old.deleted_at then
      raise exception 'lifecycle columns of community % change only through the deletion engine', old.id
        using errcode = 'DL8T1',
              hint = 'Use community_deletion.submit / community_deletion.abort; deletion_state, deletion_fence_generation and deleted_at are engine-owned.';
    end if;
    return new;
  end if;

  if new.deletion_fence_generation < old.deletion_fence_generation
     or not (new.deletion_state = old.deletion_state
             or (old.deletion_state, new.deletion_state) in (
                  ('active', 'quiescing'), ('quiescing', 'fenced'), ('fenced', 'tombstone'),
                  ('quiescing', 'active'), ('fenced', 'active'))) then
    raise exception 'illegal community lifecycle change % -> % (fence generation % -> %) for community %',
      old.deletion_state, new.deletion_state, old.deletion_fence_generation, new.deletion_fence_generation, old.id
      using errcode = 'DL8T1';
  end if;
  return new;
end;
$$;
--! EndIncluded functions/tg_communities__protect_lifecycle.sql
--! Included functions/tg_control_plane__refuse_truncate.sql
-- TRUNCATE would erase the evidence tables wholesale (frozen_row, DL6F1).
create or replace function community_deletion.tg_control_plane__refuse_truncate()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  raise exception 'table % holds deletion evidence and cannot be truncated', tg_table_name
    using errcode = 'DL6F1';
end;
$$;
--! EndIncluded functions/tg_control_plane__refuse_truncate.sql
--! Included functions/tg_ddl__lock_schema_destruction.sql
-- Event trigger function (ddl_command_start, _100_lock_schema_destruction):
-- takes the schema/destruction lock exclusively before any DDL whose tag is not
-- decided after the fact (_ddl_tag_is_deferred).
create or replace function community_deletion.tg_ddl__lock_schema_destruction()
  returns event_trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  if not community_deletion._ddl_tag_is_deferred(tg_tag) then
    perform pg_catalog.pg_advisory_xact_lock(community_deletion._schema_destruction_lock_key());
  end if;
end;
$$;
--! EndIncluded functions/tg_ddl__lock_schema_destruction.sql
--! Included functions/tg_ddl__lock_schema_destruction_created.sql
-- Event trigger function (ddl_command_end, _101_lock_schema_destruction_created):
-- takes the schema/destruction lock exclusively when a deferred command created
-- or altered a non-temporary object.
create or replace function community_deletion.tg_ddl__lock_schema_destruction_created()
  returns event_trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  if tg_tag not in ('GRANT', 'REVOKE', 'COMMENT', 'SECURITY LABEL', 'ALTER DEFAULT PRIVILEGES')
     and exists (select 1 from pg_catalog.pg_event_trigger_ddl_commands() c
                  where c.schema_name is distinct from 'pg_temp') then
    perform pg_catalog.pg_advisory_xact_lock(community_deletion._schema_destruction_lock_key());
  end if;
end;
$$;
--! EndIncluded functions/tg_ddl__lock_schema_destruction_created.sql
--! Included functions/tg_ddl__lock_schema_destruction_dropped.sql
-- Event trigger function (sql_drop, _102_lock_schema_destruction_dropped): takes
-- the schema/destruction lock exclusively when a command dropped a
-- non-temporary object.
create or replace function community_deletion.tg_ddl__lock_schema_destruction_dropped()
  returns event_trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  if exists (select 1 from pg_catalog.pg_event_trigger_dropped_objects() d where not d.is_temporary) then
    perform pg_catalog.pg_advisory_xact_lock(community_deletion._schema_destruction_lock_key());
  end if;
end;
$$;
--! EndIncluded functions/tg_ddl__lock_schema_destruction_dropped.sql
--! Included functions/tg_events__guard_read_state_delete.sql
-- Refuses hard deletion of read-state rows (kind 30078, d_tag "read-state:…")
-- unless the transaction opted in with
--   set_config('community_deletion.read_state_hard_delete', 'on', true)
-- AND the delete runs as the engine (community_deletion_owner, i.e. inside the
-- purge's security-definer function). Any client can set a setting, so the
-- setting alone would not stop an ordinary writer; the role cannot be forged.
-- The trigger's WHEN clause restricts it to exactly those rows.
create or replace function community_deletion.tg_events__guard_read_state_delete()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  if coalesce(pg_catalog.current_setting('community_deletion.read_state_hard_delete', true), '') <> 'on'
     or current_user <> 'community_deletion_owner' then
    raise exception 'read-state event % of community % cannot be hard-deleted', old.id, old.community_id
      using errcode = 'DL8G1',
            hint = 'Read-state rows are removed only by the community deletion purge.';
  end if;
  return old;
end;
$$;
--! EndIncluded functions/tg_events__guard_read_state_delete.sql
--! Included functions/tg_manifest_keys__forbid_truncate.sql
-- TRUNCATE would bypass the row guard for every request at once.
create or replace function community_deletion.tg_manifest_keys__forbid_truncate()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  raise exception 'community_deletion.manifest_keys cannot be truncated'
    using errcode = 'DL6F1',
          hint = 'Key chunks are cleared per request by community_deletion.clear_key_chunks or dropped at terminal cleanup.';
end;
$$;
--! EndIncluded functions/tg_manifest_keys__forbid_truncate.sql
--! Included functions/tg_manifest_keys__guard.sql
-- Guard of the frozen destructive key list (SPEC §3.2). Chunks are appended
-- only while the request is fenced and its destructive manifest is not yet
-- frozen, each validated on the way in (community_deletion._check_key_chunk); the only
-- change ever allowed to a chunk is stamping deleted_at once (at drained,
-- after the freeze); rows are deleted only to clear an unfrozen attempt
-- (fenced) or at terminal cleanup (logically_verified onwards, or an aborted
-- request). The request row is share-locked so every decision is
-- serialised with community_deletion.freeze_destructive_manifest, which locks it for
-- update before reading the chunks.
create or replace function community_deletion.tg_manifest_keys__guard()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_row community_deletion.manifest_keys := case when tg_op = 'DELETE' then old else new end;
  v_stage text;
  v_frozen boolean;
  v_community uuid;
begin
  select r.stage, r.destructive_storage_manifest is not null, r.community_id
    into v_stage, v_frozen, v_community
  from community_deletion.requests r
  where r.id = v_row.request_id
  for share;
  if not found then
    -- Let the foreign key report the missing request.
    return v_row;
  end if;

  if tg_op = 'INSERT' then
    if v_frozen then
      raise exception 'key chunk % of request % refused: the destructive manifest is already frozen',
        new.chunk_no, new.request_id
        using errcode = 'DL6F1';
    end if;
    if v_stage <> 'fenced' then
      raise exception 'key chunk % of request % refused: chunks are appended only at stage fenced (request is %)',
        new.chunk_no, new.request_id, v_stage
        using errcode = 'DL2S1';
    end if;
    perform community_deletion._check_key_chunk(new, v_community);
    return new;
  end if;

  if tg_op = 'UPDATE' then
    if old.deleted_at is null and new.deleted_at is not null
       and (new.request_id, new.chunk_no, new.prefix, new.entries, new.entry_count, new.created_at)
           is not distinct from (old.request_id, old.chunk_no, old.prefix, old.entries, old.entry_count, old.created_at)
       and v_frozen and v_stage = 'drained' then
      return new;
    end if;
    raise exception 'key chunk % of request % is immutable: only a single deleted_at stamp at stage drained after the freeze is allowed',
      old.chunk_no, old.request_id
      using errcode = 'DL6F1';
  end if;

  -- DELETE
  if (v_stage = 'fenced' and not v_frozen)
     or v_stage in ('logically_verified', 'retention_pending', 'aborted') then
    return old;
  end if;
  raise exception 'key chunk % of request % cannot be deleted at stage % (destructive manifest frozen: %)',
    old.chunk_no, old.request_id, v_stage, v_frozen
    using errcode = 'DL6F1',
          hint = 'Frozen key chunks are dropped only by community_deletion.mark_logically_verified.';
end;
$$;
--! EndIncluded functions/tg_manifest_keys__guard.sql
--! Included functions/tg_requests__freeze_destructive_manifest.sql
-- The destructive storage manifest is written once, at stage fenced (by
-- community_deletion.freeze_destructive_manifest), and never changed or cleared again:
-- it is the evidence the key chunks were bound to.
create or replace function community_deletion.tg_requests__freeze_destructive_manifest()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  if old.destructive_storage_manifest is not null or old.destructive_storage_frozen_at is not null then
    raise exception 'the destructive storage manifest of request % is frozen and cannot be changed', old.id
      using errcode = 'DL6F1';
  end if;
  if old.stage <> 'fenced' or new.stage <> 'fenced' then
    raise exception 'the destructive storage manifest of request % can be frozen only at stage fenced (request is %)',
      old.id, old.stage
      using errcode = 'DL2S1';
  end if;
  return new;
end;
$$;
--! EndIncluded functions/tg_requests__freeze_destructive_manifest.sql
--! Included functions/tg_requests__protect_frozen_fields.sql
-- Keeps a request's evidence immutable (frozen_row, DL6F1): the target
-- (community_id, host), who asked and why, and creation time never change; the
-- frozen inventory (schema/storage/inventory manifests, digest, freeze time),
-- the destructive manifest and the pre-quiesce capture change only from unset
-- to set; lease and fence generations never go backwards (an old token must
-- never become current again); a terminal request (aborted,
-- retention_pending) never changes at all. Because the digest cannot change,
-- it cannot drift from the approval bound to it.
create or replace function community_deletion.tg_requests__protect_frozen_fields()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
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
--! Included functions/tg_requests__refuse_delete.sql
-- Deletion requests are kept forever as evidence: no DELETE (frozen_row, DL6F1).
create or replace function community_deletion.tg_requests__refuse_delete()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  raise exception 'deletion request % is evidence and cannot be deleted', old.id
    using errcode = 'DL6F1';
end;
$$;
--! EndIncluded functions/tg_requests__refuse_delete.sql
--! Included functions/tg_requests__stage_moves_forward.sql
-- Enforces the lifecycle graph on every stage change, whoever writes it
-- (wrong_stage, DL2S1): exactly one step forward, or to aborted from approved
-- or fenced only (never from drained on, SPEC §6). Runs AFTER UPDATE so the
-- table's CHECK constraints report malformed rows first.
create or replace function community_deletion.tg_requests__stage_moves_forward()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  if new.stage is distinct from community_deletion._next_stage(old.stage)
     and not (new.stage = 'aborted' and community_deletion._stage_is_abortable(old.stage)) then
    raise exception 'deletion request %: illegal stage change % -> %', old.id, old.stage, new.stage
      using errcode = 'DL2S1';
  end if;
  return null;
end;
$$;
--! EndIncluded functions/tg_requests__stage_moves_forward.sql
--! Included functions/unblock.sql
-- Operator API: clears a durable block after the operator remediated its cause
-- (SPEC §6). Only a blocked (else request_not_blocked, DL2B2), non-terminal
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
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_unblocked_by alias for $2;
  p_reason alias for $3;
  v_unblocked_by text := community_deletion._require_text(p_unblocked_by, 'unblocked_by', 512);
  v_reason text := community_deletion._bound_text(community_deletion._require_text(p_reason, 'reason', 100000), 4096);
  v_request community_deletion.requests;
begin
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
--! Included functions/validate_catalog.sql
-- Refuses (catalog_drift, DL7C1) unless
--   1. the live public tables with a community_id column equal the registry
--      (every kind) exactly: no registered table missing, no unknown table;
--   2. the tables carrying the write fence equal the registered scoped tables
--      exactly (an unfenced scoped table lets writes escape; a fence trigger —
--      complete or not — on an unregistered table means the registry is stale);
--   3. every registered scoped table has community_id uuid NOT NULL and a valid,
--      non-partial index leading with community_id (beyond the seeds: the purge
--      and the absence proof never scan the fleet).
-- The message lists every problem (table names included) so a claim that
-- blocks on it explains itself; DETAIL carries the same as JSON. Destructive
-- stages call it inside their own transaction after
-- community_deletion._lock_schema_destruction_shared(), so the validated surface cannot
-- change before they commit.
create or replace function community_deletion.validate_catalog()
  returns void
  language plpgsql
  stable
  security definer
  set search_path = ''
as $$
declare
  v_live text[] := community_deletion._live_community_tables();
  v_fenced text[] := community_deletion._live_fenced_tables();
  v_registered text[];
  v_scoped text[];
  v_missing text[];
  v_unknown text[];
  v_unfenced text[];
  v_stray_fences text[];
  v_bad_column text[];
  v_unindexed text[];
  v_problems text[] := '{}';
begin
  select coalesce(array_agg(r.table_name order by r.table_name collate "C"), '{}'),
         coalesce(array_agg(r.table_name order by r.table_name collate "C") filter (where r.kind = 'scoped'), '{}')
    into v_registered, v_scoped
    from community_deletion.registered_tables r;
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_missing
    from unnest(v_registered) x where x <> all (v_live);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unknown
    from unnest(v_live) x where x <> all (v_registered);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unfenced
    from unnest(v_scoped) x where x <> all (v_fenced) and x = any (v_live);
  -- Any trigger executing a fence function (complete or not, enabled or not)
  -- on a table not registered as scoped means the registry is stale.
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_stray_fences
    from (select distinct c.relname::text as x
            from pg_catalog.pg_trigger t
            join pg_catalog.pg_class c on c.oid = t.tgrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where n.nspname = 'public' and not c.relispartition and not t.tgisinternal
             and t.tgfoid in (pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()'),
                              pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_write_early()'))) f
   where x <> all (v_scoped);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_bad_column
    from unnest(v_scoped) x
   where x = any (v_live) and not exists (
     select 1 from pg_catalog.pg_attribute a
      where a.attrelid = pg_catalog.to_regclass(format('public.%I', x)) and a.attname = 'community_id'
        and not a.attisdropped and a.atttypid = 'uuid'::pg_catalog.regtype and a.attnotnull);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unindexed
    from unnest(v_scoped) x
   where x = any (v_live) and not community_deletion._has_community_index(pg_catalog.to_regclass(format('public.%I', x)));

  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('registered but missing: %s', array_to_string(v_missing, ', '));
  end if;
  if cardinality(v_unknown) > 0 then
    v_problems := v_problems || format('unregistered tables with community_id: %s', array_to_string(v_unknown, ', '));
  end if;
  if cardinality(v_unfenced) > 0 then
    v_problems := v_problems || format('scoped tables without the write fence: %s', array_to_string(v_unfenced, ', '));
  end if;
  if cardinality(v_stray_fences) > 0 then
    v_problems := v_problems || format('write fence on unregistered tables: %s', array_to_string(v_stray_fences, ', '));
  end if;
  if cardinality(v_bad_column) > 0 then
    v_problems := v_problems || format('scoped tables whose community_id is not uuid not null: %s', array_to_string(v_bad_column, ', '));
  end if;
  if cardinality(v_unindexed) > 0 then
    v_problems := v_problems || format('scoped tables without an index leading with community_id: %s', array_to_string(v_unindexed, ', '));
  end if;
  if cardinality(v_problems) > 0 then
    raise exception 'community deletion catalog drift: %', array_to_string(v_problems, '; ')
      using errcode = 'DL7C1',
            detail = pg_catalog.jsonb_build_object(
              'missing', v_missing, 'unknown', v_unknown, 'unfenced', v_unfenced,
              'stray_fences', v_stray_fences, 'bad_community_id', v_bad_column,
              'unindexed', v_unindexed)::text,
            hint = 'In a migration, register new tables (community_deletion.register_scoped_table / community_deletion.register_unscoped_table) or drop them, restore missing fences and indexes; then unblock the request (or abort it).';
  end if;
end;
$$;
--! EndIncluded functions/validate_catalog.sql
--! Included functions/validate_serving_catalog.sql
-- Serving readiness (SPEC §5.5, seeds' validate_serving_catalog): the asymmetric
-- counterpart of community_deletion.validate_catalog. A serving process may start when the
-- fence machinery is present and every REGISTERED scoped table carries the write
-- fence; unknown extra tables (a migration ahead of the registry) do not stop
-- serving — they only stop destruction. Checks: the communities lifecycle
-- columns with their exact types and nullability; the tables the serving path
-- uses; the functions (lock key, write decision (volatile), assertion, fence
-- trigger function, serving-lease API); the enabled lifecycle guard on
-- communities; no missing fence. Raises catalog_drift (DL7C1) listing what is
-- missing.
create or replace function community_deletion.validate_serving_catalog()
  returns void
  language plpgsql
  stable
  security definer
  set search_path = ''
as $$
declare
  v_problems text[] := '{}';
  v_missing text[];
  v_fenced text[] := community_deletion._live_fenced_tables();
begin
  select coalesce(array_agg(e.col order by e.col), '{}') into v_missing
    from (values ('deleted_at', 'timestamp with time zone', false),
                 ('deletion_fence_generation', 'bigint', true),
                 ('deletion_state', 'text', true)) as e(col, typ, not_null)
   where not exists (
     select 1 from pg_catalog.pg_attribute a
      where a.attrelid = pg_catalog.to_regclass('public.communities') and a.attname = e.col
        and not a.attisdropped and pg_catalog.format_type(a.atttypid, a.atttypmod) = e.typ
        and a.attnotnull = e.not_null);
  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('communities lifecycle columns missing or incompatible: %s', array_to_string(v_missing, ', '));
  end if;

  select coalesce(array_agg(t order by t), '{}') into v_missing
    from unnest(array['public.communities', 'community_deletion.requests', 'community_deletion.serving_write_leases',
                      'community_deletion.serving_write_grants', 'community_deletion.registered_tables']) t
   where pg_catalog.to_regclass(t) is null;
  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('tables missing: %s', array_to_string(v_missing, ', '));
  end if;

  select coalesce(array_agg(f order by f), '{}') into v_missing
    from unnest(array['community_deletion._community_lock_key(uuid)',
                      'community_deletion.community_write_allowed(uuid)',
                      'community_deletion.assert_community_write_allowed(uuid)',
                      'community_deletion.tg_scoped_table__enforce_write_fence()',
                      'community_deletion.tg_communities__protect_lifecycle()',
                      'community_deletion.acquire_serving_lease(uuid,text,text,integer)',
                      'community_deletion.renew_serving_lease(uuid,text,bigint,bigint,integer)',
                      'community_deletion.verify_serving_lease(uuid,text,bigint,bigint)',
                      'community_deletion.release_serving_lease(uuid,text,bigint,bigint)',
                      'community_deletion.guard_serving_write(uuid,text,bigint,bigint)']) f
   where pg_catalog.to_regprocedure(f) is null;
  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('functions missing: %s', array_to_string(v_missing, ', '));
  elsif (select p.provolatile from pg_catalog.pg_proc p
          where p.oid = pg_catalog.to_regprocedure('community_deletion.community_write_allowed(uuid)')) <> 'v' then
    v_problems := v_problems || 'community_write_allowed(uuid) must be volatile (it takes the community lock)'::text;
  end if;

  if not exists (
    select 1 from pg_catalog.pg_trigger t
     where t.tgrelid = pg_catalog.to_regclass('public.communities') and not t.tgisinternal
       and t.tgenabled in ('O', 'A')
       and t.tgfoid = pg_catalog.to_regprocedure('community_deletion.tg_communities__protect_lifecycle()')) then
    v_problems := v_problems || 'the lifecycle/tombstone guard trigger on communities is missing or disabled'::text;
  end if;

  select coalesce(array_agg(r.table_name order by r.table_name collate "C"), '{}') into v_missing
    from community_deletion.registered_tables r
   where r.kind = 'scoped' and r.table_name <> all (v_fenced);
  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('registered scoped tables without the write fence: %s', array_to_string(v_missing, ', '));
  end if;

  if cardinality(v_problems) > 0 then
    raise exception 'community serving catalog not ready: %', array_to_string(v_problems, '; ')
      using errcode = 'DL7C1',
            hint = 'Apply the engine migrations (db/migrations) before serving traffic.';
  end if;
end;
$$;
--! EndIncluded functions/validate_serving_catalog.sql
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
  set search_path = ''
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
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'cache_purged', p_fence_generation);
  v_checked := community_deletion._prove_postgres_absence(p_request_id, v_request.community_id, p_fence_generation);
  perform community_deletion._checkpoint(p_request_id, 'cache_purged', 'verify_postgres_absence', 'completed', p_generation,
    jsonb_build_object('tables_checked', v_checked, 'fence_generation', p_fence_generation));
end;
$$;
--! EndIncluded functions/verify_postgres_absence.sql
--! Included functions/verify_serving_lease.sql
-- Raises serving_lease_denied (DL5S1) unless the exact lease (id, owner,
-- generation, fence generation) is unexpired and its community is active or
-- quiescing at that fence generation. Call it right before an irreversible
-- external call. Takes the community lock shared like every serving check.
create or replace function community_deletion.verify_serving_lease(
  lease_id uuid, owner text, lease_generation bigint, fence_generation bigint)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_lease_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
begin
  perform community_deletion._require_read_committed('community_deletion.verify_serving_lease');
  perform community_deletion._serving_lease_check(p_lease_id, p_owner, p_generation, p_fence_generation);
end;
$$;
--! EndIncluded functions/verify_serving_lease.sql
--! Included functions/verify_token.sql
-- Executor API: raises stale_lease (DL4L1) unless (owner, generation) is the
-- current live lease of the request at stage with a bound approval; once the
-- request carries a fence generation, also that its community is fenced (or
-- tombstoned) at exactly that generation. Drivers call it before every
-- irreversible external effect.
create or replace function community_deletion.verify_token(
  request_id uuid, executor_id text, lease_generation bigint, stage text)
  returns void
  language plpgsql
  stable
  security definer
  set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_stage alias for $4;
  v_request community_deletion.requests;
begin
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, p_stage);
  if v_request.fence_generation is not null then
    perform community_deletion._verify_lease_and_fence(
      p_request_id, p_owner, p_generation, p_stage, v_request.fence_generation);
  end if;
end;
$$;
--! EndIncluded functions/verify_token.sql
--! Included functions/write_fence_implementation.sql
-- 'native' or 'plpgsql': what the write-fence triggers execute now (both
-- trigger functions are always installed together).
create or replace function community_deletion.write_fence_implementation()
  returns text
  language sql
  stable
  set search_path = ''
as $$
  select case l.lanname when 'c' then 'native' else l.lanname::text end
    from pg_catalog.pg_proc p join pg_catalog.pg_language l on l.oid = p.prolang
   where p.oid = 'community_deletion.tg_scoped_table__enforce_write_fence()'::pg_catalog.regprocedure
$$;
--! EndIncluded functions/write_fence_implementation.sql
--! EndIncluded engine/functions.sql
set local check_function_bodies = on;

-- 5. The stage list is defined once (_stages): the constraints and the claim
--    index ask it instead of repeating it.
alter table community_deletion.requests
  drop constraint requests_stage_is_valid,
  drop constraint requests_retry_stage_is_valid,
  drop constraint requests_fenced_stages_have_generation,
  drop constraint requests_terminal_is_completed,
  drop constraint requests_terminal_holds_no_lease,
  add constraint requests_stage_is_valid check (community_deletion._stage_order(stage) is not null),
  add constraint requests_retry_stage_is_valid
    check (retry_stage is null or community_deletion._stage_is_runnable(retry_stage)),
  add constraint requests_fenced_stages_have_generation
    check (not community_deletion._stage_is_fenced(stage) or fence_generation is not null),
  add constraint requests_terminal_is_completed
    check (community_deletion._stage_is_terminal(stage) = (completed_at is not null)),
  add constraint requests_terminal_holds_no_lease
    check (not community_deletion._stage_is_terminal(stage) or lease_owner is null);
alter table community_deletion.checkpoints
  drop constraint checkpoints_stage_is_valid,
  add constraint checkpoints_stage_is_valid check (community_deletion._stage_order(stage) is not null);
drop index community_deletion.requests_claim_idx;
create index requests_claim_idx on community_deletion.requests (created_at, id)
  where blocked_at is null and community_deletion._stage_is_runnable(stage);
create view community_deletion.stages as
  select s.stage, s.stage_order, s.next_stage, s.runnable, s.terminal, s.abortable, s.fenced
    from community_deletion._stages() s;
comment on view community_deletion.stages is
  'The request lifecycle: order, next stage, and which stages are runnable, terminal, abortable and fenced.';

-- 6. Triggers, the write fence (its trigger functions first, then every
--    registered scoped table), privileges, and the API's descriptions.
--! Included engine/triggers.sql
-- Every trigger and event trigger the engine attaches, except the write-fence
-- triggers on the registered scoped tables (register_scoped_table attaches
-- those; scoped_table_fences.sql re-attaches them all). Re-runnable: each
-- trigger is dropped and created again, inside the migration's transaction.

-- Control plane: frozen evidence, forward-only stages, no deletes, no TRUNCATE.
drop trigger if exists _100_protect_frozen_fields on community_deletion.requests;
create trigger _100_protect_frozen_fields
  before update on community_deletion.requests
  for each row execute function community_deletion.tg_requests__protect_frozen_fields();

drop trigger if exists _110_refuse_delete on community_deletion.requests;
create trigger _110_refuse_delete
  before delete on community_deletion.requests
  for each row execute function community_deletion.tg_requests__refuse_delete();

drop trigger if exists _120_refuse_truncate on community_deletion.requests;
create trigger _120_refuse_truncate
  before truncate on community_deletion.requests
  for each statement execute function community_deletion.tg_control_plane__refuse_truncate();

drop trigger if exists _500_freeze_destructive_manifest on community_deletion.requests;
create trigger _500_freeze_destructive_manifest
  before update on community_deletion.requests
  for each row
  when (old.destructive_storage_manifest is distinct from new.destructive_storage_manifest
        or old.destructive_storage_frozen_at is distinct from new.destructive_storage_frozen_at)
  execute function community_deletion.tg_requests__freeze_destructive_manifest();

drop trigger if exists _900_stage_moves_forward on community_deletion.requests;
create trigger _900_stage_moves_forward
  after update of stage on community_deletion.requests
  for each row when (old.stage is distinct from new.stage)
  execute function community_deletion.tg_requests__stage_moves_forward();

drop trigger if exists _100_check_approval on community_deletion.approvals;
create trigger _100_check_approval
  before insert on community_deletion.approvals
  for each row execute function community_deletion.tg_approvals__check_approval();

drop trigger if exists _110_refuse_change on community_deletion.approvals;
create trigger _110_refuse_change
  before update or delete on community_deletion.approvals
  for each row execute function community_deletion.tg_approvals__refuse_change();

drop trigger if exists _120_refuse_truncate on community_deletion.approvals;
create trigger _120_refuse_truncate
  before truncate on community_deletion.approvals
  for each statement execute function community_deletion.tg_control_plane__refuse_truncate();

drop trigger if exists _100_protect on community_deletion.checkpoints;
create trigger _100_protect
  before update or delete on community_deletion.checkpoints
  for each row execute function community_deletion.tg_checkpoints__protect();

drop trigger if exists _120_refuse_truncate on community_deletion.checkpoints;
create trigger _120_refuse_truncate
  before truncate on community_deletion.checkpoints
  for each statement execute function community_deletion.tg_control_plane__refuse_truncate();

drop trigger if exists _100_guard_key_chunks on community_deletion.manifest_keys;
create trigger _100_guard_key_chunks
  before insert or update or delete on community_deletion.manifest_keys
  for each row
  execute function community_deletion.tg_manifest_keys__guard();

drop trigger if exists _101_forbid_truncate on community_deletion.manifest_keys;
create trigger _101_forbid_truncate
  before truncate on community_deletion.manifest_keys
  for each statement
  execute function community_deletion.tg_manifest_keys__forbid_truncate();

-- The host's tables: the lifecycle/tombstone guard on communities and the
-- read-state hard-delete guard on events.
drop trigger if exists _010_protect_lifecycle on public.communities;
create trigger _010_protect_lifecycle
  before insert or update or delete on public.communities
  for each row
  execute function community_deletion.tg_communities__protect_lifecycle();

drop trigger if exists _200_guard_read_state_delete on public.events;
create trigger _200_guard_read_state_delete
  before delete on public.events
  for each row
  when (old.kind = 30078 and old.d_tag like 'read-state:%')
  execute function community_deletion.tg_events__guard_read_state_delete();

-- Any DDL on non-temporary objects, by any tool, takes the schema/destruction
-- lock exclusively (see _ddl_tag_is_deferred.sql for which event decides).
drop event trigger if exists _100_lock_schema_destruction;
create event trigger _100_lock_schema_destruction
  on ddl_command_start
  execute function community_deletion.tg_ddl__lock_schema_destruction();
drop event trigger if exists _101_lock_schema_destruction_created;
create event trigger _101_lock_schema_destruction_created
  on ddl_command_end
  execute function community_deletion.tg_ddl__lock_schema_destruction_created();
drop event trigger if exists _102_lock_schema_destruction_dropped;
create event trigger _102_lock_schema_destruction_dropped
  on sql_drop
  execute function community_deletion.tg_ddl__lock_schema_destruction_dropped();
--! EndIncluded engine/triggers.sql
select community_deletion.install_write_fence();
--! Included engine/scoped_table_fences.sql
-- (Re-)attaches the write fence on every registered scoped table, in purge
-- order, through register_scoped_table (which drops and re-creates the
-- triggers), inside the migration's transaction: no writer ever sees a table
-- without its fence. Runs after install_write_fence() has defined the
-- trigger functions.
select community_deletion.register_scoped_table(pg_catalog.to_regclass(pg_catalog.format('public.%I', r.table_name)), r.purge_order)
  from community_deletion.registered_tables r
 where r.kind = 'scoped'
 order by r.purge_order;
--! EndIncluded engine/scoped_table_fences.sql
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
      'inspect', 'request_status', 'request_checkpoints', 'list_requests', 'storage_taxonomy_rules', 'key_chunk_progress',
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
      'serving_lease_stats', 'reap_serving_leases', 'write_fence_implementation'),
    'community_deletion_app', pg_catalog.jsonb_build_array(
      'acquire_serving_lease', 'renew_serving_lease', 'verify_serving_lease',
      'release_serving_lease', 'guard_serving_write', 'validate_serving_catalog',
      'write_fence_implementation'),
    'public', pg_catalog.jsonb_build_array(
      'community_write_allowed', 'assert_community_write_allowed', '_require_read_committed',
      '_community_lock_key', '_serving_write_granted', '_schema_destruction_lock_key',
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

  -- The host's tables. Start from nothing for the engine roles.
  revoke all on all tables in schema public from community_deletion_operator, community_deletion_executor,
    community_deletion_app, community_deletion_owner;
  revoke all on all sequences in schema public from community_deletion_operator, community_deletion_executor,
    community_deletion_app, community_deletion_owner;
  -- The owner: communities (lifecycle), scoped tables (purge), provenance
  -- tables (nulling).
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
    select r.table_name from community_deletion.registered_tables r
     where r.kind in ('scoped', 'provenance') and pg_catalog.to_regclass(pg_catalog.format('public.%I', r.table_name)) is not null
  loop
    execute pg_catalog.format('grant select, insert, update, delete on public.%I to community_deletion_app', v_fn.table_name);
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
  'Abort a request at approved or fenced: the community is active again and the request terminal.';
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
