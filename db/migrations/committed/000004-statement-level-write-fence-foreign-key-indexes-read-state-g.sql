--! Previous: sha1:da6ac035d873f9d641a52731fe820116abf75444
--! Hash: sha1:0c51a6dd20f4f107e283a15368797d1187cafb66
--! Message: statement-level write fence, foreign-key indexes, read-state guard needs the engine role

--! Included tg_events__guard_read_state_delete.sql
-- Refuses hard deletion of read-state rows (kind 30078, d_tag "read-state:…")
-- unless the transaction opted in with
--   set_config('community_deletion.read_state_hard_delete', 'on', true)
-- AND the delete runs as the engine (community_deletion_owner, i.e. inside the
-- purge's security-definer function). Any client can set a setting, so the
-- setting alone would not stop an ordinary writer; the role cannot be forged.
-- The trigger's WHEN clause restricts it to exactly those rows.
create or replace function public.tg_events__guard_read_state_delete()
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
--! EndIncluded tg_events__guard_read_state_delete.sql

-- Issue 7 §3: the write fence becomes statement-level (transition tables), the
-- catalog's fence-detection rule follows, and every scoped table is re-fenced.
--! Included tg_scoped_table__enforce_write_fence.sql
-- The write fence (SPEC §5.2), statement-level: on every registered
-- community-scoped table deletion_register_scoped_table attaches three AFTER …
-- FOR EACH STATEMENT triggers executing this function, one per event, each with
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
create or replace function public.tg_scoped_table__enforce_write_fence()
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
-- The write fence's early refusal (SPEC §5.2): BEFORE … FOR EACH ROW on every
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
create or replace function public.tg_scoped_table__refuse_write_early()
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
  -- early refusal (tg_scoped_table__refuse_write_early.sql): BEFORE … FOR EACH
  -- ROW, skipped by its WHEN clause once the statement checked the
  -- community — it only makes a refusal fail before the row's constraints.
  -- Dropping first replaces an older form (the row-level fence) in place.
  execute format('drop trigger if exists _010_community_write_fence on public.%I', v_name);
  execute format('drop trigger if exists _010_community_write_fence_update on public.%I', v_name);
  execute format('drop trigger if exists _010_community_write_fence_delete on public.%I', v_name);
  execute format('drop trigger if exists _010_community_write_fence_early on public.%I', v_name);
  execute format('drop trigger if exists _010_community_write_fence_early_delete on public.%I', v_name);
  execute format('create trigger _010_community_write_fence after insert on public.%I '
                 'referencing new table as fence_new_rows '
                 'for each statement execute function public.tg_scoped_table__enforce_write_fence()', v_name);
  execute format('create trigger _010_community_write_fence_update after update on public.%I '
                 'referencing old table as fence_old_rows new table as fence_new_rows '
                 'for each statement execute function public.tg_scoped_table__enforce_write_fence()', v_name);
  execute format('create trigger _010_community_write_fence_delete after delete on public.%I '
                 'referencing old table as fence_old_rows '
                 'for each statement execute function public.tg_scoped_table__enforce_write_fence()', v_name);
  execute format('create trigger _010_community_write_fence_early before insert or update on public.%I '
                 'for each row when (pg_catalog.current_setting(''community_deletion.fence_checked'', true) '
                 'is distinct from new.community_id::text) '
                 'execute function public.tg_scoped_table__refuse_write_early()', v_name);
  execute format('create trigger _010_community_write_fence_early_delete before delete on public.%I '
                 'for each row when (pg_catalog.current_setting(''community_deletion.fence_checked'', true) '
                 'is distinct from old.community_id::text) '
                 'execute function public.tg_scoped_table__refuse_write_early()', v_name);
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
--! Included catalog_validate.sql
-- Catalog validation (SPEC §5.5). Written first by the lifecycle workstream,
-- owned by the fence workstream. Names are part of the contract:
-- deletion_validate_catalog() (void, raises catalog_drift DL7C1),
-- _deletion_live_community_tables() and _deletion_live_fenced_tables() (used by
-- _deletion_schema_manifest for the frozen inventory).
--
-- Detection rule for "fenced": the table (public, not a partition) carries, for
-- EACH of INSERT, UPDATE and DELETE, a trigger that is not internal, is enabled
-- (origin or always), is STATEMENT level, AFTER (neither BEFORE nor INSTEAD
-- OF), has no WHEN condition and no column list, executes exactly
-- public.tg_scoped_table__enforce_write_fence(), and names the transition
-- tables that function reads: INSERT → NEW TABLE fence_new_rows; UPDATE → OLD
-- TABLE fence_old_rows and NEW TABLE fence_new_rows; DELETE → OLD TABLE
-- fence_old_rows. That is precisely what deletion_register_scoped_table attaches
-- (_010_community_write_fence, _010_community_write_fence_update,
-- _010_community_write_fence_delete). A disabled trigger, a row-level or BEFORE
-- one, one without its transition tables, one with a WHEN clause, or a set
-- missing an event is not a fence. The early-refusal row triggers
-- (_010_community_write_fence_early[_delete]) only order error codes; they are
-- not part of the rule (dropping them leaves every write decided exactly as
-- before), but a fence trigger of either kind on a table that is not a
-- registered scoped table is drift.

-- Sorted names of the live public tables (not partitions) that have a
-- community_id column: the set the registry must equal.
create or replace function public._deletion_live_community_tables()
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

-- Sorted names of the public tables carrying the write fence (rule above).
create or replace function public._deletion_live_fenced_tables()
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
             and t.tgfoid = pg_catalog.to_regprocedure('public.tg_scoped_table__enforce_write_fence()')
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
-- _deletion_lock_schema_destruction_shared(), so the validated surface cannot
-- change before they commit.
create or replace function public.deletion_validate_catalog()
  returns void
  language plpgsql
  stable
  security definer
  set search_path = ''
as $$
declare
  v_live text[] := public._deletion_live_community_tables();
  v_fenced text[] := public._deletion_live_fenced_tables();
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
    from public.community_deletion_tables r;
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
             and t.tgfoid in (pg_catalog.to_regprocedure('public.tg_scoped_table__enforce_write_fence()'),
                              pg_catalog.to_regprocedure('public.tg_scoped_table__refuse_write_early()'))) f
   where x <> all (v_scoped);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_bad_column
    from unnest(v_scoped) x
   where x = any (v_live) and not exists (
     select 1 from pg_catalog.pg_attribute a
      where a.attrelid = pg_catalog.to_regclass(format('public.%I', x)) and a.attname = 'community_id'
        and not a.attisdropped and a.atttypid = 'uuid'::pg_catalog.regtype and a.attnotnull);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unindexed
    from unnest(v_scoped) x
   where x = any (v_live) and not public._deletion_has_community_index(pg_catalog.to_regclass(format('public.%I', x)));

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
            hint = 'In a migration, register new tables (deletion_register_scoped_table / deletion_register_unscoped_table) or drop them, restore missing fences and indexes; then unblock the request (or abort it).';
  end if;
end;
$$;
--! EndIncluded catalog_validate.sql
--! Included fence_reattach.sql
-- Re-attaches the write fence on every registered scoped table in its
-- statement-level form (see tg_scoped_table__enforce_write_fence.sql):
-- deletion_register_scoped_table drops the old row-level trigger
-- _010_community_write_fence and creates the three statement-level triggers.
-- Runs inside the migration's transaction, so no writer ever sees a table
-- between the two forms. Re-running it is harmless.
select public.deletion_register_scoped_table(pg_catalog.to_regclass(format('public.%I', r.table_name)), r.purge_order)
  from public.community_deletion_tables r
 where r.kind = 'scoped'
 order by r.purge_order;
--! EndIncluded fence_reattach.sql

-- Issue 7 §3: index the reference schema's foreign keys (the purge was quadratic).
--! Included reference_fk_indexes.sql
-- Indexes on the reference schema's foreign keys between community-scoped
-- tables (SPEC §3.1). PostgreSQL does not index the referencing side of a
-- foreign key; without these, deleting a parent row makes its ON DELETE NO
-- ACTION check scan every row of the community in the child table through the
-- community_id index. The purge deletes the children first, but in the same
-- transaction, so those child rows are only dead to itself: their index entries
-- cannot be marked dead and every check walks all of them again. The purge was
-- therefore quadratic in the tenant (measured: 100,000 rows → 8.5 s, of which
-- 6.6 s deleting 25,000 events against 13,000 dead delivery_log /
-- push_match_queue / moderation_reports rows; docs/benchmarks.md). With an
-- index on each foreign key's columns every check is a point lookup.
-- A host schema adopting the engine should index its foreign keys the same way.
create index if not exists git_repo_names_owner_idx on public.git_repo_names (community_id, owner_pubkey);
create index if not exists events_channel_idx on public.events (community_id, channel_id);
create index if not exists delivery_log_event_idx on public.delivery_log (community_id, event_id);
create index if not exists relay_invites_creator_idx on public.relay_invites (community_id, created_by);
create index if not exists push_leases_user_idx on public.push_leases (community_id, pubkey);
create index if not exists push_match_queue_event_idx on public.push_match_queue (community_id, event_id);
create index if not exists workflows_channel_idx on public.workflows (community_id, channel_id);
create index if not exists moderation_actions_target_idx on public.moderation_actions (community_id, target_pubkey);
create index if not exists thread_metadata_channel_idx on public.thread_metadata (community_id, channel_id);
create index if not exists channel_members_user_idx on public.channel_members (community_id, pubkey);
create index if not exists api_tokens_user_idx on public.api_tokens (community_id, pubkey);
create index if not exists subscriptions_user_idx on public.subscriptions (community_id, pubkey);
create index if not exists moderation_reports_event_idx on public.moderation_reports (community_id, event_id);
create index if not exists push_wake_outbox_user_idx on public.push_wake_outbox (community_id, pubkey);
create index if not exists workflow_runs_workflow_idx on public.workflow_runs (community_id, workflow_id);
create index if not exists scheduled_workflow_fires_workflow_idx on public.scheduled_workflow_fires (community_id, workflow_id);
--! EndIncluded reference_fk_indexes.sql
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
      'deletion_record_taxonomy_sweep', 'deletion_latest_taxonomy_sweep'),
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
      'deletion_serving_lease_stats', 'deletion_serving_lease_reap'),
    'community_deletion_app', pg_catalog.jsonb_build_array(
      'deletion_serving_lease_acquire', 'deletion_serving_lease_renew', 'deletion_serving_lease_verify',
      'deletion_serving_lease_release', 'deletion_serving_lease_guard', 'deletion_validate_serving_catalog'),
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
