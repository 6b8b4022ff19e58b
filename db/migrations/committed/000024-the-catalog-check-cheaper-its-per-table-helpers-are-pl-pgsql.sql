--! Previous: sha1:60efcde39f81c8687a842831ec2cb8b593333dbd
--! Hash: sha1:83b053adf1d74bb0abf9b6276bf68fe9868ee0c5
--! Message: The catalog check, cheaper: its per-table helpers are PL/pgSQL with a generic plan, planned once a session instead of at every call, and validate_catalog computes each table's relation, inheritance role and community columns once; what is checked and reported is unchanged

-- The catalog check, cheaper (issue 15: every purge batch re-validates the
-- catalog). Its per-table helpers become PL/pgSQL functions with a generic
-- plan, planned once a session instead of at every call (a SQL function with
-- a SET clause is never inlined, and PostgreSQL before 18 plans its query
-- again on every call); validate_catalog computes each table's relation,
-- inheritance role and community columns once. What is checked and what is
-- reported do not change.
--! Included functions/_community_columns.sql
-- The columns of p_table that hold a community: the column named
-- community_id, and every column that is the referencing side of a foreign
-- key to public.communities, whatever its name. Sorted; empty for a table
-- that holds no community.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._community_columns(p_table regclass)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select coalesce(pg_catalog.array_agg(a.attname::text order by a.attname::text collate "C"), '{}')
    from pg_catalog.pg_attribute a
   where a.attrelid = p_table and a.attnum > 0 and not a.attisdropped
     and (a.attname = 'community_id'
          or exists (select 1 from pg_catalog.pg_constraint k
                      where k.conrelid = p_table and k.contype = 'f'
                        and k.confrelid = pg_catalog.to_regclass('public.communities')
                        and a.attnum = any (k.conkey))));
end;
$$;
--! EndIncluded functions/_community_columns.sql
--! Included functions/_fence_trigger_problems.sql
-- What is wrong with the write-fence triggers of registered scoped table
-- p_table, as short phrases (empty when nothing is): each of the six
-- triggers register_scoped_table attaches must exist under its name, execute
-- its function and fire for ordinary sessions (tgenabled 'O' — not disabled,
-- not REPLICA, not ALWAYS). Their form (statement level, transition tables)
-- is _live_fenced_tables' rule.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._fence_trigger_problems(p_table regclass)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select coalesce(pg_catalog.array_agg(p.problem order by p.name), '{}')
    from (select e.name,
                 case when t.oid is null then e.name || ' missing'
                      when t.tgfoid <> pg_catalog.to_regprocedure(e.fn) then e.name || ' executes another function'
                      when t.tgenabled <> 'O' then e.name || case t.tgenabled when 'D' then ' disabled'
                                                                        when 'R' then ' set to fire on replicas only'
                                                                        else ' set to fire always' end
                 end as problem
            from (values ('_010_community_write_fence', 'community_deletion.tg_scoped_table__enforce_write_fence()'),
                         ('_010_community_write_fence_update', 'community_deletion.tg_scoped_table__enforce_write_fence()'),
                         ('_010_community_write_fence_delete', 'community_deletion.tg_scoped_table__enforce_write_fence()'),
                         ('_010_community_write_fence_early', 'community_deletion.tg_scoped_table__refuse_write_early()'),
                         ('_010_community_write_fence_early_delete', 'community_deletion.tg_scoped_table__refuse_write_early()'),
                         ('_010_community_write_fence_truncate', 'community_deletion.tg_scoped_table__refuse_truncate()'))
                   as e(name, fn)
            left join pg_catalog.pg_trigger t on t.tgrelid = p_table and t.tgname = e.name and not t.tgisinternal) p
   where p.problem is not null);
end;
$$;
--! EndIncluded functions/_fence_trigger_problems.sql
--! Included functions/_foreign_key_index_problems.sql
-- The foreign keys of registered table p_table that reference a registered
-- scoped table and have no index to find their referencing rows: one
-- problem per key, naming it, its columns and the index it needs. The purge
-- deletes parents after their children, and every deleted parent row makes
-- PostgreSQL look up referencing rows of each such key; without a valid,
-- non-partial index whose leading columns are exactly the key's referencing
-- columns (in any order) each lookup scans the referencing table, and the
-- purge turns quadratic in the tenant's size (docs/benchmarks.md).
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._foreign_key_index_problems(p_table regclass)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select coalesce(array_agg(
           format('foreign key %s (%s) references %s but no index leads with (%s)',
                  k.conname, k.columns, k.referenced, k.columns)
           order by k.conname collate "C"), '{}')
    from (select c.conname::text as conname, c.conkey,
                 (select string_agg(quote_ident(a.attname), ', ' order by array_position(c.conkey, a.attnum))
                    from pg_catalog.pg_attribute a
                   where a.attrelid = c.conrelid and a.attnum = any (c.conkey)) as columns,
                 community_deletion._table_label(rn.nspname::text, rc.relname::text) as referenced
            from pg_catalog.pg_constraint c
            join pg_catalog.pg_class rc on rc.oid = c.confrelid
            join pg_catalog.pg_namespace rn on rn.oid = rc.relnamespace
           where c.conrelid = p_table and c.contype = 'f'
             and exists (select 1 from community_deletion.registered_tables r
                          where r.kind = 'scoped' and r.schema_name = rn.nspname::text and r.table_name = rc.relname::text)) k
   where not exists (
     select 1 from pg_catalog.pg_index i
      where i.indrelid = p_table and i.indisvalid and i.indpred is null
        and i.indnkeyatts >= cardinality(k.conkey)
        and (select array_agg(i.indkey[s] order by i.indkey[s]) from generate_series(0, cardinality(k.conkey) - 1) s)
            = (select array_agg(x order by x) from unnest(k.conkey) x)));
end;
$$;
--! EndIncluded functions/_foreign_key_index_problems.sql
--! Included functions/_has_leading_index.sql
-- True when p_table has a valid, non-partial index whose first column is
-- p_column (the purge and the absence proof then never scan the fleet).
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._has_leading_index(p_table regclass, p_column text)
  returns boolean
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select exists (
    select 1 from pg_catalog.pg_index i
      join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
     where i.indrelid = p_table and a.attname = p_column and not a.attisdropped
       and i.indisvalid and i.indpred is null));
end;
$$;
--! EndIncluded functions/_has_leading_index.sql
--! Included functions/_inheritance_role.sql
-- Why the write fence could not cover p_table, or null when it can: a
-- partitioned table, a partition, an inheritance parent or an inheritance
-- child. Statement-level triggers on a parent do not fire for statements
-- addressed to a partition or child, and a child's rows are read and deleted
-- through its parent, so the engine registers only plain tables as scoped or
-- provenance (docs/security.md#partitions-and-inheritance).
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._inheritance_role(p_table regclass)
  returns text
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select case
           when c.relkind = 'p' then 'a partitioned table'
           when c.relispartition then 'a partition'
           when exists (select 1 from pg_catalog.pg_inherits i where i.inhparent = p_table) then 'an inheritance parent'
           when exists (select 1 from pg_catalog.pg_inherits i where i.inhrelid = p_table) then 'an inheritance child'
         end
    from pg_catalog.pg_class c
   where c.oid = p_table);
end;
$$;
--! EndIncluded functions/_inheritance_role.sql
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
                                and k.confrelid = pg_catalog.to_regclass('public.communities')))) l);
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
             and t.tgfoid = pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()')
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
--! Included functions/_provenance_guard_problems.sql
-- What is wrong with the guard trigger of registered provenance table
-- p_table (empty when nothing is): _020_provenance_guard must exist, execute
-- tg_provenance_table__refuse_inactive_community() for p_column, and fire
-- for ordinary sessions.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._provenance_guard_problems(p_table regclass, p_column text)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select case
           when t.oid is null then array['_020_provenance_guard missing']
           when t.tgfoid <> pg_catalog.to_regprocedure('community_deletion.tg_provenance_table__refuse_inactive_community()')
             then array['_020_provenance_guard executes another function']
           when t.tgnargs <> 1 or pg_catalog.convert_from(pg_catalog.substr(t.tgargs, 1, pg_catalog.length(t.tgargs) - 1), 'UTF8') <> p_column
             then array['_020_provenance_guard guards another column']
           when t.tgenabled <> 'O' then array['_020_provenance_guard does not fire for ordinary sessions']
           else '{}'::text[]
         end
    from (select 1) one
    left join pg_catalog.pg_trigger t on t.tgrelid = p_table and t.tgname = '_020_provenance_guard' and not t.tgisinternal);
end;
$$;
--! EndIncluded functions/_provenance_guard_problems.sql
--! Included functions/_row_security_problem.sql
-- Whether row-level security on relation p_rel would apply to the engine
-- owner, so that a policy could hide rows from the purge, the absence proof
-- or the inventory: null when it cannot, else the problem in words. RLS does
-- not apply to a role with BYPASSRLS (community_deletion_owner has it when a
-- superuser created it, db/engine/roles.sql), nor to the table's owner unless
-- the table FORCEs row-level security. On a managed server the engine owner
-- has no BYPASSRLS (only a superuser may grant it), so a registered table
-- with row-level security enabled is refused by register_scoped_table /
-- register_unscoped_table and reported by validate_catalog.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._row_security_problem(p_rel pg_catalog.regclass)
  returns text
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select case
           when not c.relrowsecurity then null
           when (select r.rolbypassrls from pg_catalog.pg_roles r where r.rolname = 'community_deletion_owner') then null
           when not c.relforcerowsecurity and pg_catalog.pg_has_role('community_deletion_owner', c.relowner, 'USAGE') then null
           else 'row-level security applies to community_deletion_owner (it has no BYPASSRLS'
                || case when c.relforcerowsecurity then ' and the table FORCEs row-level security' else ' and does not own the table' end
                || ')'
         end
    from pg_catalog.pg_class c
   where c.oid = p_rel);
end;
$$;
--! EndIncluded functions/_row_security_problem.sql
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
begin
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
             and t.tgfoid in (pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()'),
                              pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_write_early()'),
                              pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_truncate()'))) f
   where x <> all (v_scoped);
  -- The shape of every registered scoped and provenance table that exists.
  select coalesce(array_agg(format('%s: %s', s.label, array_to_string(s.problems, ', ')) order by s.label collate "C"), '{}')
    into v_shape
    from (select community_deletion._table_label(r.schema_name, r.table_name) as label,
                 array_remove(array[
                   case when x.inheritance is not null then 'it is ' || x.inheritance end,
                   case when r.kind = 'scoped' and not exists (
                          select 1 from pg_catalog.pg_attribute a
                           where a.attrelid = x.rel and a.attname = 'community_id' and not a.attisdropped
                             and a.atttypid = 'pg_catalog.uuid'::pg_catalog.regtype and a.attnotnull)
                        then 'community_id is not uuid not null' end,
                   case when x.columns <> array[r.community_column]
                        then format('the columns holding a community are %s, registered: %s',
                                    coalesce(nullif(array_to_string(x.columns, ', '), ''), 'none'),
                                    r.community_column) end,
                   case when r.kind = 'provenance' and exists (
                          select 1 from pg_catalog.pg_attribute a
                           where a.attrelid = x.rel and a.attname = r.community_column and a.attnotnull)
                        then r.community_column || ' is NOT NULL (the purge nulls it)' end,
                   case when not community_deletion._has_leading_index(x.rel, r.community_column)
                        then 'no valid index leads with ' || r.community_column end], null)
                 || case r.kind when 'scoped' then community_deletion._fence_trigger_problems(x.rel)
                                else community_deletion._provenance_guard_problems(x.rel, r.community_column) end
                 || community_deletion._foreign_key_index_problems(x.rel)
                 || community_deletion._invoker_code_problems(x.rel, case r.kind when 'scoped' then 'delete' else 'update' end)
                   as problems
            from community_deletion.registered_tables r
            -- Each computed once per table (offset 0 keeps the planner from
            -- inlining the subqueries, which evaluates them at every use).
            cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel offset 0) o
            cross join lateral (select o.rel, community_deletion._inheritance_role(o.rel) as inheritance,
                                       community_deletion._community_columns(o.rel) as columns offset 0) x
           where r.kind in ('scoped', 'provenance') and x.rel is not null) s
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
  select 24
$$;
--! EndIncluded functions/schema_version.sql
