-- The write fence (docs/design.md#write-fence), statement-level — its rules, in PL/pgSQL.
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
  set search_path = pg_catalog, pg_temp
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
