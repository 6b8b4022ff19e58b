-- _invoker_code_problems for many relations at once (validate_catalog checks
-- every registered table in one query): one row per relation of p_rels with
-- code another role attached that would run as the engine owner when one of
-- the engine's own statements (p_event 'delete' or 'update') changes it,
-- the problems in words, sorted; relations without any have no row. What is
-- reported, and why, is _invoker_code_problems'.
-- PL/pgSQL, generic plan: planned once a session; no JIT (docs/design.md, The
-- catalog check's cost).
create or replace function community_deletion._invoker_code_problems_of(p_rels pg_catalog.regclass[], p_event text)
  returns table (rel pg_catalog.regclass, problems text[])
  language plpgsql
  stable
  rows 100
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
  set jit = off
as $$
begin
  return query
  with recursive rels as (
    select distinct x.rel::pg_catalog.oid as rel from pg_catalog.unnest(p_rels) x(rel)
  ),
  domains as (
    -- The domains of each relation's columns (an array column's element type
    -- too), and the domains those are based on.
    select a.attrelid as rel, t.oid, t.typbasetype
      from pg_catalog.pg_attribute a
      join pg_catalog.pg_type ct on ct.oid = a.atttypid
      join pg_catalog.pg_type t on t.oid in (ct.oid, ct.typelem) and t.typtype = 'd'
     where a.attrelid in (select r.rel from rels r) and a.attnum > 0 and not a.attisdropped
    union
    select dm.rel, t.oid, t.typbasetype
      from domains dm
      join pg_catalog.pg_type t on t.oid = dm.typbasetype and t.typtype = 'd'
  ),
  -- The objects whose expressions run with the statement, each with its
  -- relation: for every event, the indexes and extended statistics objects
  -- (the planner folds their expressions and predicates when it plans any
  -- statement on the table) and the constraints of the columns' domains
  -- (any value the engine casts to a column's type runs them); for
  -- 'update' also the CHECK constraints and generated columns.
  objects as (
    select i.indrelid as rel, 'pg_catalog.pg_class'::pg_catalog.regclass::oid as classid, i.indexrelid as objid
      from pg_catalog.pg_index i
     where i.indrelid in (select r.rel from rels r)
    union all
    select s.stxrelid, 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass::oid, s.oid
      from pg_catalog.pg_statistic_ext s
     where s.stxrelid in (select r.rel from rels r)
    union all
    select c.conrelid, 'pg_catalog.pg_constraint'::pg_catalog.regclass::oid, c.oid
      from pg_catalog.pg_constraint c
     where p_event = 'update' and c.conrelid in (select r.rel from rels r) and c.contype = 'c'
    union all
    select ad.adrelid, 'pg_catalog.pg_attrdef'::pg_catalog.regclass::oid, ad.oid
      from pg_catalog.pg_attrdef ad
      join pg_catalog.pg_attribute a on a.attrelid = ad.adrelid and a.attnum = ad.adnum
     where p_event = 'update' and ad.adrelid in (select r.rel from rels r) and a.attgenerated <> ''
    union all
    select dm.rel, 'pg_catalog.pg_constraint'::pg_catalog.regclass::oid, c.oid
      from domains dm
      join pg_catalog.pg_constraint c on c.contypid = dm.oid
  ),
  code as (
    select t.tgrelid as rel,
           pg_catalog.format('trigger %s runs %s', pg_catalog.quote_ident(t.tgname), t.tgfoid::pg_catalog.regprocedure) as what,
           t.tgfoid as fn, false as always
      from pg_catalog.pg_trigger t
     where t.tgrelid in (select r.rel from rels r) and not t.tgisinternal
       and (t.tgtype::integer & case p_event when 'delete' then 8 when 'update' then 16 else 0 end) <> 0
    union all
    select r.ev_class, pg_catalog.format('rule %s on %s', pg_catalog.quote_ident(r.rulename), pg_catalog.upper(p_event)), null, true
      from pg_catalog.pg_rewrite r
     where r.ev_class in (select x.rel from rels x) and r.rulename <> '_RETURN'
       and r.ev_type = case p_event when 'delete' then '4' when 'update' then '2' end
    union all
    select s.rel::pg_catalog.oid, s.problem, null, true
      from community_deletion._row_security_problem_of(p_rels) s
     where s.problem is not null
    union all
    select o.rel,
           pg_catalog.format('%s calls %s', pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid),
                             f.fn::pg_catalog.regprocedure), f.fn, false
      from (select distinct ob.rel, ob.classid, ob.objid from objects ob) o
      join pg_catalog.pg_depend d on d.classid = o.classid and d.objid = o.objid
      cross join lateral (select case when d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass::oid then d.refobjid
                                      else (select op.oprcode::oid from pg_catalog.pg_operator op where op.oid = d.refobjid) end as fn) f
     where d.refclassid in ('pg_catalog.pg_proc'::pg_catalog.regclass::oid, 'pg_catalog.pg_operator'::pg_catalog.regclass::oid)
  )
  select c.rel::pg_catalog.regclass, pg_catalog.array_agg(distinct c.what)
    from code c
    -- Each function's owner looked up by its oid, row by row (a join would
    -- hash all of pg_proc for a handful of lookups).
    cross join lateral (select (select pr.proowner from pg_catalog.pg_proc pr where pr.oid = c.fn) as owner) p
   where c.always
      or (p.owner is not null
          and p.owner <> (select r.oid from pg_catalog.pg_roles r where r.rolname = 'community_deletion_owner')
          and not (select r.rolsuper from pg_catalog.pg_roles r where r.oid = p.owner))
   group by c.rel;
end;
$$;
