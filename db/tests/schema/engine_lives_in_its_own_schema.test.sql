-- The engine keeps everything it owns in schema community_deletion: public
-- holds only the host's tables (and, attached to them, the engine's triggers).
-- Every API function is described for \df+; the psql companions of inspect()
-- return rows for people; the stage list is one definition, shown by a view.
\ir ../fixtures/lifecycle.sql
begin;
select plan(14);

select has_schema('community_deletion');
select is_empty($$
  select c.relname from pg_class c
   where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm')
     and c.relname ~ '^(community_deletion|community_serving|storage_taxonomy)' $$,
  'no engine table or view is left in public');
select is_empty($$
  select p.proname from pg_proc p
   where p.pronamespace = 'public'::regnamespace
     and (p.proname ~ '^_?deletion_' or p.proname ~ '^tg_' or p.proname ~ 'community_write_allowed') $$,
  'no engine function is left in public');
select is_empty($$
  select t.tgname from pg_trigger t join pg_proc p on p.oid = t.tgfoid
   where not t.tgisinternal and p.pronamespace <> 'community_deletion'::regnamespace
     and t.tgrelid in (select c.oid from pg_class c where c.relnamespace in ('public'::regnamespace, 'community_deletion'::regnamespace)) $$,
  'every trigger on the host''s and the engine''s tables executes an engine function');
select is_empty($$
  select p.proname from pg_proc p
   where p.pronamespace = 'community_deletion'::regnamespace
     and p.proname !~ '^(_|tg_)'
     and obj_description(p.oid, 'pg_proc') is null $$,
  'every API function has a COMMENT (shown by \df+)');
select is_empty($$
  select p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' from pg_proc p
   where p.pronamespace = 'community_deletion'::regnamespace
     and p.proname !~ '^(_|tg_)'
     and pg_get_function_identity_arguments(p.oid) ~ '(^|, )p_' $$,
  'no API parameter carries a p_ prefix (named arguments read naturally)');

-- Named-argument calls, as a DBA writes them.
select tests.lc_inventoried('psql-named.example') as rid \gset
select is((select stage from tests.approve(request_id => :'rid', approved_by => 'bob', delay => interval '0')),
  'approved', 'approve(request_id => …, approved_by => …, delay => …)');

-- request_status / request_checkpoints: rows for people.
select is((select (stage, state) from community_deletion.request_status(:'rid'))::text, '(approved,runnable)',
  'request_status: one row with stage and state');
select ok((select explanation from community_deletion.request_status(request_id => :'rid')) is not null,
  'request_status explains the state');
select is((select count(*)::int from community_deletion.request_checkpoints(:'rid')), 
  (select count(*)::int from community_deletion.checkpoints where request_id = :'rid'),
  'request_checkpoints: one row per checkpoint');
select throws_ok($$ select * from community_deletion.request_status('00000000-0000-4000-8000-000000000000') $$,
  'DL1N1', null, 'an unknown request is DL1N1 (request_status)');
select throws_ok($$ select * from community_deletion.request_checkpoints('00000000-0000-4000-8000-000000000000') $$,
  'DL1N1', null, 'an unknown request is DL1N1 (request_checkpoints)');

-- The stage list, once.
select results_eq($$ select stage from community_deletion.stages order by stage_order $$,
  array['submitted', 'inventoried', 'approved', 'fenced', 'drained', 'bindings_removed', 'postgres_purged',
        'cache_purged', 'logically_verified', 'retention_pending', 'aborted'],
  'the stages view lists the lifecycle in order');
set local role community_deletion_operator;
select is((select count(*)::int from community_deletion.stages where runnable), 7, 'an operator can read the stages view');
reset role;

select * from finish();
rollback;
