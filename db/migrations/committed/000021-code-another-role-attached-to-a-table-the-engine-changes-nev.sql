--! Previous: sha1:8aa5d6dd87edb5f2079ccc770af59d1fa815a2d0
--! Hash: sha1:612837039387a5d90baa9636c3b7de8438b9399b
--! Message: Code another role attached to a table the engine changes never runs as the engine owner: validate_catalog reports owner triggers, rules and UPDATE-evaluated expressions calling functions no superuser or engine owner owns (registered scoped tables on DELETE, provenance tables and public.communities on UPDATE); _refuse_invoker_code locks the table ROW EXCLUSIVE and checks again right before each engine statement (DL7C1)

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
--     generated column or constraint of a column's domain that calls an
--     untrusted function, directly or through an operator.
-- Foreign-key checks and actions are not code of this kind: PostgreSQL runs
-- them as the owner of the table they read or change. Returns the problems
-- in words, sorted; empty when there are none.
create or replace function community_deletion._invoker_code_problems(p_rel pg_catalog.regclass, p_event text)
  returns text[]
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  with code as (
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
                                  join pg_catalog.pg_attribute a on a.atttypid = c.contypid
                                 where a.attrelid = p_rel and a.attnum > 0 and not a.attisdropped)))
  )
  select coalesce(pg_catalog.array_agg(distinct c.what), '{}')
    from code c
    left join pg_catalog.pg_proc p on p.oid = c.fn
   where c.always
      or (p.oid is not null
          and p.proowner <> (select r.oid from pg_catalog.pg_roles r where r.rolname = 'community_deletion_owner')
          and not (select r.rolsuper from pg_catalog.pg_roles r where r.oid = p.proowner))
$$;
--! EndIncluded functions/_invoker_code_problems.sql
--! Included functions/_refuse_invoker_code.sql
-- Refuses (catalog_drift, DL7C1), right before one of the engine's own
-- statements changes relation p_rel (p_event 'delete' or 'update'), when
-- code another role attached to it would run as the engine owner
-- (_invoker_code_problems, listed in the message). The table is locked
-- first in ROW EXCLUSIVE mode — what the statement takes anyway — which
-- conflicts with CREATE TRIGGER, ENABLE TRIGGER, CREATE RULE, CREATE INDEX
-- and the ALTER TABLE forms that add constraints or columns: what is
-- checked here is what the engine's statements run until the transaction
-- ends. (validate_catalog reports the same problems earlier, at claim.)
create or replace function community_deletion._refuse_invoker_code(p_rel pg_catalog.regclass, p_event text)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_problems text[];
begin
  execute pg_catalog.format('lock table %s in row exclusive mode', p_rel);
  v_problems := community_deletion._invoker_code_problems(p_rel, p_event);
  if pg_catalog.cardinality(v_problems) > 0 then
    raise exception 'community deletion catalog drift: on %, code another role attached would run as the engine owner when the engine changes its rows (%): %',
      p_rel, p_event, pg_catalog.array_to_string(v_problems, ', ')
      using errcode = 'DL7C1',
            detail = pg_catalog.jsonb_build_object('table', p_rel::text, 'event', p_event, 'code', v_problems)::text,
            hint = 'Drop the trigger or rule, or have a superuser own its function (a SECURITY DEFINER function '
                   'its owner controls is not enough); then unblock the request (deletions unblock ID).';
  end if;
end;
$$;
--! EndIncluded functions/_refuse_invoker_code.sql
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
--   5. row-level security of a registered scoped or provenance table does
--      not apply to the engine owner (_row_security_problem: without
--      BYPASSRLS, on a managed server, a policy could hide rows from the
--      purge and the absence proof);
--   6. every foreign key of a registered scoped or provenance table that
--      references a registered scoped table has an index leading with its
--      referencing columns (_foreign_key_index_problems: without it the
--      purge is quadratic);
--   7. no code another role attached to a registered scoped table (on
--      DELETE), provenance table or public.communities (on UPDATE) would run
--      as the engine owner when the engine changes their rows: a trigger or
--      expression calling a function no superuser or engine owner owns, or
--      a rule (_invoker_code_problems; _refuse_invoker_code checks it again,
--      under lock, right before each such statement).
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
                   case when community_deletion._inheritance_role(x.rel) is not null
                        then 'it is ' || community_deletion._inheritance_role(x.rel) end,
                   case when r.kind = 'scoped' and not exists (
                          select 1 from pg_catalog.pg_attribute a
                           where a.attrelid = x.rel and a.attname = 'community_id' and not a.attisdropped
                             and a.atttypid = 'pg_catalog.uuid'::pg_catalog.regtype and a.attnotnull)
                        then 'community_id is not uuid not null' end,
                   case when community_deletion._community_columns(x.rel) <> array[r.community_column]
                        then format('the columns holding a community are %s, registered: %s',
                                    coalesce(nullif(array_to_string(community_deletion._community_columns(x.rel), ', '), ''), 'none'),
                                    r.community_column) end,
                   case when r.kind = 'provenance' and exists (
                          select 1 from pg_catalog.pg_attribute a
                           where a.attrelid = x.rel and a.attname = r.community_column and a.attnotnull)
                        then r.community_column || ' is NOT NULL (the purge nulls it)' end,
                   case when not community_deletion._has_leading_index(x.rel, r.community_column)
                        then 'no valid index leads with ' || r.community_column end,
                   community_deletion._row_security_problem(x.rel)], null)
                 || case r.kind when 'scoped' then community_deletion._fence_trigger_problems(x.rel)
                                else community_deletion._provenance_guard_problems(x.rel, r.community_column) end
                 || community_deletion._foreign_key_index_problems(x.rel)
                 || community_deletion._invoker_code_problems(x.rel, case r.kind when 'scoped' then 'delete' else 'update' end)
                   as problems
            from community_deletion.registered_tables r
            cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
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
--! Included functions/_purge_batch.sql
-- The PostgreSQL purge's unit of work, shared by purge_postgres_batch (one
-- bounded batch per transaction) and purge_postgres (everything in one
-- transaction): removes rows of community p_community within a budget (no
-- limit when p_budget is null), continuing where the request's checkpoints
-- say the purge stands. Work units, in this order:
--   * every provenance table, by label: its community column set to NULL,
--     rows kept ('clear_provenance:<label>');
--   * every scoped table in registry purge order, children before parents
--     ('purge:<label>'); read-state rows need the caller's transaction-local
--     community_deletion.read_state_hard_delete opt-in.
-- A batch is bounded twice:
--   * in cost (p_budget, settings.purge_batch_rows), a hard cap: a row of a
--     unit costs its weight — 1 for a provenance row (nulling its community
--     column fires no foreign key check) and 1 + the number of foreign keys
--     referencing the table for a scoped row (deleting a parent row runs one
--     check, or ON DELETE action, per referencing foreign key), counted from
--     pg_constraint at batch time; a unit's allowance is the remaining budget
--     / its weight (at least one row when the batch has spent nothing yet);
--   * in time (p_target, settings.purge_batch_target; null: cost only): the
--     rows' work aims at p_target. The cost of a row is not knowable from the
--     catalog alone (how many child rows a foreign key check walks, whether
--     they are in shared buffers, triggers, TOAST), so each unit measures it:
--     the first statement of a unit is a probe of at most 100 rows, and every
--     later statement — in this batch, or the unit's first in the next one —
--     takes what fits in the batch's remaining time at the unit's last
--     measured microseconds per row (at least 100 rows while time is left),
--     growing at most fourfold over the unit's previous statement. When the time is spent the batch ends (the
--     first statement of a batch always moves at least one row, so every
--     batch makes progress). The measured rate is kept in the checkpoint
--     (detail us_per_row, last_rows), so a new batch starts at the pace of
--     the last one. Batch boundaries depend on measured time; what is
--     removed, in which order and with which totals does not.
-- A unit whose checkpoint is completed is skipped. Otherwise its rows are
-- found through the index leading with the community column and removed by
-- ctid, and its checkpoint is upserted in the batch's transaction with the
-- running total (detail rows and batches; attempts counts the batches):
-- 'started' while rows may remain, 'completed' once a lookup found fewer
-- rows than allowed — the table holds no more, because the community is
-- fenced and nothing writes it. In a bounded batch that lookup must also be
-- the unit's first removal-free one in the batch: a unit emptied by a batch
-- is completed by the next (its lookup walks the index entries of the rows
-- the last batch removed, so the absence proof does not walk them all at
-- once), and the batch that finds every unit completed reports done. Small
-- tables share a batch; a large one spans many. A batch that does not commit leaves rows and checkpoints
-- exactly as they were, so the totals always equal what is gone.
-- The caller holds the shared schema-destruction lock, re-validated the
-- catalog, holds the community lock exclusively and verified lease and fence
-- generation. Returns {"rows": removed or nulled in this call, "cost": their
-- weighted cost, "done": true once every unit is completed}.
create or replace function community_deletion._purge_batch(
  p_request_id uuid, p_community uuid, p_stage text, p_generation bigint, p_budget bigint,
  p_target interval default null)
  returns jsonb
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  c_probe_rows constant bigint := 100;
  c_growth constant bigint := 4;
  v_started timestamptz := clock_timestamp();
  -- The time target in microseconds; only a bounded batch has one.
  v_target_us numeric := case when p_budget is not null then extract(epoch from p_target) * 1000000 end;
  v_unit record;
  v_status text;
  v_detail jsonb;
  v_by_cost bigint;
  v_by_time bigint;
  v_allowed bigint;
  v_rows bigint;
  v_unit_rows bigint;
  v_statements integer;
  v_full boolean;
  v_completed boolean;
  v_done boolean := true;
  v_rate numeric;
  v_last bigint;
  v_left numeric;
  v_t0 timestamptz;
  v_removed bigint := 0;
  v_spent bigint := 0;
  v_ctids tid[];
  v_seqscan text := current_setting('enable_seqscan');
  v_bitmapscan text := current_setting('enable_bitmapscan');
begin
  if p_budget is not null and p_budget < 1 then
    raise exception 'purge batch budget must be positive, got %', p_budget using errcode = 'DL1I1';
  end if;
  if v_target_us is not null and v_target_us <= 0 then
    raise exception 'purge batch target must be positive, got %', p_target using errcode = 'DL1I1';
  end if;
  for v_unit in
    select u.unit_key, u.schema_name, u.table_name, u.community_column, u.nulls_column, u.weight
      from (select 1 as phase, 0 as purge_order, l.label, 'clear_provenance:' || l.label as unit_key,
                   t.schema_name, t.table_name, t.community_column, true as nulls_column, 1::bigint as weight
              from community_deletion.registered_tables t
              cross join lateral (select community_deletion._table_label(t.schema_name, t.table_name) as label) l
             where t.kind = 'provenance'
            union all
            select 2, t.purge_order, l.label, 'purge:' || l.label,
                   t.schema_name, t.table_name, t.community_column, false, 1 + coalesce(fk.n, 0)
              from community_deletion.registered_tables t
              cross join lateral (select community_deletion._table_label(t.schema_name, t.table_name) as label) l
              left join (select c.confrelid, count(*) as n
                           from pg_catalog.pg_constraint c
                          where c.contype = 'f' and c.conparentid = 0
                          group by c.confrelid) fk
                on fk.confrelid = to_regclass(format('%I.%I', t.schema_name, t.table_name))
             where t.kind = 'scoped') u
     order by u.phase, u.purge_order, u.label collate "C"
  loop
    select cp.status, cp.detail into v_status, v_detail
      from community_deletion.checkpoints cp
     where cp.request_id = p_request_id and cp.stage = p_stage and cp.unit_key = v_unit.unit_key;
    continue when v_status = 'completed';
    -- No code another role attached to the table runs as the engine owner
    -- in this unit's statements (locked, then checked: DL7C1).
    perform community_deletion._refuse_invoker_code(to_regclass(format('%I.%I', v_unit.schema_name, v_unit.table_name)),
                                                     case when v_unit.nulls_column then 'update' else 'delete' end);
    -- The unit's pace as the last batch measured it (null: never measured).
    v_rate := (v_detail ->> 'us_per_row')::numeric;
    v_last := (v_detail ->> 'last_rows')::bigint;
    v_unit_rows := 0;
    v_statements := 0;
    v_full := false;
    v_completed := false;
    loop
      -- The allowance in cost: what is left of the budget, in this unit's rows.
      v_by_cost := case when p_budget is null then null
                        when v_spent = 0 then greatest(1, p_budget / v_unit.weight)
                        else (p_budget - v_spent) / v_unit.weight end;
      -- The allowance in time: nothing once the time is spent, else a probe
      -- for a unit never measured, else what fits in the time left at the
      -- unit's pace — at least a probe's worth (a statement's fixed cost,
      -- such as a lookup that walks many dead index entries, must not shrink
      -- the next statement towards a single row), at most c_growth times the
      -- unit's previous statement. A batch that has removed nothing yet
      -- always moves at least one row.
      v_by_time := null;
      if v_target_us is not null then
        v_left := v_target_us - extract(epoch from clock_timestamp() - v_started) * 1000000;
        v_by_time := case when v_left <= 0 then 0
                          when v_rate is null or v_last is null then c_probe_rows
                          else least(greatest(floor(v_left / greatest(v_rate, 0.001)), c_probe_rows),
                                     c_growth * v_last) end;
        if v_by_time < 1 and v_spent = 0 then
          v_by_time := 1;
        end if;
      end if;
      v_allowed := least(v_by_cost, v_by_time);
      if v_allowed = 0 then
        v_full := true;
        exit;
      end if;
      -- A bounded batch finds its rows through the index leading with the
      -- community column, never a sequential scan: the planner's statistics
      -- predate the purge, so for a community holding most of a table it
      -- would read the heap from its start past every row earlier batches
      -- deleted (each batch slower than the last); nor a bitmap scan, which
      -- reads the whole key range before the limit. Only this lookup runs so
      -- planned: the statement that removes the rows (and the triggers and
      -- foreign key checks it fires) runs with the caller's settings.
      v_t0 := clock_timestamp();
      if p_budget is not null then
        perform set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true);
      end if;
      execute format('select array(select ctid from %1$I.%2$I where %3$I = $1 limit $2)',
                     v_unit.schema_name, v_unit.table_name, v_unit.community_column)
        into v_ctids using p_community, v_allowed;
      perform set_config('enable_seqscan', v_seqscan, true), set_config('enable_bitmapscan', v_bitmapscan, true);
      if v_unit.nulls_column then
        execute format('update %1$I.%2$I set %3$I = null where ctid = any ($2) and %3$I = $1',
                       v_unit.schema_name, v_unit.table_name, v_unit.community_column)
          using p_community, v_ctids;
      else
        execute format('delete from %1$I.%2$I where ctid = any ($2) and %3$I = $1',
                       v_unit.schema_name, v_unit.table_name, v_unit.community_column)
          using p_community, v_ctids;
      end if;
      get diagnostics v_rows = row_count;
      v_statements := v_statements + 1;
      v_unit_rows := v_unit_rows + v_rows;
      v_removed := v_removed + v_rows;
      v_spent := v_spent + v_rows * v_unit.weight;
      if v_rows > 0 then
        v_rate := round((extract(epoch from clock_timestamp() - v_t0) * 1000000 / v_rows)::numeric, 3);
        v_last := v_rows;
      end if;
      if v_allowed is null or v_rows < v_allowed then
        -- Fewer rows than allowed: the table holds no more of the community.
        -- A bounded batch marks the unit completed only when its lookup
        -- found it empty without having removed any of it in this batch:
        -- otherwise the index entries of the rows just removed are walked
        -- (and, their deletion committed, marked dead) by the next batch's
        -- lookup, which completes the unit — not by the absence proof in
        -- finish_postgres_purge, which would walk every table's last
        -- removed rows at once.
        v_completed := p_budget is null or v_unit_rows = 0;
        exit;
      end if;
      if v_by_cost is not null and v_rows >= v_by_cost then
        -- The budget is spent and this table may hold more: the next batch goes on here.
        v_full := true;
        exit;
      end if;
      -- Sized by time: the unit goes on while the batch has time left.
    end loop;
    if v_statements > 0 then
      perform community_deletion._checkpoint(p_request_id, p_stage, v_unit.unit_key,
        case when v_completed then 'completed' else 'started' end, p_generation,
        jsonb_build_object('rows', coalesce((v_detail ->> 'rows')::bigint, 0) + v_unit_rows,
                           'batches', coalesce((v_detail ->> 'batches')::bigint, 0) + 1)
        || case when v_rate is null then '{}'::jsonb
                else jsonb_build_object('us_per_row', v_rate, 'last_rows', v_last) end);
    end if;
    if v_full then
      return jsonb_build_object('rows', v_removed, 'cost', v_spent, 'done', false);
    end if;
    v_done := v_done and v_completed;
  end loop;
  return jsonb_build_object('rows', v_removed, 'cost', v_spent, 'done', v_done);
end;
$$;
--! EndIncluded functions/_purge_batch.sql
--! Included functions/_tombstone_community.sql
-- Turns a fenced community into its permanent tombstone: deletion_state
-- 'tombstone', deleted_at and archived_at set, signing key and icon cleared.
-- Only if it is still fenced at exactly p_fence_generation (an abort or a
-- newer fence changes one of the two); returns whether it did. Kept as the
-- single place the purge writes communities, so the tombstone guard has one
-- sanctioned writer to admit.
create or replace function community_deletion._tombstone_community(p_community uuid, p_fence_generation bigint)
  returns boolean
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  perform community_deletion._refuse_invoker_code('public.communities', 'update');
  update public.communities c
     set deletion_state = 'tombstone',
         deleted_at = coalesce(c.deleted_at, now()),
         archived_at = coalesce(c.archived_at, now()),
         signing_key = null,
         icon = null
   where c.id = p_community
     and c.deletion_state = 'fenced'
     and c.deletion_fence_generation = p_fence_generation;
  return found;
end;
$$;
--! EndIncluded functions/_tombstone_community.sql
--! Included functions/_restore_community.sql
-- Abort's community restoration (docs/design.md#failure-handling), kept in one helper so the fence
-- workstream can adjust how it passes the communities lifecycle guard: back to
-- active, archived_at restored to its pre-quiesce value when quiescing had
-- captured it (p_restore_archived), and deletion_fence_generation bumped so
-- every stale executor token and serving lease fails closed. Returns the new
-- generation; refuses (community_not_eligible, DL2C1) a deleted/tombstoned
-- community. The caller holds the exclusive community lock.
create or replace function community_deletion._restore_community(
  p_community uuid, p_archived_at timestamptz, p_restore_archived boolean)
  returns bigint
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_generation bigint;
begin
  perform community_deletion._refuse_invoker_code('public.communities', 'update');
  update public.communities c
     set deletion_state = 'active',
         deletion_fence_generation = c.deletion_fence_generation + 1,
         archived_at = case when p_restore_archived then p_archived_at else c.archived_at end
   where c.id = p_community
     and c.deletion_state in ('active', 'quiescing', 'fenced')
     and c.deleted_at is null
  returning c.deletion_fence_generation into v_generation;
  if not found then
    raise exception 'community % cannot be restored: it is missing, deleted or tombstoned', p_community
      using errcode = 'DL2C1';
  end if;
  return v_generation;
end;
$$;
--! EndIncluded functions/_restore_community.sql
--! Included functions/begin_quiescing.sql
-- approved stage, step 1 (docs/design.md#lifecycle): persist "quiescing" so no new serving-write
-- lease is admitted while admitted ones may renew and finish. Order matters:
-- verify the lease, take the community lock EXCLUSIVELY (waits for every open
-- writer and acquisition holding it shared), verify the lease AGAIN (an abort
-- that won the lock while we waited has terminalised the request and bumped the
-- generation: we must fail with stale_lease DL4L1, never re-quiesce a rescued
-- community), take the schema/destruction lock shared and then ACCESS SHARE
-- on every scoped table (a TRUNCATE in progress finishes first, a later one
-- sees quiescing), re-check the catalog
-- (catalog_drift DL7C1: never start closing a tenant whose tables are not all
-- fenced), capture the pre-quiesce archived_at once, then move the
-- community active → quiescing (archived_at set if it was not). Idempotent
-- while the community is already quiescing. Checkpoint
-- approved/quiesce_serving_writes.
create or replace function community_deletion.begin_quiescing(request_id uuid, executor_id text, lease_generation bigint)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  v_request community_deletion.requests;
  v_community public.communities;
begin
  perform community_deletion._require_read_committed('community_deletion.begin_quiescing');
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_community_for_transition(v_request.community_id);
  perform community_deletion._lock_request(p_request_id);
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion._lock_scoped_tables_shared();
  perform community_deletion.validate_catalog();
  select c.* into v_community from public.communities c where c.id = v_request.community_id for update;
  if v_community.deletion_state is distinct from 'active' and v_community.deletion_state is distinct from 'quiescing' then
    raise exception 'community % of request % is %, it cannot enter quiescing',
      v_request.community_id, p_request_id, coalesce(v_community.deletion_state, 'missing')
      using errcode = 'DL2C1';
  end if;
  update community_deletion.requests r
     set pre_quiesce_archived_at = v_community.archived_at,
         quiescing_started_at = now(),
         updated_at = now()
   where r.id = p_request_id and r.quiescing_started_at is null;
  perform community_deletion._refuse_invoker_code('public.communities', 'update');
  update public.communities c
     set deletion_state = 'quiescing',
         archived_at = coalesce(c.archived_at, now())
   where c.id = v_request.community_id and c.deletion_state in ('active', 'quiescing')
     and c.deletion_fence_generation = v_community.deletion_fence_generation;
  if not found then
    raise exception 'community % of request % changed while entering quiescing', v_request.community_id, p_request_id
      using errcode = 'DL4L1';
  end if;
  perform community_deletion._checkpoint(p_request_id, 'approved', 'quiesce_serving_writes', 'completed', p_generation,
    pg_catalog.jsonb_build_object('community_state', 'quiescing',
                                  'fence_generation', v_community.deletion_fence_generation,
                                  'pre_quiesce_archived_at', v_community.archived_at));
end;
$$;
--! EndIncluded functions/begin_quiescing.sql
--! Included functions/fence.sql
-- approved stage, step 2 (docs/design.md#lifecycle, docs/design.md#write-fence): close the fence. Same lock discipline
-- as community_deletion.begin_quiescing (verify, community lock EXCLUSIVE, verify again,
-- catalog re-check under the shared schema/destruction lock: every scoped table
-- must carry the fence at the moment it closes, DL7C1 otherwise).
-- Requires the community to be quiescing (wrong_stage DL2S1: call
-- community_deletion.begin_quiescing first) and no live serving-write lease
-- (serving_not_drained DL5D1, retryable, message and DETAIL name the count and
-- operations). Then: fence generation + 1, community fenced, request fenced with
-- that generation, checkpoint approved/activate_fence. Returns the new fence
-- generation — the token every later stage presents.
create or replace function community_deletion.fence(request_id uuid, executor_id text, lease_generation bigint)
  returns bigint
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  v_request community_deletion.requests;
  v_community public.communities;
  v_live bigint;
  v_operations text[];
  v_new_generation bigint;
begin
  perform community_deletion._require_read_committed('community_deletion.fence');
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_community_for_transition(v_request.community_id);
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  select c.* into v_community from public.communities c where c.id = v_request.community_id for update;
  if v_community.deletion_state is distinct from 'quiescing' then
    raise exception 'community % of request % is %, not quiescing: it cannot be fenced yet',
      v_request.community_id, p_request_id, coalesce(v_community.deletion_state, 'missing')
      using errcode = 'DL2S1',
            hint = 'Call community_deletion.begin_quiescing first.';
  end if;
  -- Unreleased serving leases, live or expired within the grace: a writer
  -- may still be finishing (_serving_writes_in_flight).
  v_operations := community_deletion._serving_writes_in_flight(v_request.community_id);
  select count(*) into v_live
    from community_deletion.serving_write_leases l
   where l.community_id = v_request.community_id
     and l.lease_until + (select s.serving_lease_grace from community_deletion.settings s) >= now();
  if v_live > 0 then
    raise exception 'community % of request % is not drained: % serving-write lease(s) not released (%)',
      v_request.community_id, p_request_id, v_live, pg_catalog.array_to_string(v_operations, ', ')
      using errcode = 'DL5D1',
            detail = pg_catalog.jsonb_build_object('community_id', v_request.community_id,
                                                   'live_leases', v_live, 'operations', v_operations)::text,
            hint = 'Retry after the admitted serving-write leases are released, or expired more than settings.serving_lease_grace ago.';
  end if;
  v_new_generation := v_community.deletion_fence_generation + 1;
  perform community_deletion._refuse_invoker_code('public.communities', 'update');
  update public.communities c
     set deletion_state = 'fenced',
         deletion_fence_generation = v_new_generation,
         archived_at = coalesce(c.archived_at, now())
   where c.id = v_request.community_id and c.deletion_state = 'quiescing'
     and c.deletion_fence_generation = v_community.deletion_fence_generation;
  if not found then
    raise exception 'community % of request % changed while fencing', v_request.community_id, p_request_id
      using errcode = 'DL4L1';
  end if;
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'approved', 'fenced', v_new_generation);
  perform community_deletion._checkpoint(p_request_id, 'approved', 'activate_fence', 'completed', p_generation,
    pg_catalog.jsonb_build_object('fence_generation', v_new_generation,
                                  'previous_fence_generation', v_community.deletion_fence_generation));
  return v_new_generation;
end;
$$;
--! EndIncluded functions/fence.sql
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
  select 21
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
