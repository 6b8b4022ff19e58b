-- Refuses (catalog_drift, DL7C1), right before the engine reads registered
-- tables p_rels (plan's and the frozen inventory's counts, the inventory
-- difference, the absence proof, the TRUNCATE guard), when code another
-- role attached to one of them would run as the engine owner while
-- PostgreSQL plans a statement on it: an index expression or predicate or an
-- extended-statistics expression calling an untrusted function (the planner
-- folds an immutable function with constant arguments — and whatever it
-- calls — when it loads them), a constraint of a domain a column is built
-- from, row-level security (_invoker_code_problems, event 'select').
-- Each table is locked first, in oid order, in p_mode: 'share update
-- exclusive' where the caller does not hold the shared schema-destruction
-- lock — it conflicts with CREATE INDEX (CONCURRENTLY too), CREATE
-- STATISTICS and the ALTER TABLE forms that add such code, never with reads
-- or writes, so what is checked here is what the caller's statements plan
-- until its transaction ends; 'access share' where the caller holds that
-- lock (every DDL waits for it already). NULLs in p_rels are skipped.
create or replace function community_deletion._refuse_planner_code(p_rels pg_catalog.regclass[], p_mode text)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_rel pg_catalog.regclass;
  v_rels pg_catalog.regclass[];
  v_problems jsonb;
begin
  if p_mode is null or p_mode not in ('share update exclusive', 'access share') then
    raise exception 'community deletion: _refuse_planner_code lock mode must be share update exclusive or access share, not %', p_mode
      using errcode = 'DL1I1';
  end if;
  select pg_catalog.array_agg(x.rel order by x.rel::pg_catalog.oid) into v_rels
    from (select distinct r.rel from pg_catalog.unnest(p_rels) r(rel) where r.rel is not null) x;
  if v_rels is null then
    return;
  end if;
  foreach v_rel in array v_rels loop
    execute pg_catalog.format('lock table %s in %s mode', v_rel, p_mode);
  end loop;
  select pg_catalog.jsonb_object_agg(x.rel::text, x.problems) into v_problems
    from community_deletion._invoker_code_problems_of(v_rels, 'select') x;
  if v_problems is not null then
    raise exception 'community deletion catalog drift: code another role attached would run as the engine owner when the engine reads %',
      (select pg_catalog.string_agg(pg_catalog.format('%s (%s)', e.key,
                                      (select pg_catalog.string_agg(v, ', ') from pg_catalog.jsonb_array_elements_text(e.value) v)),
                                    '; ' order by e.key)
         from pg_catalog.jsonb_each(v_problems) e)
      using errcode = 'DL7C1',
            detail = pg_catalog.jsonb_build_object('event', 'select', 'code', v_problems)::text,
            hint = 'Drop the index or statistics object, or have a superuser own the function it calls '
                   '(a SECURITY DEFINER function its owner controls is not enough); then retry.';
  end if;
end;
$$;
