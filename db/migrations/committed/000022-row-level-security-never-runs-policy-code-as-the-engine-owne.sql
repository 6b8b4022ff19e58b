--! Previous: sha1:612837039387a5d90baa9636c3b7de8438b9399b
--! Hash: sha1:096474054f9a7c1686f9230d965ebebeb0922c52
--! Message: Row-level security never runs policy code as the engine owner: every SECURITY DEFINER engine function sets row_security off (a statement a policy would affect fails with 42501 before any policy expression runs); _invoker_code_problems reports row-level security that applies to the engine owner (validate_catalog names public.communities, DL7C1; _refuse_invoker_code refuses under lock) and follows domains based on domains and arrays of domains

-- Row-level security never runs policy code as the engine owner: every SECURITY DEFINER engine
-- function sets row_security off; _invoker_code_problems reports row-level security that applies
-- to the engine owner and follows domains based on domains (schema version 22).
--! Included functions/_guard_registered_tables.sql
-- Raises protected_table_ddl (DL7C2) when DDL has weakened the guards of a
-- registered table (docs/security.md#table-owners): a write-fence trigger of
-- a scoped table, or the provenance guard of a provenance table, dropped,
-- renamed, disabled or set to fire on replicas only or always; or a
-- registered table made part of a partition or inheritance tree (the fence
-- does not cover statements addressed to a partition or child). Called at
-- the end of every DDL command (event trigger _110_guard_registered_tables),
-- so the command fails and nothing it did remains. Tables that no longer
-- exist are the catalog check's business (a dropped table is drift, not
-- tampering). Security definer, executable by every role: the DDL may come
-- from any table owner, who cannot read the registry; it only answers.
create or replace function community_deletion._guard_registered_tables()
  returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
declare
  v_problems text[];
begin
  select coalesce(pg_catalog.array_agg(pg_catalog.format('%s: %s', p.label, pg_catalog.array_to_string(p.problems, ', '))
                                        order by p.label collate "C"), '{}')
    into v_problems
    from (select community_deletion._table_label(r.schema_name, r.table_name) as label,
                 case r.kind when 'scoped' then community_deletion._fence_trigger_problems(x.rel)
                             else community_deletion._provenance_guard_problems(x.rel, r.community_column) end
                 || pg_catalog.array_remove(array['it became ' || community_deletion._inheritance_role(x.rel)], null) as problems
            from community_deletion.registered_tables r
            cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
           where r.kind in ('scoped', 'provenance') and x.rel is not null) p
   where pg_catalog.cardinality(p.problems) > 0;
  if pg_catalog.cardinality(v_problems) > 0 then
    raise exception 'community deletion: refused DDL on registered tables: %', pg_catalog.array_to_string(v_problems, '; ')
      using errcode = 'DL7C2',
            hint = 'The write fence and provenance guards of registered tables cannot be dropped, disabled or bypassed '
                   '(docs/security.md). To retire a table, drop it in a migration and update the registry.';
  end if;
end;
$$;
--! EndIncluded functions/_guard_registered_tables.sql
--! Included functions/_invoker_code_problems.sql
-- Code another role could have attached to relation p_rel that would run as
-- the engine owner (community_deletion_owner) when one of the engine's own
-- statements changes the table: p_event 'delete' (the purge of a scoped
-- table) or 'update' (a provenance table's community column nulled; the
-- lifecycle columns of public.communities). The engine's statements run
-- inside its security-definer functions, and PostgreSQL runs a trigger's
-- function, a rule's actions and the functions in the expressions an UPDATE
-- evaluates as the role executing the statement: a table owner's trigger
-- would read and write the control plane, tombstone another community or
-- remove its rows. A function is trusted when a superuser or
-- community_deletion_owner owns it (no other role can replace it or change
-- its owner); SECURITY DEFINER is not enough, its owner can turn it off at
-- any moment. Reported:
--   * every trigger firing on p_event (enabled or not: it can be enabled
--     later) whose function is not trusted;
--   * every rule on p_event (its actions run with the engine's privileges
--     and change what the statement does);
--   * for 'update': every index expression or predicate, CHECK constraint,
--     generated column or constraint of a column's domain (or of a domain
--     that domain is based on, at any depth) that calls an untrusted
--     function, directly or through an operator;
--   * row-level security that applies to the engine owner
--     (_row_security_problem, same words): a policy's expressions run as the
--     role whose statement reads the table. The engine's security-definer
--     functions set row_security off, so such a statement fails (42501)
--     before any policy code runs; this names the cause first.
-- Foreign-key checks and actions are not code of this kind: PostgreSQL runs
-- them as the owner of the table they read or change. Returns the problems
-- in words, sorted; empty when there are none.
create or replace function community_deletion._invoker_code_problems(p_rel pg_catalog.regclass, p_event text)
  returns text[]
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  with recursive domains as (
    -- The domains of p_rel's columns (an array column's element type too),
    -- and the domains those are based on.
    select t.oid, t.typbasetype
      from pg_catalog.pg_attribute a
      join pg_catalog.pg_type ct on ct.oid = a.atttypid
      join pg_catalog.pg_type t on t.oid in (ct.oid, ct.typelem) and t.typtype = 'd'
     where a.attrelid = p_rel and a.attnum > 0 and not a.attisdropped
    union
    select t.oid, t.typbasetype
      from domains dm
      join pg_catalog.pg_type t on t.oid = dm.typbasetype and t.typtype = 'd'
  ),
  code as (
    select pg_catalog.format('trigger %s runs %s', pg_catalog.quote_ident(t.tgname), t.tgfoid::pg_catalog.regprocedure) as what,
           t.tgfoid as fn, false as always
      from pg_catalog.pg_trigger t
     where t.tgrelid = p_rel and not t.tgisinternal
       and (t.tgtype::integer & case p_event when 'delete' then 8 when 'update' then 16 else 0 end) <> 0
    union all
    select pg_catalog.format('rule %s on %s', pg_catalog.quote_ident(r.rulename), pg_catalog.upper(p_event)), null, true
      from pg_catalog.pg_rewrite r
     where r.ev_class = p_rel and r.rulename <> '_RETURN'
       and r.ev_type = case p_event when 'delete' then '4' when 'update' then '2' end
    union all
    select community_deletion._row_security_problem(p_rel), null, true
     where community_deletion._row_security_problem(p_rel) is not null
    union all
    select pg_catalog.format('%s calls %s', pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid),
                             f.fn::pg_catalog.regprocedure), f.fn, false
      from pg_catalog.pg_depend d
      cross join lateral (select case when d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass::oid then d.refobjid
                                      else (select o.oprcode::oid from pg_catalog.pg_operator o where o.oid = d.refobjid) end as fn) f
     where p_event = 'update'
       and d.refclassid in ('pg_catalog.pg_proc'::pg_catalog.regclass::oid, 'pg_catalog.pg_operator'::pg_catalog.regclass::oid)
       and (   (d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass::oid
                and d.objid in (select i.indexrelid from pg_catalog.pg_index i where i.indrelid = p_rel))
            or (d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass::oid
                and d.objid in (select c.oid from pg_catalog.pg_constraint c where c.conrelid = p_rel and c.contype = 'c'))
            or (d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass::oid
                and d.objid in (select ad.oid from pg_catalog.pg_attrdef ad
                                  join pg_catalog.pg_attribute a on a.attrelid = ad.adrelid and a.attnum = ad.adnum
                                 where ad.adrelid = p_rel and a.attgenerated <> ''))
            or (d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass::oid
                and d.objid in (select c.oid from pg_catalog.pg_constraint c
                                 where c.contypid in (select dm.oid from domains dm))))
  )
  select coalesce(pg_catalog.array_agg(distinct c.what), '{}')
    from code c
    left join pg_catalog.pg_proc p on p.oid = c.fn
   where c.always
      or (p.oid is not null
          and p.proowner <> (select r.oid from pg_catalog.pg_roles r where r.rolname = 'community_deletion_owner')
          and not (select r.rolsuper from pg_catalog.pg_roles r where r.oid = p.proowner))
$$;
--! EndIncluded functions/_invoker_code_problems.sql
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
  select exists (
    select 1 from community_deletion.serving_write_grants g
     where g.xact_id = pg_catalog.pg_current_xact_id_if_assigned()
       and g.community_id = p_community
       and g.fence_generation = p_fence_generation)
$$;
--! EndIncluded functions/_serving_write_granted.sql
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
  set row_security = off
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
--! Included functions/acquire_serving_lease.sql
-- Serving-write leases (docs/design.md#control-plane, docs/design.md#lifecycle, docs/design.md#serving-path): a short lease the
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set row_security = off
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
  perform community_deletion._refuse_invoker_code('public.communities', 'update');
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  perform community_deletion._apply_lock_timeout();
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
--! Included functions/executor_stopped.sql
-- Executor API: records that an executor process stopped (its liveness row
-- keeps the last heartbeat, marked draining and stopped). Unknown ids are ignored.
create or replace function community_deletion.executor_stopped(executor_id text)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
-- approved stage, step 2 (docs/design.md#lifecycle, docs/design.md#write-fence): close the fence. Same lock discipline
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  perform community_deletion._lock_community_for_transition(v_request.community_id);
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
  -- Unreleased serving leases, live or expired within the grace: a writer
  -- may still be finishing (_serving_writes_in_flight).
  v_operations := community_deletion._serving_writes_in_flight(v_request.community_id);
  select count(*) into v_live
    from community_deletion.serving_write_leases l
   where l.community_id = v_request.community_id
     and l.lease_until + (select s.serving_lease_grace from community_deletion.settings s) >= now();
  if v_live > 0 then
    raise exception 'community % of request % is not drained: % serving-write lease(s) not released (%)',
      v_request.community_id, p_request_id, v_live, pg_catalog.array_to_string(v_operations, ', ')
      using errcode = 'DL5D1',
            detail = pg_catalog.jsonb_build_object('community_id', v_request.community_id,
                                                   'live_leases', v_live, 'operations', v_operations)::text,
            hint = 'Retry after the admitted serving-write leases are released, or expired more than settings.serving_lease_grace ago.';
  end if;
  v_new_generation := v_community.deletion_fence_generation + 1;
  perform community_deletion._refuse_invoker_code('public.communities', 'update');
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
  set row_security = off
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
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  if cardinality(community_deletion._serving_writes_in_flight(v_request.community_id)) > 0 then
    raise exception 'request % (community %): serving-write leases are not released (live, or expired within settings.serving_lease_grace)',
      p_request_id, v_request.community_id
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
--! Included functions/plan.sql
-- Operator API: what a deletion of the community with this host (matched
-- case-insensitively, as submit does) would remove from PostgreSQL, without
-- creating a request and without writing anything (stable; takes no lock
-- beyond the reads' own): for every registered table in purge order —
-- provenance tables first (their community column is set to NULL, rows kept),
-- then the scoped tables in registry purge order, children before parents —
-- the rows the community has there now. Also the community's lifecycle state
-- and its open request, if any. Counts are a snapshot: writes continue until
-- the fence closes, and the executor deletes whatever is there then.
-- Refuses an unknown host (community_not_found, DL1N2) and a tombstoned
-- community (community_not_eligible, DL2C1): it was deleted, nothing is left.
create or replace function community_deletion.plan(host text)
  returns jsonb
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameter under its internal name (bare names are columns).
  p_host alias for $1;
  v_host text := community_deletion._require_text(p_host, 'host', 253);
  v_community public.communities;
  v_unit record;
  v_rows bigint;
  v_tables jsonb := '[]'::jsonb;
  v_delete bigint := 0;
  v_null bigint := 0;
begin
  select c.* into v_community from public.communities c where lower(c.host) = lower(v_host);
  if not found then
    raise exception 'community deletion: no community has host %', v_host
      using errcode = 'DL1N2';
  end if;
  if v_community.deletion_state = 'tombstone' or v_community.deleted_at is not null then
    raise exception 'community % (%) was deleted at %: it is a tombstone, there is nothing left to delete',
      v_community.host, v_community.id, v_community.deleted_at
      using errcode = 'DL2C1',
            hint = 'Its deletion request and checkpoints are the evidence: community_deletion.list_requests.';
  end if;

  -- The purge's own order (community_deletion._purge_batch).
  for v_unit in
    select u.label, u.kind, u.purge_order, u.schema_name, u.table_name, u.community_column
      from (select 1 as phase, t.kind, null::integer as purge_order, l.label,
                   t.schema_name, t.table_name, t.community_column
              from community_deletion.registered_tables t
              cross join lateral (select community_deletion._table_label(t.schema_name, t.table_name) as label) l
             where t.kind = 'provenance'
            union all
            select 2, t.kind, t.purge_order, l.label,
                   t.schema_name, t.table_name, t.community_column
              from community_deletion.registered_tables t
              cross join lateral (select community_deletion._table_label(t.schema_name, t.table_name) as label) l
             where t.kind = 'scoped') u
     order by u.phase, u.purge_order, u.label collate "C"
  loop
    execute format('select count(*) from %I.%I where %I = $1',
                   v_unit.schema_name, v_unit.table_name, v_unit.community_column)
      into v_rows using v_community.id;
    v_tables := v_tables || jsonb_build_array(jsonb_build_object(
      'table', v_unit.label,
      'kind', v_unit.kind,
      'action', case v_unit.kind when 'scoped' then 'delete' else 'null_community_column' end,
      'purge_order', v_unit.purge_order,
      'rows', v_rows));
    if v_unit.kind = 'scoped' then v_delete := v_delete + v_rows; else v_null := v_null + v_rows; end if;
  end loop;

  return jsonb_build_object(
    'community_id', v_community.id,
    'host', v_community.host,
    'deletion_state', v_community.deletion_state,
    'archived_at', v_community.archived_at,
    'open_request', (select jsonb_build_object('id', r.id, 'stage', r.stage, 'requested_by', r.requested_by)
                       from community_deletion.requests r
                      where r.community_id = v_community.id and r.stage <> 'aborted'),
    'tables', v_tables,
    'rows_to_delete', v_delete,
    'rows_to_unlink', v_null,
    -- Registered as excluded: their rows stay outside every deletion.
    'excluded_tables', coalesce((select jsonb_agg(jsonb_build_object(
                                   'table', community_deletion._table_label(t.schema_name, t.table_name), 'reason', t.note)
                                   order by community_deletion._table_label(t.schema_name, t.table_name) collate "C")
                                   from community_deletion.registered_tables t where t.kind = 'excluded'), '[]'::jsonb));
end;
$$;
--! EndIncluded functions/plan.sql
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
  set row_security = off
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
--! Included functions/purge_postgres_batch.sql
-- bindings_removed (executor API): one bounded batch of the PostgreSQL purge,
-- in its own transaction. Under the shared schema-destruction lock (a
-- migration waits for at most this batch, never the whole purge), with the
-- catalog re-validated, the community lock held exclusively (batches of the
-- request never interleave) and lease and fence generation verified, it
-- removes rows worth at most settings.purge_batch_rows (a cost: a row weighs
-- 1 + the foreign keys referencing its table) and sized by their measured
-- pace to take about settings.purge_batch_target, continuing where the
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
  set row_security = off
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
  v_budget bigint;
  v_target interval;
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
  select s.purge_batch_rows, s.purge_batch_target into v_budget, v_target from community_deletion.settings s;
  v_batch := community_deletion._purge_batch(p_request_id, v_request.community_id, 'bindings_removed', p_generation,
    v_budget, v_target);
  perform set_config('community_deletion.read_state_hard_delete', 'off', true);
  v_totals := community_deletion._purge_totals(p_request_id, 'bindings_removed');
  return v_batch || jsonb_build_object('purged_rows', v_totals -> 'purged_rows', 'inventoried_rows', v_totals -> 'inventoried_rows');
end;
$$;
--! EndIncluded functions/purge_postgres_batch.sql
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
  set row_security = off
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
--! Included functions/reap_serving_leases.sql
-- Deletes up to max_rows (1..10000, DL1I1 otherwise) serving-write leases that
-- expired more than settings.serving_lease_grace ago (within the grace the
-- fence still waits for them: _serving_writes_in_flight),
-- oldest expiry first, skipping rows another session holds; fleet-wide, whatever
-- the communities' states. Also prunes serving-write grants of transactions that
-- have finished (committed, aborted, or too old to know). Returns the number
-- of leases deleted. Safe to run from any number of workers.
create or replace function community_deletion.reap_serving_leases(max_rows integer default 1000)
  returns integer
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
     where l.lease_until + (select s.serving_lease_grace from community_deletion.settings s) < now()
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
--! Included functions/release.sql
-- Executor API: gives up the lease cleanly (SIGTERM/SIGINT, or done for now)
-- without recording a failure. Only the exact owner + generation releases; a
-- stale release is harmless and returns false.
create or replace function community_deletion.release(request_id uuid, executor_id text, lease_generation bigint)
  returns boolean
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
-- finishes) — while quiescing, never beyond settings.serving_lease_quiescing_cap
-- after quiescing began, so the fence is not starved. The exact lease id, owner, lease
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  v_quiescing_deadline timestamptz;
begin
  perform community_deletion._require_read_committed('community_deletion.renew_serving_lease');
  if p_lease_seconds is null or p_lease_seconds not between 1 and 3600 then
    raise exception 'serving lease renewal needs 1..3600 lease seconds' using errcode = 'DL1I1';
  end if;
  select l.community_id into v_community from community_deletion.serving_write_leases l where l.id = p_lease_id;
  if v_community is not null then
    perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(v_community));
    -- Once the community is quiescing, an admitted lease lives at most
    -- settings.serving_lease_quiescing_cap past the start of quiescing, so
    -- renewals cannot hold the fence off forever.
    select r.quiescing_started_at + s.serving_lease_quiescing_cap into v_quiescing_deadline
      from community_deletion.requests r cross join community_deletion.settings s
     where r.community_id = v_community and r.stage = 'approved' and r.quiescing_started_at is not null;
    update community_deletion.serving_write_leases l
       set lease_until = least(now() + pg_catalog.make_interval(secs => p_lease_seconds),
                               case when c.deletion_state = 'quiescing' then v_quiescing_deadline end),
           heartbeat_at = now()
      from public.communities c
     where l.id = p_lease_id and l.community_id = v_community and l.owner = p_owner
       and l.generation = p_generation and l.fence_generation = p_fence_generation
       and l.lease_until >= now()
       and c.id = l.community_id and c.deletion_state in ('active', 'quiescing')
       and c.deletion_fence_generation = l.fence_generation
       and (c.deletion_state = 'active' or v_quiescing_deadline is null or v_quiescing_deadline > now())
    returning l.lease_until into v_until;
  end if;
  if v_until is null then
    raise exception 'stale serving-write lease % (owner %, generation %, fence generation %)',
      p_lease_id, p_owner, p_generation, p_fence_generation
      using errcode = 'DL5S1',
            hint = 'The lease expired, was released, reached its life cap while the community is quiescing '
                   '(settings.serving_lease_quiescing_cap), or the community was fenced: stop the protected effect.';
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
--! Included functions/storage_taxonomy_rules.sql
-- The storage key taxonomy as the driver reads it (owned and shared shapes).
-- The driver matches keys with these patterns; SQL re-checks owned keys when
-- chunks are appended, so a stale copy in a process can only fail closed.
create or replace function community_deletion.storage_taxonomy_rules()
  returns setof community_deletion.storage_taxonomy
  language sql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
--! Included functions/tg_provenance_table__refuse_inactive_community.sql
-- Provenance guard (docs/security.md#provenance): BEFORE INSERT OR UPDATE,
-- FOR EACH ROW, on every registered provenance table
-- (_020_provenance_guard, the guarded column as the trigger's argument).
-- A provenance row may name a community only while that community is active:
-- after the purge nulled a tombstone's provenance rows, a writer setting the
-- column back would make the absence proof fail forever. NULL is always
-- allowed (that is what the purge writes). Takes the community lock shared,
-- as every writer does, so the check orders against quiesce, fence and
-- abort. Refusal: 55000 "community write refused: …". Security definer: the
-- writer may not read communities.
create or replace function community_deletion.tg_provenance_table__refuse_inactive_community()
  returns trigger
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
declare
  v_column text := tg_argv[0];
  v_new uuid := (pg_catalog.to_jsonb(new) ->> v_column)::uuid;
  v_state text;
begin
  if v_new is null or (tg_op = 'UPDATE' and v_new is not distinct from (pg_catalog.to_jsonb(old) ->> v_column)::uuid) then
    return new;
  end if;
  perform community_deletion._lock_community(v_new, false);
  select c.deletion_state into v_state from public.communities c where c.id = v_new;
  if v_state is distinct from 'active' then
    raise exception 'community write refused: % on %.% names community % (%) in %',
      tg_op, tg_table_schema, tg_table_name, v_new, coalesce(v_state, 'missing'), v_column
      using errcode = '55000',
            hint = 'A provenance row may name only an active community; write NULL instead.';
  end if;
  return new;
end;
$$;
--! EndIncluded functions/tg_provenance_table__refuse_inactive_community.sql
--! Included functions/tg_scoped_table__refuse_truncate.sql
-- The write fence's TRUNCATE guard (docs/security.md#table-owners): BEFORE
-- TRUNCATE, FOR EACH STATEMENT, on every registered scoped table
-- (_010_community_write_fence_truncate). TRUNCATE fires no row triggers, so
-- the statement fence never sees it; a table owner could otherwise remove the
-- rows of a community that is being deleted. Refused (55000, like every
-- fenced write) while any community that is not active — quiescing, fenced
-- or a tombstone — has a row in the table; otherwise the host's TRUNCATE goes
-- ahead (the engine's own purge never truncates). Security definer: the
-- truncating role may not read communities; the check only answers whether
-- such a row exists. A community that becomes non-active concurrently is
-- covered by begin_quiescing, which takes ACCESS SHARE on every scoped table
-- and so waits for a TRUNCATE in progress (or the TRUNCATE, queued behind it,
-- sees the committed quiescing state).
create or replace function community_deletion.tg_scoped_table__refuse_truncate()
  returns trigger
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
declare
  v_community uuid;
begin
  execute pg_catalog.format(
    'select c.id from public.communities c
      where c.deletion_state <> ''active''
        and exists (select 1 from %I.%I t where t.community_id = c.id)
      limit 1', tg_table_schema, tg_table_name)
    into v_community;
  if v_community is not null then
    raise exception 'community write refused: TRUNCATE on %.% while community % (not active) has rows there',
      tg_table_schema, tg_table_name, v_community
      using errcode = '55000',
            hint = 'A community that is being deleted keeps its rows until the engine purges them; delete other rows with DELETE.';
  end if;
  return null;
end;
$$;
--! EndIncluded functions/tg_scoped_table__refuse_truncate.sql
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
  set row_security = off
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
--! Included functions/validate_catalog.sql
-- Refuses (catalog_drift, DL7C1) unless the live catalog is exactly what the
-- registry says (docs/design.md#catalog):
--   1. the relations that hold communities, in every schema
--      (_live_community_tables), equal the registry (every kind): no
--      registered table missing, no unknown one — partitions, inheritance
--      children, foreign tables and materialized views included;
--   2. the tables carrying the write fence equal the registered scoped tables
--      (an unfenced scoped table lets writes escape; a fence trigger on an
--      unregistered table means the registry is stale);
--   3. every registered scoped table is a plain table (not partitioned, not
--      a partition, not part of an inheritance tree), has community_id uuid
--      NOT NULL and no other column holding a community, a valid index
--      leading with community_id, and all six fence triggers present,
--      executing their functions and firing for ordinary sessions;
--   4. every registered provenance table is a plain table whose only
--      community column is the registered one, nullable and leading an
--      index, guarded by _020_provenance_guard;
--   5. row-level security of a registered scoped or provenance table, or
--      of public.communities, does not apply to the engine owner
--      (_row_security_problem: without BYPASSRLS, on a managed server, a
--      policy could hide rows from the purge and the absence proof, and its
--      expressions would run as the engine owner; reported with item 7);
--   6. every foreign key of a registered scoped or provenance table that
--      references a registered scoped table has an index leading with its
--      referencing columns (_foreign_key_index_problems: without it the
--      purge is quadratic);
--   7. no code another role attached to a registered scoped table (on
--      DELETE), provenance table or public.communities (on UPDATE) would run
--      as the engine owner when the engine changes their rows: a trigger or
--      expression calling a function no superuser or engine owner owns, a
--      rule, or row-level security (_invoker_code_problems;
--      _refuse_invoker_code checks it again, under lock, right before each
--      such statement).
-- Excluded tables are only required to be registered. The message lists
-- every problem (table names included) so a claim that blocks on it explains
-- itself; DETAIL carries the same as JSON. Destructive stages call it inside
-- their own transaction after _lock_schema_destruction_shared(), so the
-- validated surface cannot change before they commit.
create or replace function community_deletion.validate_catalog()
  returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  v_shape text[];
  v_communities_code text[] := coalesce(community_deletion._invoker_code_problems(pg_catalog.to_regclass('public.communities'), 'update'), '{}');
  v_problems text[] := '{}';
begin
  select coalesce(array_agg(l.label order by l.label collate "C"), '{}'),
         coalesce(array_agg(l.label order by l.label collate "C") filter (where r.kind = 'scoped'), '{}')
    into v_registered, v_scoped
    from community_deletion.registered_tables r
    cross join lateral (select community_deletion._table_label(r.schema_name, r.table_name) as label) l;
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_missing
    from unnest(v_registered) x where x <> all (v_live);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unknown
    from unnest(v_live) x where x <> all (v_registered);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unfenced
    from unnest(v_scoped) x where x <> all (v_fenced) and x = any (v_live);
  -- Any trigger executing a fence function (complete or not, enabled or not)
  -- on a table not registered as scoped means the registry is stale.
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_stray_fences
    from (select distinct community_deletion._table_label(n.nspname::text, c.relname::text) as x
            from pg_catalog.pg_trigger t
            join pg_catalog.pg_class c on c.oid = t.tgrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where not t.tgisinternal
             and t.tgfoid in (pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()'),
                              pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_write_early()'),
                              pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_truncate()'))) f
   where x <> all (v_scoped);
  -- The shape of every registered scoped and provenance table that exists.
  select coalesce(array_agg(format('%s: %s', s.label, array_to_string(s.problems, ', ')) order by s.label collate "C"), '{}')
    into v_shape
    from (select community_deletion._table_label(r.schema_name, r.table_name) as label,
                 array_remove(array[
                   case when community_deletion._inheritance_role(x.rel) is not null
                        then 'it is ' || community_deletion._inheritance_role(x.rel) end,
                   case when r.kind = 'scoped' and not exists (
                          select 1 from pg_catalog.pg_attribute a
                           where a.attrelid = x.rel and a.attname = 'community_id' and not a.attisdropped
                             and a.atttypid = 'pg_catalog.uuid'::pg_catalog.regtype and a.attnotnull)
                        then 'community_id is not uuid not null' end,
                   case when community_deletion._community_columns(x.rel) <> array[r.community_column]
                        then format('the columns holding a community are %s, registered: %s',
                                    coalesce(nullif(array_to_string(community_deletion._community_columns(x.rel), ', '), ''), 'none'),
                                    r.community_column) end,
                   case when r.kind = 'provenance' and exists (
                          select 1 from pg_catalog.pg_attribute a
                           where a.attrelid = x.rel and a.attname = r.community_column and a.attnotnull)
                        then r.community_column || ' is NOT NULL (the purge nulls it)' end,
                   case when not community_deletion._has_leading_index(x.rel, r.community_column)
                        then 'no valid index leads with ' || r.community_column end], null)
                 || case r.kind when 'scoped' then community_deletion._fence_trigger_problems(x.rel)
                                else community_deletion._provenance_guard_problems(x.rel, r.community_column) end
                 || community_deletion._foreign_key_index_problems(x.rel)
                 || community_deletion._invoker_code_problems(x.rel, case r.kind when 'scoped' then 'delete' else 'update' end)
                   as problems
            from community_deletion.registered_tables r
            cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
           where r.kind in ('scoped', 'provenance') and x.rel is not null) s
   where cardinality(s.problems) > 0;

  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('registered but missing: %s', array_to_string(v_missing, ', '));
  end if;
  if cardinality(v_unknown) > 0 then
    v_problems := v_problems || format('unregistered tables holding communities: %s', array_to_string(v_unknown, ', '));
  end if;
  if cardinality(v_unfenced) > 0 then
    v_problems := v_problems || format('scoped tables without the write fence: %s', array_to_string(v_unfenced, ', '));
  end if;
  if cardinality(v_stray_fences) > 0 then
    v_problems := v_problems || format('write fence on unregistered tables: %s', array_to_string(v_stray_fences, ', '));
  end if;
  if cardinality(v_shape) > 0 then
    v_problems := v_problems || format('registered tables out of shape: %s', array_to_string(v_shape, '; '));
  end if;
  if cardinality(v_communities_code) > 0 then
    v_problems := v_problems || format('code that would run as the engine owner when it updates public.communities: %s',
                                       array_to_string(v_communities_code, ', '));
  end if;
  if cardinality(v_problems) > 0 then
    raise exception 'community deletion catalog drift: %', array_to_string(v_problems, '; ')
      using errcode = 'DL7C1',
            detail = pg_catalog.jsonb_build_object(
              'missing', v_missing, 'unknown', v_unknown, 'unfenced', v_unfenced,
              'stray_fences', v_stray_fences, 'shape', v_shape, 'communities_code', v_communities_code)::text,
            hint = 'In a migration, register new tables (community_deletion.register_scoped_table / '
                   'community_deletion.register_unscoped_table) or drop them, restore missing fences and indexes, '
                   'drop triggers and rules that would run as the engine owner (or have a superuser own their functions); '
                   'then unblock the request (deletions unblock ID), or abort it.';
  end if;
end;
$$;
--! EndIncluded functions/validate_catalog.sql
--! Included functions/validate_serving_catalog.sql
-- Serving readiness (docs/design.md#catalog): the asymmetric
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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

  select coalesce(array_agg(l.label order by l.label collate "C"), '{}') into v_missing
    from community_deletion.registered_tables r
    cross join lateral (select community_deletion._table_label(r.schema_name, r.table_name) as label) l
   where r.kind = 'scoped' and l.label <> all (v_fenced);
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  set search_path = pg_catalog, pg_temp
  set row_security = off
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
  select 22
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
