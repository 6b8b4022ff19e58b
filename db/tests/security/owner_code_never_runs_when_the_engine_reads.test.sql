-- Code a table owner attaches never runs as the engine owner on the paths
-- that only READ a registered table, nor through a foreign key's action, nor
-- through a domain hidden inside a composite type.
--   * When PostgreSQL loads an index predicate or expression (or an extended
--     statistics expression) to plan a statement, it folds an IMMUTABLE
--     function with constant arguments — and runs whatever that function
--     calls — as the role planning. The engine plans reads of registered
--     tables in plan(), freeze_inventory's counts, the inventory difference,
--     the absence proof and the TRUNCATE guard; before this rule a table
--     owner's index predicate ran there as community_deletion_owner (it
--     switched the two-person rule off and tombstoned a bystander). Now each
--     locks the tables and refuses such code first (_refuse_planner_code,
--     DL7C1), changing nothing.
--   * An ON DELETE CASCADE (or SET NULL) foreign key from a table the
--     registry does not know onto a registered one: the action runs as that
--     table's owner, but the AFTER triggers it queues fire as the engine
--     owner when the purge's DELETE ends. Such triggers are reported
--     (validate_catalog, DL7C1) and refused before the purge's statement.
--   * A domain inside a composite type (in an array column): its CHECK runs
--     when a value is cast to the column's type; reported like any domain,
--     and array columns are never a keyset key.
-- Each engine call runs in a fresh session (dblink): a session loads an
-- index's predicate once, so only a fresh one shows whether it would run.
-- Committed setup (a private clone): an owner role owning a registered
-- scoped table and a registered provenance table; a fenced community with a
-- row elsewhere; a submitted request for another community with a row in
-- the owner's table.
select 'cd_read_owner_' || substr(md5(current_database()), 1, 10) as owner_role \gset
\ir ../fixtures/owned_registered_tables.sql
\ir ../fixtures/destruction.sql
create table public.code_log (who text, what text);
alter table public.code_log owner to :"owner_role";
grant insert, select on public.code_log to public;
select tests.seed_community('read-victim.example', 1) as victim \gset
select tests.seed_community('read-planned.example', 1) as planned \gset
-- (The fenced community has no row in owned_things: the old guard let the
-- owner's TRUNCATE through after reading the table, and what the predicate
-- did as the engine then committed.)
insert into public.owned_things (community_id, body) values (:'planned', 'planned row');
select request_id as fenced_request from tests.dx_fence('read-victim.example') \gset
select (community_deletion.submit('read-planned.example', 'alice@ops', 'read test')).id as planned_request \gset

-- The owner's payload: act() records who runs it and, run as the engine,
-- would switch the two-person rule off; gate() is IMMUTABLE and calls it.
set role :"owner_role";
create function public.act(p_what text) returns void language plpgsql volatile as $$
begin
  insert into public.code_log values (current_user, p_what);
  if current_user = 'community_deletion_owner' then
    update community_deletion.settings set allow_same_login_approval = true;
  end if;
end $$;
create function public.gate(p_what text) returns boolean language plpgsql immutable as $$
begin perform public.act(p_what); return true; end $$;
create index owned_things_gate on public.owned_things (community_id) where public.gate('index predicate');
reset role;
delete from public.code_log;

begin;
select plan(26);

create function pg_temp.fresh(p_sql text, p_role text default null) returns text language plpgsql as $$
declare
  v_result text;
begin
  perform dblink_connect('fresh', 'dbname=' || current_database());
  begin
    if p_role is not null then
      perform dblink_exec('fresh', format('set role %I', p_role));
    end if;
    perform dblink_exec('fresh', p_sql);
    v_result := 'no error';
  exception when others then
    v_result := sqlstate || ': ' || sqlerrm;
  end;
  perform dblink_disconnect('fresh');
  return v_result;
end $$;
create function pg_temp.ran_as_engine() returns bigint language sql as $$
  select count(*) from public.code_log where who = 'community_deletion_owner'
$$;
create function pg_temp.err(p_sql text) returns text language plpgsql as $$
begin
  execute p_sql;
  return 'no error';
exception when others then
  return sqlstate || ': ' || sqlerrm;
end $$;

select is(community_deletion._invoker_code_problems('public.owned_things', 'select'),
  array['index public.owned_things_gate calls public.gate(text)'],
  'the index predicate calling the owner''s function is code the planner runs (event select)');

-- plan(): an operator's read-only question.
select matches(pg_temp.fresh($$ select community_deletion.plan('read-planned.example') $$),
  '^DL7C1: community deletion catalog drift: code another role attached would run as the engine owner when the engine reads public\.owned_things \(index public\.owned_things_gate calls public\.gate\(text\)\)',
  'plan is refused, naming the table and the index');
select is(pg_temp.ran_as_engine(), 0::bigint, 'the predicate did not run as the engine during plan');

-- freeze_inventory's counts (the requesting login freezes).
select matches(pg_temp.fresh(format($$ select community_deletion.freeze_inventory(%L, %L::jsonb, tests.store_identity()) $$,
                                    :'planned_request', tests.dx_empty_summary(:'planned'))),
  '^DL7C1: ', 'freezing the inventory is refused');
select is((select stage from community_deletion.requests where id = :'planned_request'), 'submitted',
  'and the request is not frozen');
select is(pg_temp.ran_as_engine(), 0::bigint, 'the predicate did not run as the engine during the freeze');

-- The inventory difference (freeze_destructive_manifest's counts).
select matches(pg_temp.fresh(format($$ select community_deletion._inventory_difference(%L, '{}', '{}') $$, :'victim')),
  '^DL7C1: ', 'the inventory difference is refused');

-- The absence proof's probes (checked before the first probe).
select matches(pg_temp.fresh($$ select community_deletion._refuse_planner_code(array['public.owned_things'::regclass], 'access share') $$),
  '^DL7C1: ', 'the check the proof runs before its probes refuses');
select ok(pg_get_functiondef('community_deletion._prove_postgres_absence(uuid,uuid,bigint)'::regprocedure)
            ~ '_refuse_planner_code\(', 'and the absence proof runs it');

-- The TRUNCATE guard: the owner truncating its own table while a community
-- is fenced. The guard refuses before it reads the table.
select matches(pg_temp.fresh('truncate public.owned_things', :'owner_role'),
  '^DL7C1: ', 'the owner''s TRUNCATE while a community is fenced is refused (the guard cannot read the table safely)');
select is(pg_temp.ran_as_engine(), 0::bigint, 'the predicate did not run as the engine in the TRUNCATE guard');
-- (Counted from another session: a read here would hold the table until the end.)
select is((select n from dblink('dbname=' || current_database(), 'select count(*)::int from public.owned_things') as t(n integer)), 1,
  'nothing was truncated');
select is((select allow_same_login_approval from community_deletion.settings), false, 'the two-person rule is still on');

-- With no community being deleted the guard reads nothing: TRUNCATE works.
select community_deletion.abort(:'fenced_request', 'carol@ops', 'read test') \g /dev/null
-- (In this session: the abort is not committed.)
set local role :"owner_role";
select lives_ok('truncate public.owned_things', 'with every community active the owner truncates as before');
reset role;
select is(pg_temp.ran_as_engine(), 0::bigint, 'and nothing ran as the engine');

-- A second session cannot add such code while plan's transaction holds the
-- tables (SHARE UPDATE EXCLUSIVE): CREATE STATISTICS waits.
set local role :"owner_role";
drop index public.owned_things_gate;
reset role;
select lives_ok($$ select community_deletion.plan('read-planned.example') $$, 'without the index, plan answers');
select dblink_connect('ddl', 'dbname=' || current_database());
select dblink_exec('ddl', 'set lock_timeout = ''200ms''');
select dblink_exec('ddl', format('set role %I', :'owner_role'));
create function pg_temp.remote_err(p_sql text) returns text language plpgsql as $$
begin
  perform dblink_exec('ddl', p_sql);
  return 'no error';
exception when others then
  return sqlstate;
end $$;
select is(pg_temp.remote_err($$ create statistics public.owned_stats on community_id, id from public.owned_things $$),
  '55P03', 'a second session cannot add a statistics object while plan''s transaction holds the table');
select dblink_disconnect('ddl');

-- A foreign key with an action from a table the registry does not know.
set local role :"owner_role";
alter table public.owned_things add constraint owned_things_id_key unique (id);
create table public.thing_attachments (thing_id bigint references public.owned_things (id) on delete cascade, body text);
create function public.after_trigger() returns trigger language plpgsql as $$
begin perform public.act('cascade ' || tg_op); return null; end $$;
create trigger zz_after_delete after delete on public.thing_attachments for each statement execute function public.after_trigger();
reset role;
select is(community_deletion._invoker_code_problems('public.owned_things', 'delete'),
  array['public.thing_attachments through foreign key thing_attachments_thing_id_fkey (ON DELETE CASCADE): trigger zz_after_delete runs public.after_trigger()'],
  'the AFTER DELETE trigger of a table an ON DELETE CASCADE key reaches is reported for the purge');
select matches(pg_temp.err('select community_deletion.validate_catalog()'),
  '^DL7C1: .*owned_things: public\.thing_attachments through foreign key thing_attachments_thing_id_fkey \(ON DELETE CASCADE\): trigger zz_after_delete',
  'and validate_catalog refuses it');
select matches(pg_temp.err($$ select community_deletion._refuse_invoker_code('public.owned_things', 'delete') $$),
  '^DL7C1: ', 'and so does the check right before the purge''s DELETE');
-- One level further and through SET NULL: an UPDATE trigger of a grandchild.
set local role :"owner_role";
drop trigger zz_after_delete on public.thing_attachments;
alter table public.thing_attachments add column id bigint unique;
create table public.attachment_notes (attachment_id bigint references public.thing_attachments (id) on delete set null);
create trigger zz_after_update after update on public.attachment_notes for each row execute function public.after_trigger();
reset role;
select is(community_deletion._invoker_code_problems('public.owned_things', 'delete'),
  array['public.attachment_notes through foreign key attachment_notes_attachment_id_fkey (ON DELETE SET NULL): trigger zz_after_update runs public.after_trigger()'],
  'a SET NULL key one level further reaches the grandchild''s UPDATE trigger');
set local role :"owner_role";
drop table public.attachment_notes;
drop table public.thing_attachments;
reset role;
select is(community_deletion._invoker_code_problems('public.owned_things', 'delete'), '{}'::text[],
  'a foreign key without an action reaches nothing (and the table is clean again)');

-- A domain inside a composite type, in an array column.
set local role :"owner_role";
create function public.owner_check(integer) returns boolean language plpgsql immutable as $$
begin perform public.act('domain check'); return true; end $$;
create domain public.checked_int as integer check (public.owner_check(value));
create type public.checked_pair as (a public.checked_int, b text);
alter table public.owned_things add column pairs public.checked_pair[];
reset role;
select is(community_deletion._invoker_code_problems('public.owned_things', 'delete'),
  array['constraint checked_int_check calls public.owner_check(integer)'],
  'the CHECK of a domain inside a composite type in an array column is reported');
create table public.array_keys (community_id uuid not null, tags integer[] not null, unique (community_id, tags));
select is(community_deletion._keyset_columns('public.array_keys', 'community_id'), null,
  'an array column is never a keyset key');
create table public.plain_keys (community_id uuid not null, n integer not null, unique (community_id, n));
select is(community_deletion._keyset_columns('public.plain_keys', 'community_id'), array['community_id', 'n'],
  'a plain base-type column still is');

select is(pg_temp.ran_as_engine(), 0::bigint, 'the owner''s code never ran as the engine');
select * from finish();
rollback;
reassign owned by :"owner_role" to current_user;
drop owned by :"owner_role";
drop role :"owner_role";
