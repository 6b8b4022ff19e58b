--! Previous: sha1:93cf178e27dddbdfd45fc83b2b5891d0a9a065f9
--! Hash: sha1:72410e32a39cc95ebc10e0f8e698c753d155b6df
--! Message: Managed PostgreSQL: RLS that would hide rows from the engine owner is refused (registration, validate_catalog); ddl_lock() for installations without event triggers; installation_report()

-- Enter migration here
-- Managed PostgreSQL (docs/managed.md): an installation report, the explicit
-- DDL lock for servers without event triggers, and row-level security that
-- would apply to the engine owner refused at registration and reported by
-- catalog validation (the owner has no BYPASSRLS when a non-superuser
-- created it).
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
create or replace function community_deletion._row_security_problem(p_rel pg_catalog.regclass)
  returns text
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select case
           when not c.relrowsecurity then null
           when (select r.rolbypassrls from pg_catalog.pg_roles r where r.rolname = 'community_deletion_owner') then null
           when not c.relforcerowsecurity and pg_catalog.pg_has_role('community_deletion_owner', c.relowner, 'USAGE') then null
           else 'row-level security applies to community_deletion_owner (it has no BYPASSRLS'
                || case when c.relforcerowsecurity then ' and the table FORCEs row-level security' else ' and does not own the table' end
                || ')'
         end
    from pg_catalog.pg_class c
   where c.oid = p_rel
$$;
--! EndIncluded functions/_row_security_problem.sql
--! Included functions/ddl_lock.sql
-- The schema/destruction lock taken explicitly, for servers without the
-- engine's event triggers (a managed server: only a superuser may create an
-- event trigger; community_deletion.installation_report() says
-- "ddl_lock": "explicit"). Call it FIRST in every migration transaction
-- that changes the schema — as the event trigger _100_lock_schema_destruction
-- would — so the migration waits for a running purge or absence proof and
-- none starts before it commits: it takes the lock EXCLUSIVELY until the end
-- of the calling transaction (called outside a transaction block it is
-- released at once and protects nothing). `deletions migrate` in managed mode
-- calls the same lock at the top of every migration it runs; docs/managed.md
-- shows the hook for other migration tools. Destructive transactions
-- re-validate the catalog after taking the lock shared, so a migration that
-- skips this call cannot change what a purge deletes from under it — it can
-- only make the purge refuse (catalog_drift, DL7C1) instead of wait.
create or replace function community_deletion.ddl_lock()
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  perform pg_catalog.pg_advisory_xact_lock(community_deletion._schema_destruction_lock_key());
end;
$$;
--! EndIncluded functions/ddl_lock.sql
--! Included functions/installation_report.sql
-- What this installation protects with which mechanism, and what is degraded
-- and why (docs/managed.md). `deletions migrate` prints it; it only reads the
-- catalog. Keys:
--   write_fence    'native' | 'plpgsql' (write_fence_implementation());
--   ddl_lock       'event_trigger': every DDL takes the schema/destruction
--                  lock (_100/_101/_102_lock_schema_destruction) |
--                  'explicit': no such event trigger (only a superuser may
--                  create one) — migrations must call
--                  community_deletion.ddl_lock() first;
--   ddl_guard      'event_trigger': DDL weakening a registered table's guards
--                  is refused when issued (_110_guard_registered_tables) |
--                  'catalog_validation': it is found by validate_catalog
--                  before every destructive step instead;
--   rls_exemption  'bypassrls': community_deletion_owner has BYPASSRLS |
--                  'registration_check': it has not (only a superuser may
--                  grant it), so registering a table whose row-level security
--                  would apply to it is refused and validate_catalog reports
--                  one (_row_security_problem);
--   superuser_install  whether the engine's event triggers exist, i.e. a
--                  superuser migrated it;
--   degraded       one {"what", "state", "why"} per mechanism not in its
--                  strongest form (empty when none is).
create or replace function community_deletion.installation_report()
  returns jsonb
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_fence text := community_deletion.write_fence_implementation();
  v_lock boolean;
  v_guard boolean;
  v_bypass boolean;
  v_degraded jsonb := '[]';
begin
  select count(*) = 3 into v_lock
    from pg_catalog.pg_event_trigger e
   where e.evtenabled <> 'D'
     and (e.evtname, e.evtfoid) in (
           ('_100_lock_schema_destruction', 'community_deletion.tg_ddl__lock_schema_destruction()'::pg_catalog.regprocedure),
           ('_101_lock_schema_destruction_created', 'community_deletion.tg_ddl__lock_schema_destruction_created()'::pg_catalog.regprocedure),
           ('_102_lock_schema_destruction_dropped', 'community_deletion.tg_ddl__lock_schema_destruction_dropped()'::pg_catalog.regprocedure));
  select exists (select 1 from pg_catalog.pg_event_trigger e
                  where e.evtenabled <> 'D' and e.evtname = '_110_guard_registered_tables'
                    and e.evtfoid = 'community_deletion.tg_ddl__guard_registered_tables()'::pg_catalog.regprocedure)
    into v_guard;
  select coalesce((select r.rolbypassrls from pg_catalog.pg_roles r where r.rolname = 'community_deletion_owner'), false)
    into v_bypass;
  if v_fence <> 'native' then
    v_degraded := v_degraded || pg_catalog.jsonb_build_object(
      'what', 'native fence', 'state', 'no',
      'why', case when v_lock or v_guard
                  then 'the library community_deletion_fence is not installed on the server (make -C db/native install, '
                       'then select community_deletion.install_write_fence() as a superuser); the PL/pgSQL fence enforces the same rules, slower'
                  else 'not superuser: C functions need a superuser (and the library on the server); '
                       'the PL/pgSQL fence enforces the same rules, slower' end);
  end if;
  if not v_lock then
    v_degraded := v_degraded || pg_catalog.jsonb_build_object(
      'what', 'DDL lock', 'state', 'explicit',
      'why', 'no event trigger (only a superuser may create one): every migration must call '
             'select community_deletion.ddl_lock() first in its transaction; destructive steps re-validate the catalog either way');
  end if;
  if not v_guard then
    v_degraded := v_degraded || pg_catalog.jsonb_build_object(
      'what', 'DDL guard', 'state', 'catalog validation',
      'why', 'no event trigger: DDL that weakens a registered table''s fence is not refused when issued; '
             'validate_catalog finds it and blocks every destructive step');
  end if;
  if not v_bypass then
    v_degraded := v_degraded || pg_catalog.jsonb_build_object(
      'what', 'RLS exemption', 'state', 'registration check',
      'why', 'community_deletion_owner has no BYPASSRLS (only a superuser may grant it): tables whose row-level security '
             'would apply to it are refused by registration and reported by validate_catalog');
  end if;
  return pg_catalog.jsonb_build_object(
    'write_fence', v_fence,
    'ddl_lock', case when v_lock then 'event_trigger' else 'explicit' end,
    'ddl_guard', case when v_guard then 'event_trigger' else 'catalog_validation' end,
    'rls_exemption', case when v_bypass then 'bypassrls' else 'registration_check' end,
    'superuser_install', v_lock or v_guard,
    'degraded', v_degraded);
end;
$$;
--! EndIncluded functions/installation_report.sql
--! Included functions/register_scoped_table.sql
-- Registers a tenant table as community-scoped with its purge position and
-- attaches the write fence: three AFTER … FOR EACH STATEMENT triggers with
-- transition tables executing tg_scoped_table__enforce_write_fence (these
-- decide; _live_fenced_tables' rule), the early-refusal row triggers
-- (_attach_early_fence) and the TRUNCATE guard
-- (tg_scoped_table__refuse_truncate). Registering a table is a deliberate
-- migration step (docs/design.md#catalog); it runs with the migrating role's
-- rights. Refuses (catalog_drift, DL7C1) a table in a system or the engine's
-- schema; anything but a plain table — a partitioned table, a partition, an
-- inheritance parent or child (the fence cannot cover statements addressed
-- to a partition or child: docs/security.md#partitions-and-inheritance); a
-- table without community_id uuid NOT NULL, or with another column that
-- holds a community; one without a valid index leading with community_id; one
-- registered with another kind; one whose row-level security would apply to
-- the engine owner (_row_security_problem: a managed server's owner has no
-- BYPASSRLS). Grants the engine owner what the purge needs
-- on the table. Re-running it is harmless: the triggers are replaced in place
-- and the purge order may change.
create or replace function community_deletion.register_scoped_table(table_name regclass, purge_order integer)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_table alias for $1;
  p_purge_order alias for $2;
  v_schema text;
  v_name text;
  v_kind char;
  v_registered text;
  v_columns text[];
begin
  if p_table is null or p_purge_order is null or p_purge_order <= 0 then
    raise exception 'community_deletion.register_scoped_table needs a table and a positive purge order'
      using errcode = 'DL1I1';
  end if;
  select n.nspname, c.relname, c.relkind into v_schema, v_name, v_kind
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where c.oid = p_table;
  if v_schema in ('pg_catalog', 'information_schema', 'community_deletion') or v_schema ~ '^pg_' then
    raise exception 'cannot register % as community-scoped: it is in schema %', p_table, v_schema
      using errcode = 'DL7C1';
  end if;
  if community_deletion._inheritance_role(p_table) is not null or v_kind <> 'r' then
    raise exception 'cannot register % as community-scoped: it is %', p_table,
      coalesce(community_deletion._inheritance_role(p_table), 'not a plain table')
      using errcode = 'DL7C1',
            hint = 'The write fence cannot cover statements addressed to a partition or an inheritance child '
                   '(docs/security.md#partitions-and-inheritance). Use a plain table, or register it as excluded with a reason.';
  end if;
  if not exists (select 1 from pg_catalog.pg_attribute a
                  where a.attrelid = p_table and a.attname = 'community_id' and not a.attisdropped
                    and a.atttypid = 'pg_catalog.uuid'::pg_catalog.regtype and a.attnotnull) then
    raise exception 'cannot register % as community-scoped: it has no community_id uuid NOT NULL column', p_table
      using errcode = 'DL7C1',
            hint = 'Scoped tables carry community_id uuid not null references communities.';
  end if;
  v_columns := community_deletion._community_columns(p_table);
  if v_columns <> array['community_id'] then
    raise exception 'cannot register % as community-scoped: besides community_id, these columns hold communities: %', p_table,
      pg_catalog.array_to_string(pg_catalog.array_remove(v_columns, 'community_id'), ', ')
      using errcode = 'DL7C1',
            hint = 'A scoped table belongs to the community in community_id only; move references to other communities to a provenance table.';
  end if;
  if not community_deletion._has_leading_index(p_table, 'community_id') then
    raise exception 'cannot register % as community-scoped: no valid index leads with community_id', p_table
      using errcode = 'DL7C1',
            hint = 'Create an index (or primary key) whose first column is community_id first.';
  end if;
  if community_deletion._row_security_problem(p_table) is not null then
    raise exception 'cannot register % as community-scoped: %', p_table, community_deletion._row_security_problem(p_table)
      using errcode = 'DL7C1',
            hint = 'A policy could hide rows from the purge and the absence proof. Disable row-level security on the table, '
                   'or have a superuser give community_deletion_owner BYPASSRLS (docs/managed.md).';
  end if;
  select r.kind into v_registered from community_deletion.registered_tables r
   where r.schema_name = v_schema and r.table_name = v_name;
  if v_registered is not null and v_registered <> 'scoped' then
    raise exception 'cannot register % as community-scoped: it is registered as %', p_table, v_registered
      using errcode = 'DL7C1';
  end if;
  -- The triggers first, the registry row last: the DDL guard checks only
  -- registered tables, and every trigger already exists when the row appears.
  -- CREATE OR REPLACE keeps a registered table fenced throughout.
  execute pg_catalog.format('create or replace trigger _010_community_write_fence after insert on %s '
                            'referencing new table as fence_new_rows '
                            'for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence()', p_table);
  execute pg_catalog.format('create or replace trigger _010_community_write_fence_update after update on %s '
                            'referencing old table as fence_old_rows new table as fence_new_rows '
                            'for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence()', p_table);
  execute pg_catalog.format('create or replace trigger _010_community_write_fence_delete after delete on %s '
                            'referencing old table as fence_old_rows '
                            'for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence()', p_table);
  execute pg_catalog.format('create or replace trigger _010_community_write_fence_truncate before truncate on %s '
                            'for each statement execute function community_deletion.tg_scoped_table__refuse_truncate()', p_table);
  perform community_deletion._attach_early_fence(p_table);
  -- The engine's security-definer code counts, purges and proves absence as
  -- community_deletion_owner.
  execute pg_catalog.format('grant usage on schema %I to community_deletion_owner', v_schema);
  execute pg_catalog.format('grant select, insert, update, delete on %s to community_deletion_owner', p_table);
  insert into community_deletion.registered_tables as r (schema_name, table_name, kind, purge_order, community_column)
  values (v_schema, v_name, 'scoped', p_purge_order, 'community_id')
  on conflict (schema_name, table_name) do update set purge_order = excluded.purge_order
    where r.purge_order is distinct from excluded.purge_order;
end;
$$;
--! EndIncluded functions/register_scoped_table.sql
--! Included functions/register_unscoped_table.sql
-- Registers a table that holds communities but is not purged as
-- community-scoped (docs/design.md#catalog):
--   'provenance' — operator-global rows that remember a community: the purge
--     sets the community column to NULL and keeps the rows. A plain table with
--     exactly one column holding a community (community_id, or a foreign key
--     to communities under any name), nullable and leading a valid index. Its
--     guard trigger _020_provenance_guard (tg_provenance_table__refuse_
--     inactive_community) refuses naming a community that is not active.
--   'excluded' — deliberately outside every deletion (any relation, with the
--     reason in note): its rows are neither deleted nor nulled nor proven
--     absent. For partitioned tables and their partitions, inheritance trees,
--     foreign tables and materialized views, which the engine cannot fence.
-- The note is required for both. Refuses (DL7C1) a table in a system or the
-- engine's schema, a shape the kind does not allow, or a table registered
-- with another kind. Re-running it is harmless.
create or replace function community_deletion.register_unscoped_table(table_name regclass, kind text, note text)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_table alias for $1;
  p_kind alias for $2;
  p_note alias for $3;
  v_schema text;
  v_name text;
  v_registered text;
  v_columns text[];
  v_column text;
begin
  if p_table is null or p_kind is null or p_kind not in ('provenance', 'excluded')
     or p_note is null or pg_catalog.btrim(p_note) = '' then
    raise exception 'community_deletion.register_unscoped_table needs a table, kind provenance|excluded and a note'
      using errcode = 'DL1I1';
  end if;
  select n.nspname, c.relname into v_schema, v_name
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where c.oid = p_table;
  if v_schema in ('pg_catalog', 'information_schema', 'community_deletion') or v_schema ~ '^pg_' then
    raise exception 'cannot register %: it is in schema %', p_table, v_schema
      using errcode = 'DL7C1';
  end if;
  v_columns := community_deletion._community_columns(p_table);
  if p_kind = 'provenance' then
    if community_deletion._inheritance_role(p_table) is not null
       or (select c.relkind from pg_catalog.pg_class c where c.oid = p_table) <> 'r' then
      raise exception 'cannot register % as provenance: it is %', p_table,
        coalesce(community_deletion._inheritance_role(p_table), 'not a plain table')
        using errcode = 'DL7C1',
              hint = 'Register it as excluded with a reason, or use a plain table (docs/security.md#partitions-and-inheritance).';
    end if;
    if pg_catalog.cardinality(v_columns) <> 1 then
      raise exception 'cannot register % as provenance: it needs exactly one column that holds a community, it has %',
        p_table, coalesce(nullif(pg_catalog.array_to_string(v_columns, ', '), ''), 'none')
        using errcode = 'DL7C1';
    end if;
    v_column := v_columns[1];
    if exists (select 1 from pg_catalog.pg_attribute a
                where a.attrelid = p_table and a.attname = v_column and a.attnotnull)
       or not community_deletion._has_leading_index(p_table, v_column) then
      raise exception 'cannot register % as provenance: % must be nullable and lead a valid index', p_table, v_column
        using errcode = 'DL7C1';
    end if;
    if community_deletion._row_security_problem(p_table) is not null then
      raise exception 'cannot register % as provenance: %', p_table, community_deletion._row_security_problem(p_table)
        using errcode = 'DL7C1',
              hint = 'A policy could hide rows from the purge. Disable row-level security on the table, '
                     'or have a superuser give community_deletion_owner BYPASSRLS (docs/managed.md).';
    end if;
  end if;
  select r.kind into v_registered from community_deletion.registered_tables r
   where r.schema_name = v_schema and r.table_name = v_name;
  if v_registered is not null and v_registered <> p_kind then
    raise exception 'cannot register % as %: it is registered as %', p_table, p_kind, v_registered
      using errcode = 'DL7C1';
  end if;
  if p_kind = 'provenance' then
    execute pg_catalog.format(
      'create or replace trigger _020_provenance_guard before insert or update on %s for each row '
      'execute function community_deletion.tg_provenance_table__refuse_inactive_community(%L)', p_table, v_column);
    execute pg_catalog.format('grant usage on schema %I to community_deletion_owner', v_schema);
    execute pg_catalog.format('grant select, update on %s to community_deletion_owner', p_table);
  end if;
  insert into community_deletion.registered_tables as r (schema_name, table_name, kind, purge_order, community_column, note)
  values (v_schema, v_name, p_kind, null, v_column, p_note)
  on conflict (schema_name, table_name) do update set note = excluded.note, community_column = excluded.community_column;
end;
$$;
--! EndIncluded functions/register_unscoped_table.sql
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
--      purge is quadratic).
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
  if cardinality(v_problems) > 0 then
    raise exception 'community deletion catalog drift: %', array_to_string(v_problems, '; ')
      using errcode = 'DL7C1',
            detail = pg_catalog.jsonb_build_object(
              'missing', v_missing, 'unknown', v_unknown, 'unfenced', v_unfenced,
              'stray_fences', v_stray_fences, 'shape', v_shape)::text,
            hint = 'In a migration, register new tables (community_deletion.register_scoped_table / '
                   'community_deletion.register_unscoped_table) or drop them, restore missing fences and indexes; '
                   'then unblock the request (deletions unblock ID), or abort it.';
  end if;
end;
$$;
--! EndIncluded functions/validate_catalog.sql
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
--! Included engine/comments.sql
-- What \df+ community_deletion.* shows for each function of the SQL API
-- (docs/sql-api.md). Internal helpers (a leading underscore) and trigger
-- functions (tg_*) have none: they are not called directly. A test keeps
-- every API function described.

-- Operators (role community_deletion_operator)
comment on function community_deletion.submit(text, text, text) is
  'Open a deletion request for the community with this host (requested_by, reason). One open request per community.';
comment on function community_deletion.freeze_inventory(uuid, jsonb, jsonb) is
  'Freeze the request''s inventory: the SQL schema manifest plus the storage summary the driver enumerated, and the store identity it came from; computes the digest an approver approves.';
comment on function community_deletion.approve(uuid, text, text, timestamptz, interval, text) is
  'Approve the exact frozen inventory as a second operator; optional grace period (not_before or delay); optional digest (prefix, 8+ hex) the approver reviewed.';
comment on function community_deletion.abort(uuid, text, text) is
  'Abort a request up to fenced: withdraw it (submitted, inventoried) or give the community back (approved, fenced).';
comment on function community_deletion.queue_status() is
  'The queue at a glance: requests per state, the oldest in each, and which states need an operator.';
comment on function community_deletion.schema_version() is
  'The engine schema version (the last migration that changed engine objects); drivers refuse a version they were not built for.';
comment on function community_deletion.unblock(uuid, text, text) is
  'Clear a durable block after remediation; the request resumes at the same stage with the same approval.';
comment on function community_deletion.inspect(uuid) is
  'Everything about one request as jsonb (request, community, approval, checkpoints, state, explanation) for programs.';
comment on function community_deletion.request_status(uuid) is
  'One request as one row for people: stage, state, explanation, lease, retries, block.';
comment on function community_deletion.request_checkpoints(uuid) is
  'A request''s checkpoints as rows, in order, with attempts and errors.';
comment on function community_deletion.list_requests(integer) is
  'Requests, newest first (max_rows 1..1000), each with its state and explanation.';
comment on function community_deletion.storage_taxonomy_rules() is
  'The storage key taxonomy: owned prefixes and shared shapes, with the key pattern each writer produces.';
comment on function community_deletion.record_taxonomy_sweep(timestamptz, bigint, bigint, jsonb, bigint, boolean) is
  'Record the result of a fleet-wide storage taxonomy sweep (observational; never gates a deletion).';
comment on function community_deletion.validate_catalog() is
  'Raise DL7C1 (listing every problem) unless the live tables with community_id equal the registry, each scoped table is fenced and indexed.';
comment on function community_deletion.validate_serving_catalog() is
  'Raise DL7C1 unless every registered scoped table the serving path writes exists with its write fence.';
comment on function community_deletion.plan(text) is
  'What a deletion of this host would remove from PostgreSQL (rows per registered table, in purge order), read-only: no request is created.';
comment on function community_deletion.write_fence_implementation() is
  'Which implementation the write-fence triggers execute: native or plpgsql.';
comment on function community_deletion.installation_report() is
  'What protects this installation and what is degraded and why (native fence, DDL lock, DDL guard, RLS exemption) as jsonb.';
comment on function community_deletion.ddl_lock() is
  'Take the schema/destruction lock exclusively until the end of the transaction: call first in every migration where no event trigger does (managed servers).';

-- Executors (role community_deletion_executor); every call but claim presents
-- the lease token (request_id, executor_id, lease_generation).
comment on function community_deletion.claim(text, uuid, integer) is
  'Claim the oldest runnable request (or request_id) for executor_id; returns the lease token, or no row.';
comment on function community_deletion.verify_store_identity(uuid, text, bigint, jsonb) is
  'Raise DL4S1 unless the executor''s stores (S3 endpoint + bucket, Redis server + database) are the request''s recorded ones; records them for a request frozen without.';
comment on function community_deletion.verify_token(uuid, text, bigint, text) is
  'Raise DL4L1 unless the lease token is current, unexpired and unblocked at this stage.';
comment on function community_deletion.lease_state(uuid, text, bigint) is
  'The stage the holder of this lease token must run next, with the fence generation to present.';
comment on function community_deletion.heartbeat(uuid, text, bigint, text, integer, boolean) is
  'Renew the lease (lease_seconds) and record the executor''s liveness; DL4L1 once the lease is lost.';
comment on function community_deletion.release(uuid, text, bigint) is
  'Give the lease back without recording a failure (clean shutdown).';
comment on function community_deletion.executor_stopped(text) is
  'Mark the executor''s liveness row stopped.';
comment on function community_deletion.record_failure(uuid, text, bigint, text, text, text) is
  'Record a transient failure: retry with backoff, or a durable block after the configured streak.';
comment on function community_deletion.block(uuid, text, bigint, text, text, text) is
  'Record a permanent failure: block the request durably with the reason.';
comment on function community_deletion.block_preclaim(uuid, text, text) is
  'Block a request that no executor could claim (service configuration), so inspect explains it.';
comment on function community_deletion.begin_quiescing(uuid, text, bigint) is
  'Approved stage, step 1: refuse new serving-write leases for the community (quiescing).';
comment on function community_deletion.fence(uuid, text, bigint) is
  'Approved stage, step 2: once no serving lease is live, close the write fence (new fence generation) and move to fenced.';
comment on function community_deletion.clear_key_chunks(uuid, text, bigint, bigint) is
  'Fenced stage: remove key chunks of an unfinished enumeration before enumerating again.';
comment on function community_deletion.append_key_chunk(uuid, text, bigint, bigint, integer, text, jsonb) is
  'Fenced stage: store one chunk of the post-fence enumeration (validated against the taxonomy and order).';
comment on function community_deletion.freeze_destructive_manifest(uuid, text, bigint, bigint, jsonb) is
  'Fenced stage: freeze the destructive manifest; the stored chunks must hash to it.';
comment on function community_deletion.mark_drained(uuid, text, bigint, bigint) is
  'Fenced stage: serving writes are drained and the destructive manifest frozen; move to drained.';
comment on function community_deletion.next_key_chunk(uuid, text, bigint, bigint) is
  'Drained stage: the next unstamped key chunk to delete from storage, or no row.';
comment on function community_deletion.stamp_key_chunk(uuid, text, bigint, bigint, integer, jsonb) is
  'Drained stage: stamp a chunk deleted (once) and checkpoint it.';
comment on function community_deletion.key_chunk_progress(uuid) is
  'Key chunks in total and already stamped deleted.';
comment on function community_deletion.mark_bindings_removed(uuid, text, bigint, bigint, jsonb) is
  'Drained stage: every chunk is stamped; move to bindings_removed.';
comment on function community_deletion.purge_postgres(uuid, text, bigint, bigint) is
  'Bindings_removed stage: the whole PostgreSQL purge and the tombstone in one transaction (grows with the tenant; the executor uses the batched path).';
comment on function community_deletion.purge_postgres_batch(uuid, text, bigint, bigint) is
  'Bindings_removed stage: one bounded batch of the purge (at most settings.purge_batch_rows rows) in its own transaction, resuming from the checkpoints.';
comment on function community_deletion.finish_postgres_purge(uuid, text, bigint, bigint) is
  'Bindings_removed stage: after the batches, prove every table empty, tombstone the community and move to postgres_purged.';
comment on function community_deletion.mark_cache_purged(uuid, text, bigint, bigint, jsonb) is
  'Postgres_purged stage: the Redis namespace was purged; move to cache_purged.';
comment on function community_deletion.verify_postgres_absence(uuid, text, bigint, bigint) is
  'Cache_purged stage: prove no registered table holds a row of the community.';
comment on function community_deletion.mark_logically_verified(uuid, text, bigint, bigint, jsonb) is
  'Cache_purged stage: absence proven in all three stores; move to logically_verified and drop the key chunks.';
comment on function community_deletion.mark_retention_pending(uuid, text, bigint, bigint, jsonb) is
  'Logically_verified stage: complete the request (retention_pending) and release the lease.';

-- The host application (role community_deletion_app)
comment on function community_deletion.acquire_serving_lease(uuid, text, text, integer) is
  'Admit a serving-path external effect (upload, push, …) for an active community; returns the lease.';
comment on function community_deletion.renew_serving_lease(uuid, text, bigint, bigint, integer) is
  'Renew an admitted serving lease (also while the community is quiescing); DL5S1 once it is lost.';
comment on function community_deletion.verify_serving_lease(uuid, text, bigint, bigint) is
  'Raise DL5S1 unless the serving lease is still live; call right before an irreversible external call.';
comment on function community_deletion.release_serving_lease(uuid, text, bigint, bigint) is
  'Release a serving lease; returns whether it was still live.';
comment on function community_deletion.guard_serving_write(uuid, text, bigint, bigint) is
  'Authorise this transaction''s final write for a leased effect while the community is quiescing.';
comment on function community_deletion.reap_serving_leases(integer) is
  'Remove expired serving leases and finished transactions'' write grants (at most max_rows); returns how many.';
comment on function community_deletion.serving_lease_stats() is
  'Serving leases by state, as jsonb.';
comment on function community_deletion.community_write_allowed(uuid) is
  'Whether this transaction may write the community''s rows now (the write fence''s decision).';
comment on function community_deletion.assert_community_write_allowed(uuid) is
  'Raise 55000 unless community_write_allowed: fail a write transaction before doing work.';

-- DBAs (migrations)
comment on function community_deletion.register_scoped_table(regclass, integer) is
  'Register a tenant table as community-scoped with its purge order and attach the write fence.';
comment on function community_deletion.register_unscoped_table(regclass, text, text) is
  'Register a table with a community_id that is not purged: provenance (its community_id is nulled).';
comment on function community_deletion.install_write_fence(boolean, text) is
  'Install the write fence''s trigger functions: native when the library loads (superuser), else PL/pgSQL.';

comment on column community_deletion.settings.purge_batch_rows is
  'The most rows one batch of the PostgreSQL purge removes or nulls (community_deletion.purge_postgres_batch): one short transaction each.';
comment on column community_deletion.settings.serving_lease_grace is
  'How long after it expired an unreleased serving-write lease still holds the fence back (its writer may have stalled mid-upload; S3 has no fence).';
--! EndIncluded engine/comments.sql
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
  select 16
$$;
--! EndIncluded functions/schema_version.sql
