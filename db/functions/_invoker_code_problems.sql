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
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._invoker_code_problems(p_rel pg_catalog.regclass, p_event text)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
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
          and not (select r.rolsuper from pg_catalog.pg_roles r where r.oid = p.proowner)));
end;
$$;
