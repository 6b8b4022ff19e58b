-- Roles of the engine (cluster-wide, so created only when missing; migrations of
-- several databases on one cluster share them). All four are NOLOGIN group
-- roles: grant them to real login roles. What each may do is in grants.sql.
--   community_deletion_owner     owns every engine function; the security-definer
--                                functions run as it, and the write fence and the
--                                communities lifecycle guard recognise the engine
--                                by current_user = this role. Nobody is ever
--                                granted membership (but a non-superuser's
--                                `deletions migrate`, for the length of the run:
--                                src/migrate.ts). BYPASSRLS so a row-level
--                                security policy can never hide rows from the
--                                purge or the absence proof — when a superuser
--                                creates it. Only a superuser may grant that
--                                attribute: migrated by another role (a managed
--                                server) it is created without it, and
--                                validate_catalog / register_scoped_table refuse
--                                a registered table whose row-level security
--                                would apply to it (docs/managed.md).
--   community_deletion_operator  submit / approve / abort / unblock / inspect / list.
--   community_deletion_executor  claim, heartbeat and the stage functions.
--   community_deletion_app       the application writer: ordinary tenant writes on
--                                the scoped tables, communities (non-lifecycle
--                                columns), serving-write leases.
-- Attributes are changed only when they differ (and BYPASSRLS only by a
-- superuser, the only role allowed to): concurrent ALTER ROLE on the same
-- role from two migrating databases can fail with "tuple concurrently updated".
do $$
declare
  v_role record;
begin
  for v_role in
    select * from (values
      ('community_deletion_owner', true),
      ('community_deletion_operator', false),
      ('community_deletion_executor', false),
      ('community_deletion_app', false)) as r(name, bypass_rls)
  loop
    if not exists (select 1 from pg_catalog.pg_roles where rolname = v_role.name) then
      begin
        execute format('create role %I nologin noinherit %s', v_role.name,
                       case when not (select r.rolsuper from pg_catalog.pg_roles r where r.rolname = current_user) then ''
                            when v_role.bypass_rls then 'bypassrls' else 'nobypassrls' end);
      exception when duplicate_object or unique_violation then
        null; -- created concurrently by another migrating database
      end;
    end if;
    if exists (select 1 from pg_catalog.pg_roles
                where rolname = v_role.name
                  and (rolcanlogin or rolsuper or (rolbypassrls <> v_role.bypass_rls and (select r.rolsuper from pg_catalog.pg_roles r where r.rolname = current_user)))) then
      execute format('alter role %I nologin nosuperuser %s', v_role.name,
                     case when not (select r.rolsuper from pg_catalog.pg_roles r where r.rolname = current_user) then ''
                            when v_role.bypass_rls then 'bypassrls' else 'nobypassrls' end);
    end if;
  end loop;
end;
$$;
