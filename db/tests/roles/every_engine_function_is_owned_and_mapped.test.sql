-- grants.sql: every engine function (schema community_deletion) is owned by
-- community_deletion_owner, not executable by PUBLIC unless it is on the
-- write-fence path, a stage constant, the DDL lock or an installation fact
-- (schema version, fence implementation, installation report), and every API function is granted to
-- some role — a function added later without a mapping fails here. The
-- migration-time functions (register_*, install_write_fence) stay with their
-- owner. Every function pins search_path (pg_catalog, pg_temp); every SECURITY
-- DEFINER one also sets row_security off. No engine function is left in public.
begin;
select plan(9);

create temporary view engine_functions as
  select p.oid, p.oid::regprocedure::text as sig, p.proname::text as name, p.prosecdef, p.proconfig
    from pg_proc p
   where p.pronamespace = 'community_deletion'::regnamespace;

select cmp_ok((select count(*)::int from engine_functions), '>', 80, 'the engine functions are found');
select is_empty($$ select sig from engine_functions where pg_get_userbyid((select proowner from pg_proc where oid = engine_functions.oid)) <> 'community_deletion_owner' $$,
  'every engine function is owned by community_deletion_owner');
select set_eq($$ select name from engine_functions where has_function_privilege('public', oid, 'execute') $$,
  array['community_write_allowed', 'assert_community_write_allowed', '_require_read_committed',
        '_community_lock_key', '_serving_write_granted', '_schema_destruction_lock_key',
        '_stages', '_stage_order', '_next_stage', '_stage_is_runnable', '_stage_is_terminal',
        '_stage_is_abortable', '_stage_is_fenced', '_guard_registered_tables', '_guard_registered_table_rewrite',
        '_guard_communities_planner_code',
        -- managed servers (docs/managed.md): the explicit DDL lock any
        -- migrating role takes, and what `deletions migrate` asks as that role
        'ddl_lock', 'schema_version', 'write_fence_implementation', 'installation_report',
        -- the host reservation of the communities guard, run as whichever role
        -- inserts or renames a community (pure functions of their argument)
        '_host_key', '_without_invisible', '_punycode_label'],
  'only the write-fence path, the stage constants, the DDL lock and the installation facts are executable by PUBLIC');
select is_empty($$ select sig from engine_functions
                   where name not like '\_%' and name not like 'tg\_%'
                     and name not in ('register_scoped_table', 'register_unscoped_table', 'install_write_fence')
                     and not has_function_privilege('community_deletion_operator', oid, 'execute')
                     and not has_function_privilege('community_deletion_executor', oid, 'execute')
                     and not has_function_privilege('community_deletion_app', oid, 'execute') $$,
  'every API function is mapped to a role in grants.sql');
select is_empty($$ select sig from engine_functions
                   where (name like '\_%' or name like 'tg\_%'
                          or name in ('register_scoped_table', 'register_unscoped_table', 'install_write_fence'))
                     and not has_function_privilege('public', oid, 'execute')
                     and (has_function_privilege('community_deletion_operator', oid, 'execute')
                          or has_function_privilege('community_deletion_executor', oid, 'execute')
                          or has_function_privilege('community_deletion_app', oid, 'execute')) $$,
  'private helpers, trigger functions and migration-time functions are executable by their owner only');
select is_empty($$ select sig from engine_functions
                   where not coalesce('search_path=pg_catalog, pg_temp' = any (proconfig), false)
                     and name not in ('_manifest_entry_is_valid', '_manifest_entry_line', '_manifest_entry_follows')
                     and (select l.lanname from pg_proc p join pg_language l on l.oid = p.prolang
                           where p.oid = engine_functions.oid) <> 'c' $$,
  'every engine function pins search_path to pg_catalog, pg_temp (temp last), except the three inlined SQL helpers that qualify every type');
select is_empty($$ select sig from engine_functions
                   where prosecdef and not coalesce('row_security=off' = any (proconfig), false) $$,
  'every SECURITY DEFINER engine function turns row_security off: a policy that would apply to the engine owner is an error (42501) before any policy code runs as the owner');
select is((select (rolcanlogin, rolbypassrls, rolsuper)::text from pg_roles where rolname = 'community_deletion_owner'),
  '(f,t,f)', 'the owner role cannot log in, bypasses row-level security, is not a superuser');
select is_empty($$
  select p.oid::regprocedure from pg_proc p
   where p.pronamespace = 'public'::regnamespace
     and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e') $$,
  'public holds no function but extension members (the host''s own would be listed here)');

select * from finish();
rollback;
