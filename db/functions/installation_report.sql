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
