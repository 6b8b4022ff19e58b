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
