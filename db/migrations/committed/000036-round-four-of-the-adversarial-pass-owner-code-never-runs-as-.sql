--! Previous: sha1:94892c6439ab0a133ecc68936a5b76c1ccb6a288
--! Hash: sha1:42ae70efbb9ceb47995aa06a5cc3f38b169774ce
--! Message: Round four of the adversarial pass: owner code never runs as the engine on read paths, through foreign-key actions, or through domains inside composite types

-- Round four of the adversarial pass: code another role attached never runs
-- as the engine owner on the paths that only read, through a foreign key's
-- action, or through a domain inside a composite type.
--  * _refuse_planner_code (new): right before the engine reads registered
--    tables — plan's and the frozen inventory's counts, the inventory
--    difference, the absence proof, the TRUNCATE guard — they are locked
--    (SHARE UPDATE EXCLUSIVE where the caller does not hold the
--    schema-destruction lock) and checked for index expressions and
--    predicates, extended-statistics expressions and domain constraints
--    calling untrusted functions, and row-level security: the planner folds
--    an immutable function with constant arguments when it loads them, as
--    the engine owner. plan, _schema_manifest, _inventory_difference and
--    _prove_postgres_absence are volatile now (they lock).
--  * The TRUNCATE guard reads the table only when some community is not
--    active.
--  * _invoker_code_problems_of follows foreign keys with an action (ON
--    DELETE CASCADE / SET NULL / SET DEFAULT, ON UPDATE …) to the tables they
--    change, at any depth (their AFTER triggers fire as the engine owner),
--    and every type a column is built from (arrays, domains, composite
--    attributes, ranges, multiranges) for domain constraints.
--  * _keyset_columns refuses array key columns (an array of a composite can
--    hold a domain whose CHECK the lookup's cast would run).
--! Included functions/_invoker_code_problems.sql
-- Code another role could have attached to relation p_rel that would run as
-- the engine owner (community_deletion_owner) when one of the engine's own
-- statements changes the table: p_event 'delete' (the purge of a scoped
-- table) or 'update' (a provenance table's community column nulled; the
-- lifecycle columns of public.communities) — or only plans a read of it:
-- p_event 'select' (the counts, the absence proof; only what every event
-- reports, below). The engine's statements run
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
--   * the same for every table a foreign key with an action reaches from
--     p_rel, at any depth (ON DELETE CASCADE: its DELETE triggers and
--     rules; SET NULL / SET DEFAULT, and ON UPDATE actions for 'update':
--     its UPDATE ones, CHECK constraints and generated columns): PostgreSQL
--     runs the action as that table's owner, but the AFTER triggers it
--     queues fire as the engine owner when the engine's statement ends;
--   * for every event: every index expression or predicate, and every
--     expression of an extended statistics object, that calls an untrusted
--     function, directly or through an operator — the planner evaluates
--     them (an immutable function with constant arguments is folded) when
--     it plans any statement on the table, a DELETE or a SELECT of the
--     engine's as much as an UPDATE — and every constraint of a column's
--     domain (or of a domain that domain is based on, at any depth) that
--     calls one: a value cast to the column's type runs it — every domain
--     a column's type is built from: through arrays, domains, composite
--     types' attributes, ranges and multiranges, at any depth;
--   * for 'update' also: every CHECK constraint or generated column that
--     calls an untrusted function;
--   * row-level security that applies to the engine owner
--     (_row_security_problem, same words): a policy's expressions run as the
--     role whose statement reads the table. The engine's security-definer
--     functions set row_security off, so such a statement fails (42501)
--     before any policy code runs; this names the cause first.
-- Foreign-key checks and the actions' own statements are not code of this
-- kind: PostgreSQL runs them as the owner of the table they read or change. Returns the problems
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
--! EndIncluded functions/_invoker_code_problems_of.sql
--! Included functions/_refuse_planner_code.sql
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
      using errcode = '22023';
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
--! EndIncluded functions/_refuse_planner_code.sql
--! Included functions/_keyset_columns.sql
-- The key columns, community column first, of the index a bounded purge
-- batch walks p_table's community in (community_deletion._purge_batch,
-- "keyset continuation"), or NULL when p_table has none. Eligible: a valid,
-- ready, non-partial, unique btree index of an ordinary table whose first
-- key column is p_column and which has at least one more key column; every
-- key column a plain NOT NULL column (no expression), ascending, nulls last,
-- with its type's default btree operator class and the column's own
-- collation, and of a base type that is not an array (not a domain,
-- composite, enum or an array, which can be of a composite holding a
-- domain: a lookup
-- turns the recorded key back into the column's type, and a domain's
-- CHECK — code its owner wrote — would run as the engine owner) — so that ORDER BY the columns and a row comparison on them
-- (t.a, t.b) > (x, y) follow the index's order and can start the scan at a
-- position. Of several, the one with fewest key columns (then lowest oid).
-- Which rows a lookup finds never depends on this choice for correctness:
-- a unit is completed only by a lookup from the start of the community.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._keyset_columns(p_table regclass, p_column text)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select cols.names
    from pg_catalog.pg_class c
    join pg_catalog.pg_index i on i.indrelid = c.oid
    join pg_catalog.pg_class ic on ic.oid = i.indexrelid
    join pg_catalog.pg_am am on am.oid = ic.relam
    cross join lateral (
      select array_agg(a.attname::text order by k.n) as names,
             bool_and(k.attnum > 0 and a.attnotnull and not a.attisdropped
                      and k.opt = 0 and k.coll = a.attcollation and oc.opcdefault
                      and ty.typtype = 'b' and ty.typcategory <> 'A') as plain
        from unnest(i.indkey::int2[], i.indoption::int2[], i.indcollation::oid[], i.indclass::oid[])
               with ordinality as k(attnum, opt, coll, opclass, n)
        left join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
        left join pg_catalog.pg_opclass oc on oc.oid = k.opclass
        left join pg_catalog.pg_type ty on ty.oid = a.atttypid
       where k.n <= i.indnkeyatts) cols
   where c.oid = p_table and c.relkind = 'r'
     and am.amname = 'btree' and i.indisunique and i.indisvalid and i.indisready and i.indpred is null
     and i.indnkeyatts >= 2 and cols.plain and cols.names[1] = p_column
   order by i.indnkeyatts, i.indexrelid
   limit 1);
end;
$$;
--! EndIncluded functions/_keyset_columns.sql
--! Included functions/_schema_manifest.sql
-- Computes the schema half of a frozen inventory for one community, in SQL:
-- {"scoped_tables": [sorted], "row_counts": {table: rows}, "fenced_tables": [sorted]}.
-- Row counts are observational evidence bound into the approved digest; the
-- executor never requires them to stay equal (it fences, purges and proves zero).
-- Callers validate the catalog first, so the registry equals the live catalog.
-- Before counting, every scoped table is locked SHARE UPDATE EXCLUSIVE and
-- checked for code another role attached that the planner would run as the
-- engine owner (_refuse_planner_code, DL7C1): the caller (freeze_inventory)
-- does not hold the schema-destruction lock, so an index could otherwise be
-- added between the validation and the counts.
create or replace function community_deletion._schema_manifest(p_community uuid)
  returns jsonb
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_table record;
  v_tables text[] := '{}';
  v_count bigint;
  v_counts jsonb := '{}'::jsonb;
begin
  perform community_deletion._refuse_planner_code(
    (select pg_catalog.array_agg(community_deletion._registered_relation(r.schema_name, r.table_name))
       from community_deletion.registered_tables r where r.kind = 'scoped'),
    'share update exclusive');
  for v_table in
    select l.label, r.schema_name, r.table_name
      from community_deletion.registered_tables r
      cross join lateral (select community_deletion._table_label(r.schema_name, r.table_name) as label) l
     where r.kind = 'scoped'
     order by l.label collate "C"
  loop
    execute format('select count(*) from %I.%I where community_id = $1', v_table.schema_name, v_table.table_name)
      into v_count using p_community;
    v_tables := v_tables || v_table.label;
    v_counts := v_counts || jsonb_build_object(v_table.label, v_count);
  end loop;
  return jsonb_build_object(
    'scoped_tables', to_jsonb(v_tables),
    'row_counts', v_counts,
    'fenced_tables', to_jsonb(community_deletion._live_fenced_tables()));
end;
$$;
--! EndIncluded functions/_schema_manifest.sql
--! Included functions/_inventory_difference.sql
-- What changed between the approved inventory (p_inventory: {"schema", "storage"})
-- and the community as the destructive step found it after the fence: the
-- rows of every registered scoped table counted now and the post-fence
-- storage manifest p_destructive. Recorded by
-- community_deletion.freeze_destructive_manifest on the request
-- (destructive_difference) and shown by `deletions inspect`.
-- {"changed": bool,
--  "tables":   [{"table", "approved_rows", "fenced_rows", "appeared", "vanished"}],
--  "prefixes": [{"prefix", "approved_versions", "fenced_versions", "appeared", "vanished", "content_changed"}]}
-- appeared / vanished are net counts (the approved inventory keeps counts and
-- digests, not every key): appeared = max(fenced - approved, 0), vanished =
-- max(approved - fenced, 0). content_changed compares the prefix digests
-- (the same count can hide a replaced version); null when the two
-- enumerations used different chunk sizes (their digests are not comparable).
-- A table absent on one side counts 0 there; a table that no longer exists
-- has fenced_rows null (the purge's catalog check will refuse it).
-- The tables are locked and checked first as _schema_manifest's are
-- (_refuse_planner_code, DL7C1).
create or replace function community_deletion._inventory_difference(p_community uuid, p_inventory jsonb, p_destructive jsonb)
  returns jsonb
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_approved_counts jsonb := coalesce(p_inventory -> 'schema' -> 'row_counts', '{}'::jsonb);
  v_now jsonb := '{}'::jsonb;
  v_table record;
  v_count bigint;
  v_tables jsonb;
  v_prefixes jsonb;
  v_comparable boolean := (p_inventory -> 'storage' -> 'chunk_size') = (p_destructive -> 'chunk_size');
begin
  perform community_deletion._refuse_planner_code(
    (select pg_catalog.array_agg(community_deletion._registered_relation(r.schema_name, r.table_name))
       from community_deletion.registered_tables r where r.kind = 'scoped'),
    'share update exclusive');
  for v_table in
    select community_deletion._table_label(r.schema_name, r.table_name) as label,
           community_deletion._registered_relation(r.schema_name, r.table_name) as rel
      from community_deletion.registered_tables r
     where r.kind = 'scoped'
  loop
    v_count := null;
    if v_table.rel is not null then
      execute format('select count(*) from %s where community_id = $1', v_table.rel) into v_count using p_community;
    end if;
    v_now := v_now || jsonb_build_object(v_table.label, v_count);
  end loop;

  select coalesce(jsonb_agg(jsonb_build_object(
           'table', t.label,
           'approved_rows', t.approved,
           'fenced_rows', t.fenced,
           'appeared', greatest(coalesce(t.fenced, 0) - t.approved, 0),
           'vanished', greatest(t.approved - coalesce(t.fenced, 0), 0)) order by t.label collate "C"), '[]'::jsonb)
    into v_tables
    from (select l.label,
                 coalesce((v_approved_counts ->> l.label)::bigint, 0) as approved,
                 case when v_now ? l.label then (v_now ->> l.label)::bigint else 0 end as fenced
            from (select k as label from jsonb_object_keys(v_approved_counts) k
                  union
                  select k from jsonb_object_keys(v_now) k) l) t;

  select coalesce(jsonb_agg(jsonb_build_object(
           'prefix', p.prefix,
           'approved_versions', p.approved,
           'fenced_versions', p.fenced,
           'appeared', greatest(p.fenced - p.approved, 0),
           'vanished', greatest(p.approved - p.fenced, 0),
           'content_changed', case when v_comparable then p.approved_digest is distinct from p.fenced_digest end)
           order by p.prefix collate "C"), '[]'::jsonb)
    into v_prefixes
    from (select coalesce(a.e ->> 'prefix', d.e ->> 'prefix') as prefix,
                 coalesce((a.e ->> 'object_count')::bigint, 0) as approved,
                 coalesce((d.e ->> 'object_count')::bigint, 0) as fenced,
                 a.e ->> 'keys_digest' as approved_digest,
                 d.e ->> 'keys_digest' as fenced_digest
            from jsonb_array_elements(coalesce(p_inventory -> 'storage' -> 'prefixes', '[]'::jsonb)) a(e)
            full join jsonb_array_elements(coalesce(p_destructive -> 'prefixes', '[]'::jsonb)) d(e)
              on a.e ->> 'prefix' = d.e ->> 'prefix') p;

  return jsonb_build_object(
    'changed', exists (select 1 from jsonb_array_elements(v_tables) e
                        where (e ->> 'appeared')::bigint > 0 or (e ->> 'vanished')::bigint > 0
                           or jsonb_typeof(e -> 'fenced_rows') = 'null')
               or exists (select 1 from jsonb_array_elements(v_prefixes) e
                           where (e ->> 'appeared')::bigint > 0 or (e ->> 'vanished')::bigint > 0
                              or (e ->> 'content_changed')::boolean is true),
    'tables', v_tables,
    'prefixes', v_prefixes);
end;
$$;
--! EndIncluded functions/_inventory_difference.sql
--! Included functions/_prove_postgres_absence.sql
-- The PostgreSQL half of the absence proof, run inside the caller's
-- transaction after it took the shared schema-destruction lock and
-- re-validated the catalog: the community is a tombstone at exactly
-- p_fence_generation (DL8T1 otherwise) and no registered scoped or provenance
-- table holds a row for it (DL9A1 naming the table). Returns the number of
-- tables checked. The registry is read live, so a table registered after the
-- purge is part of the proof and fails it closed if it holds tenant rows.
-- Before the probes every scoped and provenance table is checked for code
-- another role attached that the planner would run as the engine owner
-- (_refuse_planner_code, DL7C1; ACCESS SHARE: the callers hold the
-- schema-destruction lock, which every DDL waits for).
create or replace function community_deletion._prove_postgres_absence(
  p_request_id uuid,
  p_community uuid,
  p_fence_generation bigint)
  returns integer
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
  -- Each probe is an index scan on the index leading with the community
  -- column that stops at the first live row: a sequential scan (what the
  -- planner picks when its statistics still say the community fills the
  -- table) would read every dead row the purge left, growing with the tenant;
  -- a bitmap scan would read the whole key range. The proof is the same.
  -- A table the bounded purge walked in the order of its keyset index
  -- (community_deletion._keyset_columns) is probed in that order, through
  -- that index (sorting is off): the purge's last lookups walked its
  -- entries after every removal had committed and marked them dead, so the
  -- probe steps over them a page at a time; the table's other indexes hold
  -- the same rows' entries unmarked, and a probe through one of them (the
  -- planner's choice, often the smallest) checks each removed row's heap
  -- tuple — 0.8 s at 5 M rows.
  -- With those off every plan's cost is above jit_above_cost: compiling the
  -- probes and the registry's query took 170 ms of a 0.96 s proof at 5 M rows.
  set enable_seqscan = off
  set enable_bitmapscan = off
  set enable_sort = off
  set jit = off
as $$
declare
  v_table record;
  v_remains boolean;
  v_checked integer := 0;
  v_keys text[];
begin
  if not exists (select 1 from public.communities c
                 where c.id = p_community and c.deletion_state = 'tombstone'
                   and c.deleted_at is not null and c.deletion_fence_generation = p_fence_generation) then
    raise exception 'request %: community % is not a tombstone at fence generation %',
      p_request_id, p_community, p_fence_generation
      using errcode = 'DL8T1',
            hint = 'The community row changed outside the engine after the purge; investigate before unblocking.';
  end if;
  perform community_deletion._refuse_planner_code(
    (select pg_catalog.array_agg(community_deletion._registered_relation(r.schema_name, r.table_name))
       from community_deletion.registered_tables r where r.kind in ('scoped', 'provenance')),
    'access share');
  for v_table in
    select community_deletion._table_label(t.schema_name, t.table_name) as label, t.schema_name, t.table_name, t.community_column
      from community_deletion.registered_tables t
     where t.kind in ('scoped', 'provenance')
     order by 1
  loop
    v_keys := community_deletion._keyset_columns(to_regclass(format('%I.%I', v_table.schema_name, v_table.table_name)),
                                                  v_table.community_column);
    if v_keys is null then
      execute format('select exists (select 1 from %I.%I where %I = $1)', v_table.schema_name, v_table.table_name,
                     v_table.community_column)
        into v_remains using p_community;
    else
      -- (An ORDER BY inside EXISTS is dropped by the planner: the probe is a
      -- plain query with a limit.)
      execute format('select true from %I.%I t where t.%I = $1 order by %s limit 1', v_table.schema_name, v_table.table_name,
                     v_table.community_column, (select string_agg(format('t.%I', k), ', ' order by n)
                                                  from unnest(v_keys) with ordinality as u(k, n)))
        into v_remains using p_community;
      v_remains := coalesce(v_remains, false);
    end if;
    if v_remains then
      raise exception 'request %: table % still holds rows of purged community %', p_request_id, v_table.label, p_community
        using errcode = 'DL9A1',
              hint = 'Rows of a tombstoned community reappeared or escaped the purge; investigate the writer before unblocking.';
    end if;
    v_checked := v_checked + 1;
  end loop;
  return v_checked;
end;
$$;
--! EndIncluded functions/_prove_postgres_absence.sql
--! Included functions/plan.sql
-- Operator API: what a deletion of the community with this host (matched
-- case-insensitively, as submit does) would remove from PostgreSQL, without
-- creating a request and without writing anything (it locks every registered
-- table SHARE UPDATE EXCLUSIVE, which waits for no read or write, and refuses
-- with DL7C1 when code another role attached to one of them would run as the
-- engine owner while its count is planned: _refuse_planner_code): for every registered table in purge order —
-- provenance tables first (their community column is set to NULL, rows kept),
-- then the scoped tables in registry purge order, children before parents —
-- the rows the community has there now. Also the community's lifecycle state
-- and its open request, if any. Counts are a snapshot: writes continue until
-- the fence closes, and the executor deletes whatever is there then.
-- Refuses an unknown host (community_not_found, DL1N2) and a tombstoned
-- community (community_not_eligible, DL2C1): it was deleted, nothing is left.
create or replace function community_deletion.plan(host text)
  returns jsonb
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameter under its internal name (bare names are columns).
  p_host alias for $1;
  v_host text := community_deletion._require_text(p_host, 'host', 253);
  v_community public.communities;
  v_unit record;
  v_rows bigint;
  v_tables jsonb := '[]'::jsonb;
  v_delete bigint := 0;
  v_null bigint := 0;
begin
  select c.* into v_community from public.communities c where lower(c.host) = lower(v_host);
  if not found then
    raise exception 'community deletion: no community has host %', v_host
      using errcode = 'DL1N2';
  end if;
  if v_community.deletion_state = 'tombstone' or v_community.deleted_at is not null then
    raise exception 'community % (%) was deleted at %: it is a tombstone, there is nothing left to delete',
      v_community.host, v_community.id, v_community.deleted_at
      using errcode = 'DL2C1',
            hint = 'Its deletion request and checkpoints are the evidence: community_deletion.list_requests.';
  end if;

  perform community_deletion._refuse_planner_code(
    (select pg_catalog.array_agg(community_deletion._registered_relation(r.schema_name, r.table_name))
       from community_deletion.registered_tables r where r.kind in ('scoped', 'provenance')),
    'share update exclusive');
  -- The purge's own order (community_deletion._purge_batch).
  for v_unit in
    select u.label, u.kind, u.purge_order, u.schema_name, u.table_name, u.community_column
      from (select 1 as phase, t.kind, null::integer as purge_order, l.label,
                   t.schema_name, t.table_name, t.community_column
              from community_deletion.registered_tables t
              cross join lateral (select community_deletion._table_label(t.schema_name, t.table_name) as label) l
             where t.kind = 'provenance'
            union all
            select 2, t.kind, t.purge_order, l.label,
                   t.schema_name, t.table_name, t.community_column
              from community_deletion.registered_tables t
              cross join lateral (select community_deletion._table_label(t.schema_name, t.table_name) as label) l
             where t.kind = 'scoped') u
     order by u.phase, u.purge_order, u.label collate "C"
  loop
    execute format('select count(*) from %I.%I where %I = $1',
                   v_unit.schema_name, v_unit.table_name, v_unit.community_column)
      into v_rows using v_community.id;
    v_tables := v_tables || jsonb_build_array(jsonb_build_object(
      'table', v_unit.label,
      'kind', v_unit.kind,
      'action', case v_unit.kind when 'scoped' then 'delete' else 'null_community_column' end,
      'purge_order', v_unit.purge_order,
      'rows', v_rows));
    if v_unit.kind = 'scoped' then v_delete := v_delete + v_rows; else v_null := v_null + v_rows; end if;
  end loop;

  return jsonb_build_object(
    'community_id', v_community.id,
    'host', v_community.host,
    'deletion_state', v_community.deletion_state,
    'archived_at', v_community.archived_at,
    'open_request', (select jsonb_build_object('id', r.id, 'stage', r.stage, 'requested_by', r.requested_by)
                       from community_deletion.requests r
                      where r.community_id = v_community.id and r.stage <> 'aborted'),
    'tables', v_tables,
    'rows_to_delete', v_delete,
    'rows_to_unlink', v_null,
    -- Registered as excluded: their rows stay outside every deletion.
    'excluded_tables', coalesce((select jsonb_agg(jsonb_build_object(
                                   'table', community_deletion._table_label(t.schema_name, t.table_name), 'reason', t.note)
                                   order by community_deletion._table_label(t.schema_name, t.table_name) collate "C")
                                   from community_deletion.registered_tables t where t.kind = 'excluded'), '[]'::jsonb));
end;
$$;
--! EndIncluded functions/plan.sql
--! Included functions/tg_scoped_table__refuse_truncate.sql
-- The write fence's TRUNCATE guard (docs/security.md#table-owners): BEFORE
-- TRUNCATE, FOR EACH STATEMENT, on every registered scoped table
-- (_010_community_write_fence_truncate). TRUNCATE fires no row triggers, so
-- the statement fence never sees it; a table owner could otherwise remove the
-- rows of a community that is being deleted. Refused (55000, like every
-- fenced write) while any community that is not active — quiescing, fenced
-- or a tombstone — has a row in the table; otherwise the host's TRUNCATE goes
-- ahead (the engine's own purge never truncates). Security definer: the
-- truncating role may not read communities; the check only answers whether
-- such a row exists. A community that becomes non-active concurrently is
-- covered by begin_quiescing, which takes ACCESS SHARE on every scoped table
-- and so waits for a TRUNCATE in progress (or the TRUNCATE, queued behind it,
-- sees the committed quiescing state). The table is read only when some
-- community is not active, and only after _refuse_planner_code found no
-- code another role attached that planning the read would run as the engine
-- owner (an index predicate calling the owner's function: DL7C1, the
-- TRUNCATE refused; TRUNCATE already holds ACCESS EXCLUSIVE).
create or replace function community_deletion.tg_scoped_table__refuse_truncate()
  returns trigger
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
declare
  v_community uuid;
begin
  if not exists (select 1 from public.communities c where c.deletion_state <> 'active') then
    return null;
  end if;
  perform community_deletion._refuse_planner_code(array[tg_relid::pg_catalog.regclass], 'access share');
  execute pg_catalog.format(
    'select c.id from public.communities c
      where c.deletion_state <> ''active''
        and exists (select 1 from %I.%I t where t.community_id = c.id)
      limit 1', tg_table_schema, tg_table_name)
    into v_community;
  if v_community is not null then
    raise exception 'community write refused: TRUNCATE on %.% while community % (not active) has rows there',
      tg_table_schema, tg_table_name, v_community
      using errcode = '55000',
            hint = 'A community that is being deleted keeps its rows until the engine purges them; delete other rows with DELETE.';
  end if;
  return null;
end;
$$;
--! EndIncluded functions/tg_scoped_table__refuse_truncate.sql
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
  select 36
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
      '_guard_registered_tables', '_guard_registered_table_rewrite',
      -- the explicit DDL lock (no event trigger on a managed server): every
      -- migrating role calls it, as every role's DDL runs the event trigger
      'ddl_lock',
      -- what is installed: `deletions migrate` asks as the migrating role,
      -- which holds none of the engine roles (they only answer)
      'schema_version', 'write_fence_implementation', 'installation_report',
      -- constants: the stage list (the view community_deletion.stages calls them as its reader)
      '_stages', '_stage_order', '_next_stage', '_stage_is_runnable', '_stage_is_terminal',
      '_stage_is_abortable', '_stage_is_fenced',
      -- the host reservation of the communities guard, which runs as whichever
      -- role inserts or renames a community (pure functions of their argument)
      '_host_key', '_without_invisible', '_punycode_label'));
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
