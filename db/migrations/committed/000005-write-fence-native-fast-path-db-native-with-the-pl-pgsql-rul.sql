--! Previous: sha1:0c51a6dd20f4f107e283a15368797d1187cafb66
--! Hash: sha1:992ac67fe5d5634910775e559761db19c6ce18be
--! Message: Write fence: native fast path (db/native) with the PL/pgSQL rules as fallback and delegate

-- The write fence's native fast path (issue #7): the PL/pgSQL rules move to
-- _deletion_write_fence_plpgsql / _deletion_refuse_write_early_plpgsql, and the
-- trigger functions become the native library when it is installed, or
-- copies of those functions when it is not (write_fence_install.sql); with
-- the native path the early row triggers carry no WHEN clause.
--! Included tg_scoped_table__enforce_write_fence.sql
-- The write fence (SPEC §5.2), statement-level — its rules, in PL/pgSQL.
-- The triggers execute public.tg_scoped_table__enforce_write_fence(), which
-- write_fence_install.sql makes either the native fast path (library
-- community_deletion_fence, db/native: it decides the common case — one
-- community, active — itself and hands every other case to this function with
-- the same trigger context) or a PL/pgSQL copy of this function.
-- On every registered
-- community-scoped table deletion_register_scoped_table attaches three AFTER …
-- FOR EACH STATEMENT triggers executing it, one per event, each with
-- its transition tables (PostgreSQL allows transition tables on single-event
-- triggers only):
--   _010_community_write_fence         AFTER INSERT  REFERENCING NEW TABLE AS fence_new_rows
--   _010_community_write_fence_update  AFTER UPDATE  REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows
--   _010_community_write_fence_delete  AFTER DELETE  REFERENCING OLD TABLE AS fence_old_rows
-- (exactly what deletion_validate_catalog detects as "fenced"). These decide.
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
create or replace function public._deletion_write_fence_plpgsql()
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
    -- 2. The common case. The lock (= public._deletion_community_lock_key,
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
    perform public._deletion_require_read_committed(tg_table_name);
  else
    -- Several communities: every lock, in key order, then one lookup.
    if tg_level <> 'STATEMENT' then
      raise exception 'the community write fence on %.% must be attached by deletion_register_scoped_table (AFTER … FOR EACH STATEMENT with transition tables), not % %',
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
    raise exception 'the community write fence on %.% must be attached by deletion_register_scoped_table (AFTER … FOR EACH STATEMENT with transition tables), not % %',
      tg_table_schema, tg_table_name, tg_when, tg_level
      using errcode = 'DL7C1';
  end if;
  foreach v_id in array v_ids loop
    if not public.community_write_allowed(v_id) then
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
--! EndIncluded tg_scoped_table__enforce_write_fence.sql
--! Included tg_scoped_table__refuse_write_early.sql
-- The write fence's early refusal (SPEC §5.2), in PL/pgSQL. The triggers
-- execute public.tg_scoped_table__refuse_write_early(), which
-- write_fence_install.sql makes either the native fast path (it passes rows
-- of an active community itself, looked up once per statement, and hands
-- every other row to this function) or a PL/pgSQL copy of this function.
-- BEFORE … FOR EACH ROW on every
-- registered scoped table (attached by deletion_register_scoped_table next to
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
create or replace function public._deletion_refuse_write_early_plpgsql()
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
    perform public._deletion_require_read_committed(tg_table_name);
  end if;
  if tg_op = 'DELETE' then
    v_community := old.community_id;
  else
    v_community := new.community_id;
  end if;
  if tg_level <> 'ROW' or tg_when <> 'BEFORE' then
    raise exception 'the early community write check on %.% must be attached by deletion_register_scoped_table (BEFORE … FOR EACH ROW), not % %',
      tg_table_schema, tg_table_name, tg_when, tg_level
      using errcode = 'DL7C1';
  end if;
  loop
    if v_community is not null then
      select c.deletion_state into v_state from public.communities c where c.id = v_community;
      if v_state is distinct from 'active' and not public.community_write_allowed(v_community) then
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
--! EndIncluded tg_scoped_table__refuse_write_early.sql
--! Included register_scoped_table.sql
-- Registering a tenant table is a deliberate migration step (SPEC §3.2, §5.5).

-- True when p_table has a valid, non-partial index whose first column is
-- community_id (the purge and the absence proof then never scan the fleet).
create or replace function public._deletion_has_community_index(p_table regclass)
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

-- Attaches (or re-attaches) the early-refusal row triggers of the write fence
-- on public.<p_table>: _010_community_write_fence_early (BEFORE INSERT OR
-- UPDATE) and _010_community_write_fence_early_delete (BEFORE DELETE), FOR EACH
-- ROW, executing tg_scoped_table__refuse_write_early(). With the PL/pgSQL
-- fence they carry a WHEN clause that skips the rows of a community the
-- statement already checked (the hint community_deletion.fence_checked, set by
-- the PL/pgSQL early check; it authorises nothing); the native fast path keeps
-- that list in backend memory instead, so its triggers have no WHEN clause
-- (evaluating one costs more per statement than the native check itself).
-- Called by deletion_register_scoped_table and _deletion_install_write_fence.
create or replace function public._deletion_attach_early_fence(p_table text)
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_native boolean := public.deletion_write_fence_implementation() = 'native';
begin
  execute format('drop trigger if exists _010_community_write_fence_early on public.%I', p_table);
  execute format('drop trigger if exists _010_community_write_fence_early_delete on public.%I', p_table);
  execute format('create trigger _010_community_write_fence_early before insert or update on public.%I '
                 'for each row %s execute function public.tg_scoped_table__refuse_write_early()', p_table,
                 case when v_native then ''
                      else 'when (pg_catalog.current_setting(''community_deletion.fence_checked'', true) '
                           'is distinct from new.community_id::text)' end);
  execute format('create trigger _010_community_write_fence_early_delete before delete on public.%I '
                 'for each row %s execute function public.tg_scoped_table__refuse_write_early()', p_table,
                 case when v_native then ''
                      else 'when (pg_catalog.current_setting(''community_deletion.fence_checked'', true) '
                           'is distinct from old.community_id::text)' end);
end;
$$;

-- Registers a public table as community-scoped with its purge position and
-- attaches the write fence (triggers _010_community_write_fence (INSERT),
-- _010_community_write_fence_update, _010_community_write_fence_delete: AFTER …
-- FOR EACH STATEMENT with transition tables, function
-- tg_scoped_table__enforce_write_fence — exactly what deletion_validate_catalog
-- detects — plus the early refusal _010_community_write_fence_early[_delete],
-- BEFORE … FOR EACH ROW, function tg_scoped_table__refuse_write_early).
-- Refuses (catalog_drift, DL7C1)
-- a table outside schema public, without community_id uuid NOT NULL, without an
-- index leading with community_id, or registered with another kind. Re-running
-- it is harmless (the purge order may be changed). Migrations call it; it runs
-- with the migrating role's rights.
create or replace function public.deletion_register_scoped_table(p_table regclass, p_purge_order integer)
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_schema text;
  v_name text;
  v_kind text;
begin
  if p_table is null or p_purge_order is null or p_purge_order <= 0 then
    raise exception 'deletion_register_scoped_table needs a table and a positive purge order'
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
  if not public._deletion_has_community_index(p_table) then
    raise exception 'cannot register % as community-scoped: no valid index leads with community_id', p_table
      using errcode = 'DL7C1',
            hint = 'Create an index (or primary key) whose first column is community_id first.';
  end if;
  select r.kind into v_kind from public.community_deletion_tables r where r.table_name = v_name;
  if v_kind is not null and v_kind <> 'scoped' then
    raise exception 'cannot register % as community-scoped: it is registered as %', p_table, v_kind
      using errcode = 'DL7C1';
  end if;
  insert into public.community_deletion_tables (table_name, kind, purge_order)
  values (v_name, 'scoped', p_purge_order)
  on conflict (table_name) do update set purge_order = excluded.purge_order
    where public.community_deletion_tables.purge_order is distinct from excluded.purge_order;
  -- The fence (tg_scoped_table__enforce_write_fence.sql): one AFTER … FOR EACH
  -- STATEMENT trigger per event with its transition tables (PostgreSQL allows
  -- transition tables only on single-event triggers) — these decide; and the
  -- early refusal (tg_scoped_table__refuse_write_early.sql,
  -- _deletion_attach_early_fence): BEFORE … FOR EACH ROW — it only makes a
  -- refusal fail before the row's constraints.
  -- Dropping first replaces an older form (the row-level fence) in place.
  execute format('drop trigger if exists _010_community_write_fence on public.%I', v_name);
  execute format('drop trigger if exists _010_community_write_fence_update on public.%I', v_name);
  execute format('drop trigger if exists _010_community_write_fence_delete on public.%I', v_name);
  execute format('create trigger _010_community_write_fence after insert on public.%I '
                 'referencing new table as fence_new_rows '
                 'for each statement execute function public.tg_scoped_table__enforce_write_fence()', v_name);
  execute format('create trigger _010_community_write_fence_update after update on public.%I '
                 'referencing old table as fence_old_rows new table as fence_new_rows '
                 'for each statement execute function public.tg_scoped_table__enforce_write_fence()', v_name);
  execute format('create trigger _010_community_write_fence_delete after delete on public.%I '
                 'referencing old table as fence_old_rows '
                 'for each statement execute function public.tg_scoped_table__enforce_write_fence()', v_name);
  perform public._deletion_attach_early_fence(v_name);
end;
$$;

-- Registers a public table that has a community_id column but is not purged as
-- community-scoped: 'provenance' (operator-global rows; the purge nulls their
-- community_id — needs a nullable community_id and an index leading with it) or
-- 'control_plane' (deletion evidence and engine bookkeeping, kept). Such tables
-- carry no write fence. Refuses (DL7C1) tables registered with another kind.
create or replace function public.deletion_register_unscoped_table(p_table regclass, p_kind text, p_note text)
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_schema text;
  v_name text;
  v_kind text;
begin
  if p_table is null or p_kind is null or p_kind not in ('provenance', 'control_plane')
     or p_note is null or pg_catalog.btrim(p_note) = '' then
    raise exception 'deletion_register_unscoped_table needs a table, kind provenance|control_plane and a note'
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
       or not public._deletion_has_community_index(p_table)) then
    raise exception 'cannot register % as provenance: it needs a nullable community_id and an index leading with it', p_table
      using errcode = 'DL7C1';
  end if;
  select r.kind into v_kind from public.community_deletion_tables r where r.table_name = v_name;
  if v_kind is not null and v_kind <> p_kind then
    raise exception 'cannot register % as %: it is registered as %', p_table, p_kind, v_kind
      using errcode = 'DL7C1';
  end if;
  insert into public.community_deletion_tables (table_name, kind, purge_order, note)
  values (v_name, p_kind, null, p_note)
  on conflict (table_name) do nothing;
end;
$$;
--! EndIncluded register_scoped_table.sql
--! Included write_fence_install.sql
-- Which implementation the write-fence triggers execute (docs/fence.md,
-- "Native fast path").
--
-- The triggers attached by deletion_register_scoped_table always execute
-- public.tg_scoped_table__enforce_write_fence() (AFTER … FOR EACH STATEMENT)
-- and public.tg_scoped_table__refuse_write_early() (BEFORE … FOR EACH ROW).
-- Those two functions are either
--   native:  LANGUAGE c from the library community_deletion_fence (db/native,
--            installed into the server's $libdir by `make -C db/native
--            install`). It decides only the common case itself — the
--            statement touched one community and it is active — and hands
--            every other case, with the same trigger context, to
--            _deletion_write_fence_plpgsql / _deletion_refuse_write_early_plpgsql;
--   plpgsql: copies of those two PL/pgSQL functions.
-- The rules are the PL/pgSQL ones either way; the native path only makes a
-- single-row write to an active community cheaper (docs/benchmarks.md).
--
-- _deletion_install_write_fence(p_native, p_library) (re)defines the two
-- functions — natively when p_native and the library (default
-- $libdir/community_deletion_fence) can be loaded by a role allowed to
-- create C functions (a superuser), otherwise as PL/pgSQL with a WARNING
-- saying why — and returns what it installed. The migrations call it; run it
-- again as a superuser after installing the library on a server that lacked
-- it. The statement-level triggers reference the functions by oid, which
-- CREATE OR REPLACE keeps; the early row triggers of every registered scoped
-- table are re-attached in the implementation's form (_deletion_attach_early_fence:
-- a WHEN clause for PL/pgSQL, none for native), in the caller's transaction.
create or replace function public._deletion_reattach_early_fences()
  returns void
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_table text;
begin
  for v_table in
    select r.table_name from public.community_deletion_tables r
     where r.kind = 'scoped' and pg_catalog.to_regclass(format('public.%I', r.table_name)) is not null
     order by r.purge_order
  loop
    perform public._deletion_attach_early_fence(v_table);
  end loop;
end;
$$;

create or replace function public._deletion_install_write_fence(
  p_native boolean default true,
  p_library text default '$libdir/community_deletion_fence')
  returns text
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_body text;
  v_why text;
begin
  if p_native then
    begin
      execute pg_catalog.format(
        'create or replace function public.tg_scoped_table__enforce_write_fence() returns trigger '
        'language c volatile as %L, %L', p_library, 'cd_fence_statement');
      execute pg_catalog.format(
        'create or replace function public.tg_scoped_table__refuse_write_early() returns trigger '
        'language c volatile as %L, %L', p_library, 'cd_fence_early');
      execute pg_catalog.format(
        'create or replace function public._deletion_native_community_lock_key(uuid) returns bigint '
        'language c immutable strict parallel safe as %L, %L', p_library, 'cd_community_lock_key');
      -- As grants.sql leaves every engine function: the owner's, no PUBLIC.
      alter function public._deletion_native_community_lock_key(uuid) owner to community_deletion_owner;
      revoke all on function public._deletion_native_community_lock_key(uuid) from public;
      perform public._deletion_reattach_early_fences();
      return 'native';
    exception when undefined_file or insufficient_privilege or undefined_function then
      v_why := sqlerrm;
    end;
    raise warning 'community write fence: the native library is not usable (%); installing the PL/pgSQL fence', v_why
      using hint = 'Build and install db/native (make -C db/native install, needs the server''s development headers), '
                   'then run select public._deletion_install_write_fence() as a superuser.';
  end if;

  select p.prosrc into strict v_body from pg_catalog.pg_proc p
   where p.oid = 'public._deletion_write_fence_plpgsql()'::pg_catalog.regprocedure;
  execute pg_catalog.format(
    'create or replace function public.tg_scoped_table__enforce_write_fence() returns trigger '
    'language plpgsql volatile set search_path = %L as %L', '', v_body);
  select p.prosrc into strict v_body from pg_catalog.pg_proc p
   where p.oid = 'public._deletion_refuse_write_early_plpgsql()'::pg_catalog.regprocedure;
  execute pg_catalog.format(
    'create or replace function public.tg_scoped_table__refuse_write_early() returns trigger '
    'language plpgsql volatile set search_path = %L as %L', '', v_body);
  drop function if exists public._deletion_native_community_lock_key(uuid);
  perform public._deletion_reattach_early_fences();
  return 'plpgsql';
end;
$$;

-- 'native' or 'plpgsql': what the write-fence triggers execute now (both
-- trigger functions are always installed together).
create or replace function public.deletion_write_fence_implementation()
  returns text
  language sql
  stable
  set search_path = ''
as $$
  select case l.lanname when 'c' then 'native' else l.lanname::text end
    from pg_catalog.pg_proc p join pg_catalog.pg_language l on l.oid = p.prolang
   where p.oid = 'public.tg_scoped_table__enforce_write_fence()'::pg_catalog.regprocedure
$$;
--! EndIncluded write_fence_install.sql
select public._deletion_install_write_fence();
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
