-- Code a table owner attaches to a table the engine changes never runs as the
-- engine owner. The engine's statements run inside its security-definer
-- functions, and PostgreSQL runs a trigger's function, a rule's actions and
-- the functions in the expressions an UPDATE evaluates as the role running the
-- statement: before this rule, an owner's DELETE trigger on a registered
-- scoped table ran as community_deletion_owner during the purge, could read
-- the control plane and rename (or tombstone) another community. Now:
--   * validate_catalog reports such code (DL7C1, naming it) on a registered
--     scoped table (DELETE), a provenance table (UPDATE: triggers, rules,
--     index expressions, CHECK constraints, generated columns) and
--     public.communities (UPDATE) — index expressions and predicates and
--     extended statistics expressions for every table, whatever the event:
--     the planner folds them when it plans any statement on the table —
--     unless a superuser or the engine owner
--     owns the function — SECURITY DEFINER is not enough;
--   * right before each such statement the engine locks the table (ROW
--     EXCLUSIVE) and checks again (_refuse_invoker_code), so code added
--     after the validation is refused too, and none can be added while the
--     engine's transaction runs.
-- Committed setup: an owner role owning a registered scoped table and a
-- registered provenance table (this database is a private clone; the role
-- is cluster-wide, named after this database, dropped at the end).
select 'cd_code_owner_' || substr(md5(current_database()), 1, 10) as owner_role \gset
\ir ../fixtures/owned_registered_tables.sql
create table public.code_log (who text, what text);
alter table public.code_log owner to :"owner_role";
grant insert, select on public.code_log to public;

begin;
\ir ../fixtures/destruction.sql
select plan(32);

-- Two communities; the victim fenced and at bindings_removed while the
-- catalog is clean, with a row in the owner's scoped table.
select tests.seed_community('code-victim.example', 2) as victim \gset
select tests.seed_community('code-bystander.example', 2) as bystander \gset
insert into public.owned_things (community_id, body) values (:'victim', 'owned');
select request_id, owner, generation, fence_generation from tests.dx_fence('code-victim.example') \gset
select tests.dx_to_bindings_removed(:'request_id', :'owner', :'generation', :'fence_generation', :'victim');
-- A third community, fenced, for abort.
select tests.seed_community('code-abort.example', 2) as abortee \gset
select request_id as abort_request from tests.dx_fence('code-abort.example', 'executor-2') \gset

-- What an error says: SQLSTATE, then the message.
create function pg_temp.err(p_sql text) returns text language plpgsql as $$
begin
  execute p_sql;
  return 'no error';
exception when others then
  return sqlstate || ': ' || sqlerrm;
end $$;
create function pg_temp.problems(p_table text, p_event text) returns text[] language sql as $$
  select community_deletion._invoker_code_problems(p_table::regclass, p_event)
$$;

select is(pg_temp.problems('public.owned_things', 'delete'), '{}'::text[], 'a clean scoped table has no such code');
select lives_ok($$ select community_deletion.validate_catalog() $$, 'and the catalog validates');

-- The owner's code: a trigger function that records who runs it and renames the bystander.
set local role :"owner_role";
create function public.owner_trigger() returns trigger language plpgsql as $$
begin
  insert into public.code_log values (current_user, tg_op || ' on ' || tg_table_name);
  update public.communities set name = 'renamed by ' || current_user where host = 'code-bystander.example';
  return coalesce(old, new);
end $$;
create function public.owner_check(uuid) returns boolean language sql immutable as $$ select true $$;
create trigger zz_owner_insert after insert on public.owned_things for each row execute function public.owner_trigger();
reset role;
select is(pg_temp.problems('public.owned_things', 'delete'), '{}'::text[], 'a trigger on INSERT only is not code the purge runs');

set local role :"owner_role";
create trigger zz_owner_delete before delete on public.owned_things for each row execute function public.owner_trigger();
reset role;
select is(pg_temp.problems('public.owned_things', 'delete'), array['trigger zz_owner_delete runs public.owner_trigger()'],
  'an owner''s trigger on DELETE is');
select matches(pg_temp.err('select community_deletion.validate_catalog()'),
  '^DL7C1: .*owned_things: trigger zz_owner_delete runs public.owner_trigger\(\)',
  'validate_catalog refuses it (DL7C1), naming the table and the trigger');
select matches(pg_temp.err(format('select community_deletion.purge_postgres_batch(%L, %L, %s, %s)',
                                  :'request_id', :'owner', :generation, :fence_generation)),
  '^DL7C1: ', 'so does the purge batch');

-- Added after the validation (the batch's own lookup skipped here): the
-- check right before the statement refuses it as well.
create function pg_temp.unit_batch(p_request uuid, p_community uuid, p_generation bigint) returns jsonb
  language plpgsql as $$
declare
  v jsonb;
begin
  perform set_config('community_deletion.read_state_hard_delete', 'on', true);
  set local role community_deletion_owner;
  v := community_deletion._purge_batch(p_request, p_community, 'bindings_removed', p_generation, 100000, interval '1 hour');
  reset role;
  return v;
end $$;
select matches(pg_temp.err(format('select pg_temp.unit_batch(%L, %L, %s)', :'request_id', :'victim', :generation)),
  '^DL7C1: .*public\.owned_things.*trigger zz_owner_delete runs public.owner_trigger\(\)',
  'the purge''s own statement is refused before it runs (DL7C1 naming the table and the trigger)');
select is((select count(*)::int from public.code_log), 0, 'the owner''s code never ran');
select is((select count(*)::int from public.owned_things where community_id = :'victim'), 1, 'the victim''s owned row is still there');
select is((select name from public.communities where id = :'bystander'), 'Community code-bystander.example',
  'the bystander is untouched');

-- SECURITY DEFINER does not help (its owner can turn it off at any moment);
-- a disabled trigger is still reported (it can be enabled later).
set local role :"owner_role";
alter function public.owner_trigger() security definer;
alter table public.owned_things disable trigger zz_owner_delete;
reset role;
select is(pg_temp.problems('public.owned_things', 'delete'), array['trigger zz_owner_delete runs public.owner_trigger()'],
  'a SECURITY DEFINER function of the owner''s, in a disabled trigger, is still reported');

-- A rule on DELETE, whatever it does.
set local role :"owner_role";
drop trigger zz_owner_delete on public.owned_things;
create rule zz_owner_rule as on delete to public.owned_things do also insert into public.code_log values ('rule', 'delete');
reset role;
select is(pg_temp.problems('public.owned_things', 'delete'), array['rule zz_owner_rule on DELETE'], 'a rule on DELETE is reported');
set local role :"owner_role";
drop rule zz_owner_rule on public.owned_things;
reset role;

-- A function a superuser owns is trusted (no other role can replace it).
create function public.superuser_trigger() returns trigger language plpgsql as $$ begin return old; end $$;
create trigger zz_superuser_delete before delete on public.owned_things for each row execute function public.superuser_trigger();
select is(pg_temp.problems('public.owned_things', 'delete'), '{}'::text[], 'a trigger whose function a superuser owns is not reported');
select lives_ok($$ select community_deletion.validate_catalog() $$, 'and the catalog validates again');

-- A provenance table is updated by the purge (its community column nulled):
-- triggers on UPDATE and the expressions an UPDATE evaluates count.
set local role :"owner_role";
create trigger zz_notes_update before update on public.owned_notes for each row execute function public.owner_trigger();
reset role;
select is(pg_temp.problems('public.owned_notes', 'update'), array['trigger zz_notes_update runs public.owner_trigger()'],
  'an owner''s trigger on UPDATE of a provenance table is reported');
set local role :"owner_role";
drop trigger zz_notes_update on public.owned_notes;
create index owned_notes_checked_idx on public.owned_notes (public.owner_check(community_id));
reset role;
select matches(array_to_string(pg_temp.problems('public.owned_notes', 'update'), ','), '^index public\.owned_notes_checked_idx calls public\.owner_check\(uuid\)$',
  'so is an index expression calling an owner''s function');
set local role :"owner_role";
drop index public.owned_notes_checked_idx;
alter table public.owned_notes add constraint owned_notes_checked check (public.owner_check(community_id));
reset role;
select matches(array_to_string(pg_temp.problems('public.owned_notes', 'update'), ','), '^constraint owned_notes_checked on table public\.owned_notes calls public\.owner_check\(uuid\)$',
  'and a CHECK constraint');
-- (A stored generated column rewrites the table, which _111_guard_table_rewrite
-- refuses while deletions are in flight, as here: off for this statement.)
alter event trigger _111_guard_table_rewrite disable;
set local role :"owner_role";
alter table public.owned_notes drop constraint owned_notes_checked;
alter table public.owned_notes add column checked boolean generated always as (public.owner_check(community_id)) stored;
reset role;
alter event trigger _111_guard_table_rewrite enable;
select matches(array_to_string(pg_temp.problems('public.owned_notes', 'update'), ','), '^default value for column checked of table public\.owned_notes calls public\.owner_check\(uuid\)$',
  'and a generated column');
set local role :"owner_role";
alter table public.owned_notes drop column checked;
reset role;
select is(pg_temp.problems('public.owned_notes', 'update'), '{}'::text[], 'a plain provenance table has none');

-- The planner folds index expressions and predicates, and the expressions
-- of extended statistics, when it plans any statement on a table (an
-- immutable function with constant arguments runs then): the purge's DELETE
-- and the proof's SELECT on a scoped table as much as an UPDATE.
set local role :"owner_role";
create index owned_things_gated_idx on public.owned_things (community_id) where public.owner_check('00000000-0000-0000-0000-000000000000');
reset role;
select is(pg_temp.problems('public.owned_things', 'delete'), array['index public.owned_things_gated_idx calls public.owner_check(uuid)'],
  'an index predicate calling an owner''s function is reported on a scoped table (DELETE)');
select matches(pg_temp.err('select community_deletion.validate_catalog()'),
  '^DL7C1: .*owned_things: index public\.owned_things_gated_idx calls public\.owner_check\(uuid\)',
  'and validate_catalog refuses it, naming the index');
set local role :"owner_role";
drop index public.owned_things_gated_idx;
create statistics public.owned_things_gated_st on (public.owner_check(community_id)), body from public.owned_things;
reset role;
select matches(array_to_string(pg_temp.problems('public.owned_things', 'delete'), ','),
  '^statistics object public\.owned_things_gated_st calls public\.owner_check\(uuid\)$',
  'so is an extended statistics expression calling one');
set local role :"owner_role";
drop statistics public.owned_things_gated_st;
reset role;
select is(pg_temp.problems('public.owned_things', 'delete'), '{}'::text[], 'without them the scoped table is clean again');

-- A key column of a domain type: a keyset lookup would cast the recorded
-- key back to it, running the domain's CHECK as the engine owner. Such a
-- column is not walked as a keyset, and the domain's constraint is owner
-- code for DELETE too. (Retyping the column rewrites the table, which
-- _111_guard_table_rewrite refuses while deletions are in flight, as here:
-- off for this statement.)
alter event trigger _111_guard_table_rewrite disable;
set local role :"owner_role";
create domain public.owned_key as bigint check (public.owner_check('00000000-0000-0000-0000-000000000000'));
alter table public.owned_things alter column id drop identity;
alter table public.owned_things alter column id type public.owned_key;
reset role;
alter event trigger _111_guard_table_rewrite enable;
select is(community_deletion._keyset_columns('public.owned_things', 'community_id'), null,
  'a primary key over a domain-typed column is not a keyset');
select is(pg_temp.problems('public.owned_things', 'delete'), array['constraint owned_key_check calls public.owner_check(uuid)'],
  'the domain''s CHECK calling an owner''s function is reported for a scoped table (DELETE)');
select matches(pg_temp.err('select community_deletion.validate_catalog()'),
  '^DL7C1: .*owned_things: constraint owned_key_check calls public\.owner_check\(uuid\)',
  'and validate_catalog refuses it');
alter event trigger _111_guard_table_rewrite disable;
set local role :"owner_role";
alter table public.owned_things alter column id type bigint;
drop domain public.owned_key;
reset role;
alter event trigger _111_guard_table_rewrite enable;

-- public.communities is updated by quiescing, the fence, the tombstone and
-- abort: an UPDATE trigger whose function the owner role owns refuses them.
create trigger zz_communities_update before update on public.communities for each row execute function public.owner_trigger();
select matches(pg_temp.err('select community_deletion.validate_catalog()'),
  '^DL7C1: .*public\.communities: trigger zz_communities_update runs public.owner_trigger\(\)',
  'validate_catalog refuses an owner''s UPDATE trigger on public.communities');
select matches(pg_temp.err(format('select community_deletion.abort(%L, %L, %L)', :'abort_request', 'carol@ops', 'changed our minds')),
  '^DL7C1: ', 'abort, which restores the community, is refused');
select is((select deletion_state from public.communities where id = :'abortee'), 'fenced', 'and the community stays fenced');
select matches(pg_temp.err(format('select community_deletion._tombstone_community(%L, %s)', :'victim', :fence_generation)),
  '^DL7C1: ', 'and so is the tombstone');
select is((select count(*)::int from public.code_log), 0, 'the owner''s code never ran');
drop trigger zz_communities_update on public.communities;

-- While the engine's transaction holds the table (after the check), no
-- trigger can be added: a second session's CREATE TRIGGER waits, and gives
-- up at its lock timeout.
select community_deletion._refuse_invoker_code('public.owned_things', 'delete');
select dblink_connect('ddl', 'dbname=' || current_database());
create function pg_temp.remote_err(p_sql text) returns text language plpgsql as $$
begin
  perform dblink_exec('ddl', p_sql);
  return 'no error';
exception when others then
  return sqlstate;
end $$;
select dblink_exec('ddl', format('set lock_timeout = %L', '200ms'));
select dblink_exec('ddl', format('set role %I', :'owner_role'));
select is(pg_temp.remote_err('create trigger zz_late before update on public.owned_things for each row execute function suppress_redundant_updates_trigger()'),
  '55P03', 'a second session cannot add a trigger while the engine''s transaction holds the checked table');
select dblink_disconnect('ddl');

select * from finish();
rollback;
reassign owned by :"owner_role" to current_user;
drop owned by :"owner_role";
drop role :"owner_role";
