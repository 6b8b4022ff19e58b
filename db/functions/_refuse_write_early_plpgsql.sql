-- The write fence's early refusal (docs/design.md#write-fence), in PL/pgSQL. The triggers
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
  set search_path = pg_catalog, pg_temp
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
