-- The write fence (SPEC §5.2): BEFORE INSERT/UPDATE/DELETE FOR EACH ROW on every
-- registered community-scoped table (attached by deletion_register_scoped_table).
-- Per row (kept small — it is on every tenant write): READ COMMITTED check, the
-- community lock SHARED, one primary-key lookup of the community; an active
-- community returns right there (measured ~9 µs per row on a narrow bulk
-- INSERT, mostly the lock and the lookup). Anything else goes through
-- community_write_allowed (engine at fenced, admitted serving lease at
-- quiescing) and otherwise raises 55000 "community write …". The writing role
-- needs SELECT on communities (the application role has it).
-- An UPDATE that moves a row between communities must be allowed for both.
-- A NULL community_id passes through to the NOT NULL constraint.
create or replace function public.tg_scoped_table__enforce_write_fence()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  v_community uuid;
  v_state text;
  v_pass integer := 1;
begin
  if pg_catalog.current_setting('transaction_isolation') <> 'read committed' then
    perform public._deletion_require_read_committed(tg_table_name);
  end if;
  if tg_op = 'DELETE' then
    v_community := old.community_id;
  else
    v_community := new.community_id;
  end if;
  loop
    if v_community is not null then
      -- = public._deletion_community_lock_key(v_community), inlined: the function's
      -- SET search_path makes every call several microseconds; equality is
      -- pinned by db/tests/write_fence/fence_uses_the_community_lock_key.test.sql.
      perform pg_catalog.pg_advisory_xact_lock_shared(
        ('x' || pg_catalog.left(pg_catalog.replace(v_community::text, '-', ''), 16))::bit(64)::bigint
        # 7165065848772979813::bigint);
      select c.deletion_state into v_state from public.communities c where c.id = v_community;
      if v_state is distinct from 'active' and not public.community_write_allowed(v_community) then
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
