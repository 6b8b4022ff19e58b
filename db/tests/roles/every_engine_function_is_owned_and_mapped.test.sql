-- grants.sql: every engine function is owned by community_deletion_owner, not
-- executable by PUBLIC unless it is on the write-fence path, and every public
-- API function (deletion_*) is granted to some role — a function added later
-- without a mapping fails here. Security-definer functions pin search_path.
begin;
select plan(7);

create temporary view engine_functions as
  select p.oid, p.oid::regprocedure::text as sig, p.proname::text as name, p.prosecdef, p.proconfig
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
   where n.nspname = 'public'
     and (p.proname like 'deletion\_%' or p.proname like '\_deletion\_%' or p.proname like 'tg\_%'
          or p.proname in ('community_write_allowed', 'assert_community_write_allowed'));

select cmp_ok((select count(*)::int from engine_functions), '>', 40, 'the engine functions are found');
select is_empty($$ select sig from engine_functions where pg_get_userbyid((select proowner from pg_proc where oid = engine_functions.oid)) <> 'community_deletion_owner' $$,
  'every engine function is owned by community_deletion_owner');
select set_eq($$ select name from engine_functions where has_function_privilege('public', oid, 'execute') $$,
  array['community_write_allowed', 'assert_community_write_allowed', '_deletion_require_read_committed',
        '_deletion_community_lock_key', '_deletion_serving_write_granted', '_deletion_schema_destruction_lock_key'],
  'only the write-fence path is executable by PUBLIC');
select is_empty($$ select sig from engine_functions
                   where name like 'deletion\_%' and name not like 'deletion\_register\_%'
                     and not has_function_privilege('community_deletion_operator', oid, 'execute')
                     and not has_function_privilege('community_deletion_executor', oid, 'execute')
                     and not has_function_privilege('community_deletion_app', oid, 'execute') $$,
  'every public API function (deletion_*) is mapped to a role in grants.sql');
select is_empty($$ select sig from engine_functions
                   where (name like '\_deletion\_%' or name like 'tg\_%')
                     and name not in ('_deletion_require_read_committed', '_deletion_community_lock_key',
                                      '_deletion_serving_write_granted', '_deletion_schema_destruction_lock_key')
                     and (has_function_privilege('community_deletion_operator', oid, 'execute')
                          or has_function_privilege('community_deletion_executor', oid, 'execute')
                          or has_function_privilege('community_deletion_app', oid, 'execute')) $$,
  'private helpers and trigger functions are executable by their owner only');
select is_empty($$ select sig from engine_functions
                   where prosecdef and not coalesce('search_path=""' = any (proconfig), false) $$,
  'every security-definer function pins search_path to empty');
select is((select (rolcanlogin, rolbypassrls, rolsuper)::text from pg_roles where rolname = 'community_deletion_owner'),
  '(f,t,f)', 'the owner role cannot log in, bypasses row-level security, is not a superuser');

select * from finish();
rollback;
