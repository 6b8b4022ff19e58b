--! Previous: sha1:791d8d73b888920340e39ef81ae11b81ba6815ad
--! Hash: sha1:a3156398943989cb1bf4009a87e163204c06479a
--! Message: The catalog check checks each rule for every registered table in one query: set versions of its helpers (_<helper>_of), the per-table helpers ask them for one table, validate_catalog joins them once a check; no JIT; catalog lookups resolved once per query

-- The catalog check checks each rule for every registered table in one
-- query: the per-table helpers (_inheritance_role, _community_columns,
-- _has_leading_index, _fence_trigger_problems,
-- _foreign_key_index_problems, _row_security_problem,
-- _invoker_code_problems) each get a set version taking an array of tables
-- (_<name>_of) that holds the rule, the per-table ones call it, and
-- validate_catalog joins the set versions instead of calling a helper per
-- table: 14-17 ms a call instead of 19-25 on the reference schema (30
-- tables), 45-50 ms instead of 80-270 with 150. The set versions and
-- validate_catalog run without JIT (joins of set-returning functions can be
-- costed above jit_above_cost, and compiling never pays for a catalog
-- query); the functions a catalog scan compared with every row
-- (to_regprocedure, to_regclass) are resolved once per query.
--! Included functions/_inheritance_role_of.sql
-- _inheritance_role for many tables at once (validate_catalog checks every
-- registered table in one query): one row per relation of p_tables that
-- exists, with why the write fence could not cover it (null when it can).
-- PL/pgSQL, generic plan: planned once a session; no JIT (docs/design.md, The
-- catalog check's cost).
create or replace function community_deletion._inheritance_role_of(p_tables regclass[])
  returns table (rel regclass, inheritance text)
  language plpgsql
  stable
  rows 100
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
  set jit = off
as $$
begin
  return query
  select c.oid::pg_catalog.regclass,
         case
           when c.relkind = 'p' then 'a partitioned table'
           when c.relispartition then 'a partition'
           when exists (select 1 from pg_catalog.pg_inherits i where i.inhparent = c.oid) then 'an inheritance parent'
           when exists (select 1 from pg_catalog.pg_inherits i where i.inhrelid = c.oid) then 'an inheritance child'
         end
    from pg_catalog.pg_class c
   where c.oid = any (p_tables::oid[]);
end;
$$;
--! EndIncluded functions/_inheritance_role_of.sql
--! Included functions/_inheritance_role.sql
-- Why the write fence could not cover p_table, or null when it can: a
-- partitioned table, a partition, an inheritance parent or an inheritance
-- child. Statement-level triggers on a parent do not fire for statements
-- addressed to a partition or child, and a child's rows are read and deleted
-- through its parent, so the engine registers only plain tables as scoped or
-- provenance (docs/security.md#partitions-and-inheritance). The rule is
-- _inheritance_role_of's.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._inheritance_role(p_table regclass)
  returns text
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (select x.inheritance from community_deletion._inheritance_role_of(array[p_table]) x);
end;
$$;
--! EndIncluded functions/_inheritance_role.sql
--! Included functions/_community_columns_of.sql
-- _community_columns for many tables at once (validate_catalog checks every
-- registered table in one query): one row per distinct element of
-- p_tables with the columns that hold a community
-- — the column named community_id, and every column that is the referencing
-- side of a foreign key to public.communities, whatever its name — sorted;
-- empty for a table that holds none (or does not exist).
-- PL/pgSQL, generic plan: planned once a session; no JIT (docs/design.md, The
-- catalog check's cost).
create or replace function community_deletion._community_columns_of(p_tables regclass[])
  returns table (rel regclass, columns text[])
  language plpgsql
  stable
  rows 100
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
  set jit = off
as $$
begin
  return query
  select t.rel,
         coalesce(pg_catalog.array_agg(a.attname::text order by a.attname::text collate "C")
                    filter (where a.attname is not null), '{}')
    from (select distinct x.rel from pg_catalog.unnest(p_tables) x(rel)) t
    left join pg_catalog.pg_attribute a
      on a.attrelid = t.rel and a.attnum > 0 and not a.attisdropped
     and (a.attname = 'community_id'
          or exists (select 1 from pg_catalog.pg_constraint k
                      where k.conrelid = t.rel and k.contype = 'f'
                        and k.confrelid = (select pg_catalog.to_regclass('public.communities'))
                        and a.attnum = any (k.conkey)))
   group by t.rel;
end;
$$;
--! EndIncluded functions/_community_columns_of.sql
--! Included functions/_community_columns.sql
-- The columns of p_table that hold a community: the column named
-- community_id, and every column that is the referencing side of a foreign
-- key to public.communities, whatever its name. Sorted; empty for a table
-- that holds no community. The rule is _community_columns_of's.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._community_columns(p_table regclass)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return coalesce((select x.columns from community_deletion._community_columns_of(array[p_table]) x), '{}');
end;
$$;
--! EndIncluded functions/_community_columns.sql
--! Included functions/_has_leading_index_of.sql
-- _has_leading_index for many tables at once (validate_catalog checks every
-- registered table in one query): one row per pair (p_tables[i],
-- p_columns[i]), true when that table has a valid, non-partial index whose
-- first column is that column.
-- PL/pgSQL, generic plan: planned once a session; no JIT (docs/design.md, The
-- catalog check's cost).
create or replace function community_deletion._has_leading_index_of(p_tables regclass[], p_columns text[])
  returns table (rel regclass, column_name text, has_index boolean)
  language plpgsql
  stable
  rows 100
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
  set jit = off
as $$
begin
  return query
  select t.rel, t.col,
         exists (
           select 1 from pg_catalog.pg_index i
             join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
            where i.indrelid = t.rel and a.attname = t.col and not a.attisdropped
              and i.indisvalid and i.indpred is null)
    from rows from (pg_catalog.unnest(p_tables), pg_catalog.unnest(p_columns)) t(rel, col);
end;
$$;
--! EndIncluded functions/_has_leading_index_of.sql
--! Included functions/_has_leading_index.sql
-- True when p_table has a valid, non-partial index whose first column is
-- p_column (the purge and the absence proof then never scan the fleet). The
-- rule is _has_leading_index_of's.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._has_leading_index(p_table regclass, p_column text)
  returns boolean
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (select x.has_index from community_deletion._has_leading_index_of(array[p_table], array[p_column]) x);
end;
$$;
--! EndIncluded functions/_has_leading_index.sql
--! Included functions/_fence_trigger_problems_of.sql
-- _fence_trigger_problems for many tables at once (validate_catalog checks
-- every registered scoped table in one query): one row per element of
-- p_tables (duplicates once) with what is wrong with
-- its write-fence triggers, as short phrases sorted by trigger name (empty
-- when nothing is): each of the six triggers register_scoped_table attaches
-- must exist under its name, execute its function and fire for ordinary
-- sessions (tgenabled 'O' — not disabled, not REPLICA, not ALWAYS). Their
-- form (statement level, transition tables) is _live_fenced_tables' rule.
-- PL/pgSQL, generic plan: planned once a session; no JIT (docs/design.md, The
-- catalog check's cost).
create or replace function community_deletion._fence_trigger_problems_of(p_tables regclass[])
  returns table (rel regclass, problems text[])
  language plpgsql
  stable
  rows 100
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
  set jit = off
as $$
begin
  return query
  with fn as (
    -- Each function resolved once (null when it does not exist: no trigger
    -- then counts as executing another function).
    select f.name, pg_catalog.to_regprocedure(f.name) as oid
      from (values ('community_deletion.tg_scoped_table__enforce_write_fence()'),
                   ('community_deletion.tg_scoped_table__refuse_write_early()'),
                   ('community_deletion.tg_scoped_table__refuse_truncate()')) as f(name)
  ),
  expected as (
    select e.name, fn.oid as fn
      from (values ('_010_community_write_fence', 'community_deletion.tg_scoped_table__enforce_write_fence()'),
                   ('_010_community_write_fence_update', 'community_deletion.tg_scoped_table__enforce_write_fence()'),
                   ('_010_community_write_fence_delete', 'community_deletion.tg_scoped_table__enforce_write_fence()'),
                   ('_010_community_write_fence_early', 'community_deletion.tg_scoped_table__refuse_write_early()'),
                   ('_010_community_write_fence_early_delete', 'community_deletion.tg_scoped_table__refuse_write_early()'),
                   ('_010_community_write_fence_truncate', 'community_deletion.tg_scoped_table__refuse_truncate()'))
             as e(name, fn_name)
      join fn on fn.name = e.fn_name
  )
  select p.rel, coalesce(pg_catalog.array_agg(p.problem order by p.name) filter (where p.problem is not null), '{}')
    from (select t.rel, e.name,
                 case when tg.oid is null then e.name || ' missing'
                      when tg.tgfoid <> e.fn then e.name || ' executes another function'
                      when tg.tgenabled <> 'O' then e.name || case tg.tgenabled when 'D' then ' disabled'
                                                                          when 'R' then ' set to fire on replicas only'
                                                                          else ' set to fire always' end
                 end as problem
            from (select distinct x.rel from pg_catalog.unnest(p_tables) x(rel)) t
            cross join expected e
            left join pg_catalog.pg_trigger tg on tg.tgrelid = t.rel and tg.tgname = e.name and not tg.tgisinternal) p
   group by p.rel;
end;
$$;
--! EndIncluded functions/_fence_trigger_problems_of.sql
--! Included functions/_fence_trigger_problems.sql
-- What is wrong with the write-fence triggers of registered scoped table
-- p_table, as short phrases (empty when nothing is): each of the six
-- triggers register_scoped_table attaches must exist under its name, execute
-- its function and fire for ordinary sessions (tgenabled 'O' — not disabled,
-- not REPLICA, not ALWAYS). Their form (statement level, transition tables)
-- is _live_fenced_tables' rule. The rule is _fence_trigger_problems_of's.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._fence_trigger_problems(p_table regclass)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return coalesce((select x.problems from community_deletion._fence_trigger_problems_of(array[p_table]) x), '{}');
end;
$$;
--! EndIncluded functions/_fence_trigger_problems.sql
--! Included functions/_foreign_key_index_problems_of.sql
-- _foreign_key_index_problems for many tables at once (validate_catalog
-- checks every registered table in one query): one row per table of
-- p_tables that has a problem, with its foreign keys that reference a
-- registered scoped table and have no valid, non-partial index whose leading
-- columns are exactly the key's referencing columns (in any order) — one
-- problem per key, naming it, its columns and the index it needs, sorted by
-- key name.
-- PL/pgSQL, generic plan: planned once a session; no JIT (docs/design.md, The
-- catalog check's cost).
create or replace function community_deletion._foreign_key_index_problems_of(p_tables regclass[])
  returns table (rel regclass, problems text[])
  language plpgsql
  stable
  rows 100
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
  set jit = off
as $$
begin
  return query
  select k.conrelid::pg_catalog.regclass,
         array_agg(
           format('foreign key %s (%s) references %s but no index leads with (%s)',
                  k.conname, k.columns, k.referenced, k.columns)
           order by k.conname collate "C")
    from (select c.conrelid, c.conname::text as conname, c.conkey,
                 (select string_agg(quote_ident(a.attname), ', ' order by array_position(c.conkey, a.attnum))
                    from pg_catalog.pg_attribute a
                   where a.attrelid = c.conrelid and a.attnum = any (c.conkey)) as columns,
                 community_deletion._table_label(rn.nspname::text, rc.relname::text) as referenced
            from pg_catalog.pg_constraint c
            join pg_catalog.pg_class rc on rc.oid = c.confrelid
            join pg_catalog.pg_namespace rn on rn.oid = rc.relnamespace
           where c.conrelid = any (p_tables::oid[]) and c.contype = 'f'
             and exists (select 1 from community_deletion.registered_tables r
                          where r.kind = 'scoped' and r.schema_name = rn.nspname::text and r.table_name = rc.relname::text)) k
   where not exists (
     select 1 from pg_catalog.pg_index i
      where i.indrelid = k.conrelid and i.indisvalid and i.indpred is null
        and i.indnkeyatts >= cardinality(k.conkey)
        and (select array_agg(i.indkey[s] order by i.indkey[s]) from generate_series(0, cardinality(k.conkey) - 1) s)
            = (select array_agg(x order by x) from unnest(k.conkey) x))
   group by k.conrelid;
end;
$$;
--! EndIncluded functions/_foreign_key_index_problems_of.sql
--! Included functions/_foreign_key_index_problems.sql
-- The foreign keys of registered table p_table that reference a registered
-- scoped table and have no index to find their referencing rows: one
-- problem per key, naming it, its columns and the index it needs. The purge
-- deletes parents after their children, and every deleted parent row makes
-- PostgreSQL look up referencing rows of each such key; without a valid,
-- non-partial index whose leading columns are exactly the key's referencing
-- columns (in any order) each lookup scans the referencing table, and the
-- purge turns quadratic in the tenant's size (docs/benchmarks.md). The rule
-- is _foreign_key_index_problems_of's.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._foreign_key_index_problems(p_table regclass)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return coalesce((select x.problems from community_deletion._foreign_key_index_problems_of(array[p_table]) x), '{}');
end;
$$;
--! EndIncluded functions/_foreign_key_index_problems.sql
--! Included functions/_row_security_problem_of.sql
-- _row_security_problem for many relations at once (validate_catalog checks
-- every registered table in one query): one row per relation of p_rels that
-- exists, with the problem in words when row-level security would apply to
-- the engine owner, else null.
-- PL/pgSQL, generic plan: planned once a session; no JIT (docs/design.md, The
-- catalog check's cost).
create or replace function community_deletion._row_security_problem_of(p_rels pg_catalog.regclass[])
  returns table (rel pg_catalog.regclass, problem text)
  language plpgsql
  stable
  rows 100
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
  set jit = off
as $$
begin
  return query
  select c.oid::pg_catalog.regclass,
         case
           when not c.relrowsecurity then null
           when (select r.rolbypassrls from pg_catalog.pg_roles r where r.rolname = 'community_deletion_owner') then null
           when not c.relforcerowsecurity and pg_catalog.pg_has_role('community_deletion_owner', c.relowner, 'USAGE') then null
           else 'row-level security applies to community_deletion_owner (it has no BYPASSRLS'
                || case when c.relforcerowsecurity then ' and the table FORCEs row-level security' else ' and does not own the table' end
                || ')'
         end
    from pg_catalog.pg_class c
   where c.oid = any (p_rels::pg_catalog.oid[]);
end;
$$;
--! EndIncluded functions/_row_security_problem_of.sql
--! Included functions/_row_security_problem.sql
-- Whether row-level security on relation p_rel would apply to the engine
-- owner, so that a policy could hide rows from the purge, the absence proof
-- or the inventory: null when it cannot, else the problem in words. RLS does
-- not apply to a role with BYPASSRLS (community_deletion_owner has it when a
-- superuser created it, db/engine/roles.sql), nor to the table's owner unless
-- the table FORCEs row-level security. On a managed server the engine owner
-- has no BYPASSRLS (only a superuser may grant it), so a registered table
-- with row-level security enabled is refused by register_scoped_table /
-- register_unscoped_table and reported by validate_catalog. The rule is
-- _row_security_problem_of's.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._row_security_problem(p_rel pg_catalog.regclass)
  returns text
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (select x.problem from community_deletion._row_security_problem_of(array[p_rel]) x);
end;
$$;
--! EndIncluded functions/_row_security_problem.sql
--! Included functions/_invoker_code_problems_of.sql
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
  -- For 'update': the objects whose expressions the statement evaluates
  -- (indexes, CHECK constraints, generated columns, constraints of the
  -- columns' domains), each with its relation.
  objects as (
    select i.indrelid as rel, 'pg_catalog.pg_class'::pg_catalog.regclass::oid as classid, i.indexrelid as objid
      from pg_catalog.pg_index i
     where i.indrelid in (select r.rel from rels r)
    union all
    select c.conrelid, 'pg_catalog.pg_constraint'::pg_catalog.regclass::oid, c.oid
      from pg_catalog.pg_constraint c
     where c.conrelid in (select r.rel from rels r) and c.contype = 'c'
    union all
    select ad.adrelid, 'pg_catalog.pg_attrdef'::pg_catalog.regclass::oid, ad.oid
      from pg_catalog.pg_attrdef ad
      join pg_catalog.pg_attribute a on a.attrelid = ad.adrelid and a.attnum = ad.adnum
     where ad.adrelid in (select r.rel from rels r) and a.attgenerated <> ''
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
     where p_event = 'update'
       and d.refclassid in ('pg_catalog.pg_proc'::pg_catalog.regclass::oid, 'pg_catalog.pg_operator'::pg_catalog.regclass::oid)
  )
  select c.rel::pg_catalog.regclass, pg_catalog.array_agg(distinct c.what)
    from code c
    left join pg_catalog.pg_proc p on p.oid = c.fn
   where c.always
      or (p.oid is not null
          and p.proowner <> (select r.oid from pg_catalog.pg_roles r where r.rolname = 'community_deletion_owner')
          and not (select r.rolsuper from pg_catalog.pg_roles r where r.oid = p.proowner))
   group by c.rel;
end;
$$;
--! EndIncluded functions/_invoker_code_problems_of.sql
--! Included functions/_invoker_code_problems.sql
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
-- in words, sorted; empty when there are none. The query is
-- _invoker_code_problems_of's.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._invoker_code_problems(p_rel pg_catalog.regclass, p_event text)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return coalesce((select x.problems from community_deletion._invoker_code_problems_of(array[p_rel], p_event) x), '{}');
end;
$$;
--! EndIncluded functions/_invoker_code_problems.sql
--! Included functions/_live_community_tables.sql
-- Sorted labels (_table_label) of every relation that holds communities: a
-- table, partitioned table, partition, inheritance child, foreign table or
-- materialized view, in any schema but the system schemas, temporary schemas
-- and the engine's own, with a column named community_id or a foreign key to
-- public.communities under any column name. The registry must list exactly
-- these (docs/design.md#catalog).
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._live_community_tables()
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select coalesce(pg_catalog.array_agg(l.label order by l.label collate "C"), '{}')
    from (select community_deletion._table_label(n.nspname::text, c.relname::text) as label
            from pg_catalog.pg_class c
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where c.relkind in ('r', 'p', 'f', 'm')
             and n.nspname not in ('pg_catalog', 'information_schema', 'community_deletion')
             and n.nspname !~ '^pg_(toast|temp_|toast_temp_)'
             and (exists (select 1 from pg_catalog.pg_attribute a
                           where a.attrelid = c.oid and a.attname = 'community_id' and not a.attisdropped)
                  or exists (select 1 from pg_catalog.pg_constraint k
                              where k.conrelid = c.oid and k.contype = 'f'
                                and k.confrelid = (select pg_catalog.to_regclass('public.communities'))))) l);
end;
$$;
--! EndIncluded functions/_live_community_tables.sql
--! Included functions/_live_fenced_tables.sql
-- Detection rule for "fenced": the table (any schema, not a partition)
-- carries, for EACH of INSERT, UPDATE and DELETE, a trigger that is not
-- internal, is enabled for ordinary sessions (tgenabled 'O'), is STATEMENT
-- level, AFTER (neither BEFORE nor INSTEAD OF), has no WHEN condition and no
-- column list, executes exactly
-- community_deletion.tg_scoped_table__enforce_write_fence(), and names the
-- transition tables that function reads: INSERT → NEW TABLE fence_new_rows;
-- UPDATE → OLD TABLE fence_old_rows and NEW TABLE fence_new_rows; DELETE →
-- OLD TABLE fence_old_rows. That is precisely what
-- community_deletion.register_scoped_table attaches
-- (_010_community_write_fence, _010_community_write_fence_update,
-- _010_community_write_fence_delete). A disabled trigger, one set to fire
-- only on replicas or always, a row-level or BEFORE one, one without its
-- transition tables, one with a WHEN clause, or a set missing an event is not
-- a fence. The early-refusal and TRUNCATE triggers are checked by name
-- (_fence_trigger_problems); they never decide a write.
--
-- Sorted labels (_table_label) of the tables carrying the write fence.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._live_fenced_tables()
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select coalesce(pg_catalog.array_agg(f.label order by f.label collate "C"), '{}')
    from (select community_deletion._table_label(n.nspname::text, c.relname::text) as label
            from pg_catalog.pg_trigger t
            join pg_catalog.pg_class c on c.oid = t.tgrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where not c.relispartition and not t.tgisinternal
             and t.tgenabled = 'O'
             and t.tgfoid = (select pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()'))
             and (t.tgtype & 1) = 0      -- statement level
             and (t.tgtype & 66) = 0     -- AFTER: neither BEFORE (2) nor INSTEAD OF (64)
             and t.tgqual is null        -- no WHEN condition
             and pg_catalog.cardinality(t.tgattr::int2[]) = 0   -- no column list
           group by n.nspname, c.relname
          having pg_catalog.bool_or((t.tgtype & 4) = 4 and t.tgnewtable = 'fence_new_rows')    -- insert
             and pg_catalog.bool_or((t.tgtype & 16) = 16 and t.tgoldtable = 'fence_old_rows'   -- update
                                    and t.tgnewtable = 'fence_new_rows')
             and pg_catalog.bool_or((t.tgtype & 8) = 8 and t.tgoldtable = 'fence_old_rows')    -- delete
         ) f);
end;
$$;
--! EndIncluded functions/_live_fenced_tables.sql
--! Included functions/validate_catalog.sql
-- Refuses (catalog_drift, DL7C1) unless the live catalog is exactly what the
-- registry says (docs/design.md#catalog):
--   1. the relations that hold communities, in every schema
--      (_live_community_tables), equal the registry (every kind): no
--      registered table missing, no unknown one — partitions, inheritance
--      children, foreign tables and materialized views included;
--   2. the tables carrying the write fence equal the registered scoped tables
--      (an unfenced scoped table lets writes escape; a fence trigger on an
--      unregistered table means the registry is stale);
--   3. every registered scoped table is a plain table (not partitioned, not
--      a partition, not part of an inheritance tree), has community_id uuid
--      NOT NULL and no other column holding a community, a valid index
--      leading with community_id, and all six fence triggers present,
--      executing their functions and firing for ordinary sessions;
--   4. every registered provenance table is a plain table whose only
--      community column is the registered one, nullable and leading an
--      index, guarded by _020_provenance_guard;
--   5. row-level security of a registered scoped or provenance table, or
--      of public.communities, does not apply to the engine owner
--      (_row_security_problem: without BYPASSRLS, on a managed server, a
--      policy could hide rows from the purge and the absence proof, and its
--      expressions would run as the engine owner; reported with item 7);
--   6. every foreign key of a registered scoped or provenance table that
--      references a registered scoped table has an index leading with its
--      referencing columns (_foreign_key_index_problems: without it the
--      purge is quadratic);
--   7. no code another role attached to a registered scoped table (on
--      DELETE), provenance table or public.communities (on UPDATE) would run
--      as the engine owner when the engine changes their rows: a trigger or
--      expression calling a function no superuser or engine owner owns, a
--      rule, or row-level security (_invoker_code_problems;
--      _refuse_invoker_code checks it again, under lock, right before each
--      such statement).
-- Excluded tables are only required to be registered. The message lists
-- every problem (table names included) so a claim that blocks on it explains
-- itself; DETAIL carries the same as JSON. Destructive stages call it inside
-- their own transaction after _lock_schema_destruction_shared(), so the
-- validated surface cannot change before they commit.
create or replace function community_deletion.validate_catalog()
  returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
  set jit = off
as $$
declare
  v_live text[] := community_deletion._live_community_tables();
  v_fenced text[] := community_deletion._live_fenced_tables();
  v_registered text[];
  v_scoped text[];
  v_missing text[];
  v_unknown text[];
  v_unfenced text[];
  v_stray_fences text[];
  v_shape text[];
  v_communities_code text[] := coalesce(community_deletion._invoker_code_problems(pg_catalog.to_regclass('public.communities'), 'update'), '{}');
  v_problems text[] := '{}';
  -- The registered scoped and provenance tables that exist, and each one's
  -- community column (same order), for the _of helpers.
  v_rels regclass[];
  v_columns text[];
  v_scoped_rels regclass[];
  v_provenance_rels regclass[];
begin
  select coalesce(array_agg(x.rel), '{}'), coalesce(array_agg(r.community_column), '{}'),
         coalesce(array_agg(x.rel) filter (where r.kind = 'scoped'), '{}'),
         coalesce(array_agg(x.rel) filter (where r.kind = 'provenance'), '{}')
    into v_rels, v_columns, v_scoped_rels, v_provenance_rels
    from community_deletion.registered_tables r
    cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
   where r.kind in ('scoped', 'provenance') and x.rel is not null;
  select coalesce(array_agg(l.label order by l.label collate "C"), '{}'),
         coalesce(array_agg(l.label order by l.label collate "C") filter (where r.kind = 'scoped'), '{}')
    into v_registered, v_scoped
    from community_deletion.registered_tables r
    cross join lateral (select community_deletion._table_label(r.schema_name, r.table_name) as label) l;
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_missing
    from unnest(v_registered) x where x <> all (v_live);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unknown
    from unnest(v_live) x where x <> all (v_registered);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unfenced
    from unnest(v_scoped) x where x <> all (v_fenced) and x = any (v_live);
  -- Any trigger executing a fence function (complete or not, enabled or not)
  -- on a table not registered as scoped means the registry is stale.
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_stray_fences
    from (select distinct community_deletion._table_label(n.nspname::text, c.relname::text) as x
            from pg_catalog.pg_trigger t
            join pg_catalog.pg_class c on c.oid = t.tgrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where not t.tgisinternal
             and t.tgfoid in ((select pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()')),
                              (select pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_write_early()')),
                              (select pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_truncate()')))) f
   where x <> all (v_scoped);
  -- The shape of every registered scoped and provenance table that exists,
  -- each rule checked for all of them in one query (the _of helpers).
  select coalesce(array_agg(s.label || ': ' || array_to_string(s.problems, ', ') order by s.label collate "C"), '{}')
    into v_shape
    from (select t.label,
                 array_remove(array[
                   case when ih.inheritance is not null then 'it is ' || ih.inheritance end,
                   case when t.kind = 'scoped' and not exists (
                          select 1 from pg_catalog.pg_attribute a
                           where a.attrelid = t.rel and a.attname = 'community_id' and not a.attisdropped
                             and a.atttypid = 'pg_catalog.uuid'::pg_catalog.regtype and a.attnotnull)
                        then 'community_id is not uuid not null' end,
                   case when cc.columns <> array[t.community_column]
                        then format('the columns holding a community are %s, registered: %s',
                                    coalesce(nullif(array_to_string(cc.columns, ', '), ''), 'none'),
                                    t.community_column) end,
                   case when t.kind = 'provenance' and exists (
                          select 1 from pg_catalog.pg_attribute a
                           where a.attrelid = t.rel and a.attname = t.community_column and a.attnotnull)
                        then t.community_column || ' is NOT NULL (the purge nulls it)' end,
                   case when not li.has_index
                        then 'no valid index leads with ' || t.community_column end], null)
                 || case t.kind when 'scoped' then coalesce(ft.problems, '{}')
                                else community_deletion._provenance_guard_problems(t.rel, t.community_column) end
                 || coalesce(fk.problems, '{}')
                 || coalesce(ic.problems, '{}')
                   as problems
            from (select r.kind, r.community_column, community_deletion._table_label(r.schema_name, r.table_name) as label,
                         community_deletion._registered_relation(r.schema_name, r.table_name) as rel
                    from community_deletion.registered_tables r
                   -- offset 0: each computed once per table, not at every join.
                   where r.kind in ('scoped', 'provenance') offset 0) t
            left join community_deletion._inheritance_role_of(v_rels) ih on ih.rel = t.rel
            left join community_deletion._community_columns_of(v_rels) cc on cc.rel = t.rel
            left join community_deletion._has_leading_index_of(v_rels, v_columns) li on li.rel = t.rel and li.column_name = t.community_column
            left join community_deletion._fence_trigger_problems_of(v_scoped_rels) ft on ft.rel = t.rel
            left join community_deletion._foreign_key_index_problems_of(v_rels) fk on fk.rel = t.rel
            left join community_deletion._invoker_code_problems_of(v_scoped_rels, 'delete') ic_d on ic_d.rel = t.rel and t.kind = 'scoped'
            left join community_deletion._invoker_code_problems_of(v_provenance_rels, 'update') ic_u on ic_u.rel = t.rel and t.kind = 'provenance'
            cross join lateral (select coalesce(ic_d.problems, ic_u.problems) as problems) ic
           where t.rel is not null) s
   where cardinality(s.problems) > 0;

  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('registered but missing: %s', array_to_string(v_missing, ', '));
  end if;
  if cardinality(v_unknown) > 0 then
    v_problems := v_problems || format('unregistered tables holding communities: %s', array_to_string(v_unknown, ', '));
  end if;
  if cardinality(v_unfenced) > 0 then
    v_problems := v_problems || format('scoped tables without the write fence: %s', array_to_string(v_unfenced, ', '));
  end if;
  if cardinality(v_stray_fences) > 0 then
    v_problems := v_problems || format('write fence on unregistered tables: %s', array_to_string(v_stray_fences, ', '));
  end if;
  if cardinality(v_shape) > 0 then
    v_problems := v_problems || format('registered tables out of shape: %s', array_to_string(v_shape, '; '));
  end if;
  if cardinality(v_communities_code) > 0 then
    v_problems := v_problems || format('code that would run as the engine owner when it updates public.communities: %s',
                                       array_to_string(v_communities_code, ', '));
  end if;
  if cardinality(v_problems) > 0 then
    raise exception 'community deletion catalog drift: %', array_to_string(v_problems, '; ')
      using errcode = 'DL7C1',
            detail = pg_catalog.jsonb_build_object(
              'missing', v_missing, 'unknown', v_unknown, 'unfenced', v_unfenced,
              'stray_fences', v_stray_fences, 'shape', v_shape, 'communities_code', v_communities_code)::text,
            hint = 'In a migration, register new tables (community_deletion.register_scoped_table / '
                   'community_deletion.register_unscoped_table) or drop them, restore missing fences and indexes, '
                   'drop triggers and rules that would run as the engine owner (or have a superuser own their functions); '
                   'then unblock the request (deletions unblock ID), or abort it.';
  end if;
end;
$$;
--! EndIncluded functions/validate_catalog.sql
--! Included functions/schema_version.sql
-- The engine schema's version: the number of the last migration that changed
-- engine objects. A driver built for another version refuses to run against
-- this database (src/engine.ts, SCHEMA_VERSION); `deletions migrate` and
-- `deletions inspect` report it. Every migration that changes engine objects
-- replaces this function with its own number.
create or replace function community_deletion.schema_version()
  returns integer
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select 29
$$;
--! EndIncluded functions/schema_version.sql
--! Included engine/grants.sql
-- Ownership and privileges of the engine (least privilege). Data-driven and
-- re-runnable: every function in schema community_deletion is owned by
-- community_deletion_owner, loses EXECUTE for PUBLIC and the engine roles,
-- and regains it only per the mapping below. A function missing from the
-- mapping is executable by its owner only (fail closed);
-- db/tests/roles/every_engine_function_is_mapped.test.sql fails until it is
-- mapped. Included last by every migration that adds or replaces engine
-- functions.
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
-- For the same reason every role has USAGE on the schema (names only: tables
-- and functions carry their own privileges).
grant usage on schema community_deletion to public;

do $$
declare
  v_fn record;
  v_role text;
  v_map jsonb := pg_catalog.jsonb_build_object(
    'community_deletion_operator', pg_catalog.jsonb_build_array(
      'submit', 'freeze_inventory', 'approve', 'abort', 'unblock',
      'inspect', 'request_status', 'request_checkpoints', 'list_requests', 'queue_status',
      'storage_taxonomy_rules', 'key_chunk_progress', 'schema_version',
      'validate_catalog', 'validate_serving_catalog',
      'serving_lease_stats', 'reap_serving_leases',
      'record_taxonomy_sweep', 'write_fence_implementation', 'plan'),
    'community_deletion_executor', pg_catalog.jsonb_build_array(
      'claim', 'verify_token', 'verify_store_identity', 'lease_state', 'heartbeat', 'release',
      'executor_stopped',
      'record_failure', 'block', 'block_preclaim',
      'begin_quiescing', 'fence',
      'append_key_chunk', 'clear_key_chunks', 'freeze_destructive_manifest',
      'mark_drained', 'next_key_chunk', 'stamp_key_chunk', 'key_chunk_progress',
      'mark_bindings_removed', 'purge_postgres', 'purge_postgres_batch', 'finish_postgres_purge', 'mark_cache_purged',
      'verify_postgres_absence', 'mark_logically_verified', 'mark_retention_pending',
      'inspect', 'storage_taxonomy_rules', 'validate_catalog',
      'serving_lease_stats', 'reap_serving_leases', 'write_fence_implementation', 'schema_version'),
    'community_deletion_app', pg_catalog.jsonb_build_array(
      'acquire_serving_lease', 'renew_serving_lease', 'verify_serving_lease',
      'release_serving_lease', 'guard_serving_write', 'validate_serving_catalog',
      'write_fence_implementation', 'schema_version'),
    'public', pg_catalog.jsonb_build_array(
      'community_write_allowed', 'assert_community_write_allowed', '_require_read_committed',
      '_community_lock_key', '_serving_write_granted', '_schema_destruction_lock_key',
      -- the DDL guard: every role's DDL runs it (it only answers)
      '_guard_registered_tables',
      -- the explicit DDL lock (no event trigger on a managed server): every
      -- migrating role calls it, as every role's DDL runs the event trigger
      'ddl_lock',
      -- what is installed: `deletions migrate` asks as the migrating role,
      -- which holds none of the engine roles (they only answer)
      'schema_version', 'write_fence_implementation', 'installation_report',
      -- constants: the stage list (the view community_deletion.stages calls them as its reader)
      '_stages', '_stage_order', '_next_stage', '_stage_is_runnable', '_stage_is_terminal',
      '_stage_is_abortable', '_stage_is_fenced'));
begin
  for v_fn in
    select p.oid::pg_catalog.regprocedure as sig, p.proname::text as name
      from pg_catalog.pg_proc p
     where p.pronamespace = 'community_deletion'::pg_catalog.regnamespace
     order by 1
  loop
    execute pg_catalog.format('alter function %s owner to community_deletion_owner', v_fn.sig);
    execute pg_catalog.format('revoke all on function %s from public, community_deletion_operator, '
                              'community_deletion_executor, community_deletion_app', v_fn.sig);
    for v_role in select k from pg_catalog.jsonb_object_keys(v_map) k where v_map -> k ? v_fn.name loop
      execute pg_catalog.format('grant execute on function %s to %s', v_fn.sig,
                                case when v_role = 'public' then 'public' else pg_catalog.quote_ident(v_role) end);
    end loop;
  end loop;

  -- The engine's own tables. The owner (the security-definer code) reads and
  -- writes every one, never TRUNCATE, never DDL; operators read them (psql
  -- inspection); every change goes through the functions; the executor and
  -- the application get no table privileges at all.
  revoke all on all tables in schema community_deletion from public, community_deletion_operator,
    community_deletion_executor, community_deletion_app, community_deletion_owner;
  revoke all on all sequences in schema community_deletion from public, community_deletion_operator,
    community_deletion_executor, community_deletion_app, community_deletion_owner;
  grant select, insert, update, delete on all tables in schema community_deletion to community_deletion_owner;
  grant usage, select on all sequences in schema community_deletion to community_deletion_owner;
  grant select on all tables in schema community_deletion to community_deletion_operator;

  -- The host's tables. Start from nothing for the engine roles, in public and
  -- in every schema holding a registered table.
  revoke all on all tables in schema public from community_deletion_operator, community_deletion_executor,
    community_deletion_app, community_deletion_owner;
  revoke all on all sequences in schema public from community_deletion_operator, community_deletion_executor,
    community_deletion_app, community_deletion_owner;
  -- The owner (the engine's security-definer code): communities (lifecycle
  -- columns, tombstone), every registered scoped table (counted, purged,
  -- proven absent) and provenance table (nulled, proven absent) — and nothing
  -- else of the host's.
  grant select, insert, update, delete on public.communities to community_deletion_owner;

  -- The application writer: communities except the engine-owned lifecycle
  -- columns (deletion_state, deletion_fence_generation, deleted_at) — column
  -- privileges refuse those outright (42501), and the lifecycle guard trigger
  -- refuses them for everyone else (DL8T1) — and its tenant data.
  grant select on public.communities to community_deletion_app;
  grant insert (id, host, name, signing_key, icon, settings, created_at, archived_at) on public.communities
    to community_deletion_app;
  grant update (host, name, signing_key, icon, settings, archived_at) on public.communities
    to community_deletion_app;
  for v_fn in
    select r.schema_name, r.kind, x.rel
      from community_deletion.registered_tables r
      cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
     where r.kind in ('scoped', 'provenance') and x.rel is not null
  loop
    execute pg_catalog.format('grant usage on schema %I to community_deletion_owner, community_deletion_app', v_fn.schema_name);
    execute pg_catalog.format('grant select, insert, update, delete on %s to community_deletion_app', v_fn.rel);
    execute pg_catalog.format('grant %s on %s to community_deletion_owner',
                              case v_fn.kind when 'scoped' then 'select, insert, update, delete' else 'select, update' end,
                              v_fn.rel);
  end loop;

  -- Operators read communities (psql inspection).
  grant select on public.communities to community_deletion_operator;
end;
$$;
--! EndIncluded engine/grants.sql
