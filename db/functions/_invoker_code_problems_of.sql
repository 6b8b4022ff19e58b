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
  -- The tables one of the engine's statements on a relation changes: the
  -- relation itself (p_event), and every table a foreign key with an action
  -- reaches from it, at any depth — ON DELETE CASCADE deletes the
  -- referencing rows (a 'delete' there), SET NULL / SET DEFAULT update them
  -- (an 'update'), and for an 'update' of the referenced table the ON UPDATE
  -- actions likewise. PostgreSQL runs the action's own statement as the
  -- referencing table's owner, but the AFTER triggers it queues fire when the
  -- engine's statement ends, as the engine owner. "via" names the foreign key
  -- (it depends on the key alone, so a cycle of keys ends).
  reach as (
    select r.rel as root, r.rel, p_event as event, null::text as via
      from rels r
    union
    select re.root, k.conrelid,
           case when k.action = 'c' and re.event = 'delete' then 'delete' else 'update' end,
           pg_catalog.format('%s through foreign key %s (ON %s %s)', k.conrelid::pg_catalog.regclass,
                             pg_catalog.quote_ident(k.conname), pg_catalog.upper(re.event),
                             case k.action when 'c' then 'CASCADE' when 'n' then 'SET NULL' else 'SET DEFAULT' end) collate "default"
      from reach re
      cross join lateral (
        select c.conrelid, c.conname,
               case re.event when 'delete' then c.confdeltype when 'update' then c.confupdtype end as action
          from pg_catalog.pg_constraint c
         where c.contype = 'f' and c.confrelid = re.rel) k
     where k.action in ('c', 'n', 'd')
  ),
  -- Every type a column of a reached table is built from, at any depth: the
  -- column's type, an array's element type, a domain's base type, a composite
  -- type's attributes' types, a range's subtype and a multirange's range.
  types as (
    select distinct re.root, re.rel, re.via, a.atttypid as oid
      from reach re
      join pg_catalog.pg_attribute a on a.attrelid = re.rel and a.attnum > 0 and not a.attisdropped
    union
    select ty.root, ty.rel, ty.via, s.sub
      from types ty
      join pg_catalog.pg_type t on t.oid = ty.oid
      cross join lateral (
        select t.typelem where t.typelem <> 0
        union all
        select t.typbasetype where t.typbasetype <> 0
        union all
        select r.rngsubtype from pg_catalog.pg_range r where r.rngtypid = t.oid
        union all
        select r.rngtypid from pg_catalog.pg_range r where r.rngmultitypid = t.oid
        union all
        select a.atttypid from pg_catalog.pg_attribute a
         where t.typtype = 'c' and a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped) s(sub)
  ),
  -- The objects whose expressions run with the statement, each with its
  -- relation: for every event, the indexes and extended statistics objects
  -- (the planner folds their expressions and predicates when it plans any
  -- statement on the table) and the constraints of every domain a column is
  -- built from (any value the engine casts to a column's type runs them);
  -- for 'update' also the CHECK constraints and generated columns.
  objects as (
    select re.root, re.via, 'pg_catalog.pg_class'::pg_catalog.regclass::oid as classid, i.indexrelid as objid
      from reach re
      join pg_catalog.pg_index i on i.indrelid = re.rel
    union all
    select re.root, re.via, 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass::oid, s.oid
      from reach re
      join pg_catalog.pg_statistic_ext s on s.stxrelid = re.rel
    union all
    select re.root, re.via, 'pg_catalog.pg_constraint'::pg_catalog.regclass::oid, c.oid
      from reach re
      join pg_catalog.pg_constraint c on c.conrelid = re.rel and c.contype = 'c'
     where re.event = 'update'
    union all
    select re.root, re.via, 'pg_catalog.pg_attrdef'::pg_catalog.regclass::oid, ad.oid
      from reach re
      join pg_catalog.pg_attrdef ad on ad.adrelid = re.rel
      join pg_catalog.pg_attribute a on a.attrelid = ad.adrelid and a.attnum = ad.adnum
     where re.event = 'update' and a.attgenerated <> ''
    union all
    select ty.root, ty.via, 'pg_catalog.pg_constraint'::pg_catalog.regclass::oid, c.oid
      from types ty
      join pg_catalog.pg_type t on t.oid = ty.oid and t.typtype = 'd'
      join pg_catalog.pg_constraint c on c.contypid = t.oid
  ),
  code as (
    select re.root, re.via,
           pg_catalog.format('trigger %s runs %s', pg_catalog.quote_ident(t.tgname), t.tgfoid::pg_catalog.regprocedure) as what,
           t.tgfoid as fn, false as always
      from reach re
      join pg_catalog.pg_trigger t on t.tgrelid = re.rel
     where not t.tgisinternal
       and (t.tgtype::integer & case re.event when 'delete' then 8 when 'update' then 16 else 0 end) <> 0
    union all
    select re.root, re.via, pg_catalog.format('rule %s on %s', pg_catalog.quote_ident(r.rulename), pg_catalog.upper(re.event)), null, true
      from reach re
      join pg_catalog.pg_rewrite r on r.ev_class = re.rel
     where r.rulename <> '_RETURN'
       and r.ev_type = case re.event when 'delete' then '4' when 'update' then '2' end
    union all
    -- (Row-level security: the relations themselves. A foreign key's action
    -- runs as the referencing table's owner, exempt from its policies.)
    select s.rel::pg_catalog.oid, null, s.problem, null, true
      from community_deletion._row_security_problem_of(p_rels) s
     where s.problem is not null
    union all
    select o.root, o.via,
           pg_catalog.format('%s calls %s', pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid),
                             f.fn::pg_catalog.regprocedure), f.fn, false
      from (select distinct ob.root, ob.via, ob.classid, ob.objid from objects ob) o
      join pg_catalog.pg_depend d on d.classid = o.classid and d.objid = o.objid
      cross join lateral (select case when d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass::oid then d.refobjid
                                      else (select op.oprcode::oid from pg_catalog.pg_operator op where op.oid = d.refobjid) end as fn) f
     where d.refclassid in ('pg_catalog.pg_proc'::pg_catalog.regclass::oid, 'pg_catalog.pg_operator'::pg_catalog.regclass::oid)
  )
  select c.root::pg_catalog.regclass,
         pg_catalog.array_agg(distinct case when c.via is null then c.what else c.via || ': ' || c.what end)
    from code c
    -- Each function's owner looked up by its oid, row by row (a join would
    -- hash all of pg_proc for a handful of lookups).
    cross join lateral (select (select pr.proowner from pg_catalog.pg_proc pr where pr.oid = c.fn) as owner) p
   where c.always
      or (p.owner is not null
          and p.owner <> (select r.oid from pg_catalog.pg_roles r where r.rolname = 'community_deletion_owner')
          and not (select r.rolsuper from pg_catalog.pg_roles r where r.oid = p.owner))
   group by c.root;
end;
$$;
