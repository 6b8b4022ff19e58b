-- Every engine function reads public.communities — the write fence on every
-- application write among them — and PostgreSQL folds an index predicate's
-- (or expression's, or a statistics expression's) immutable function, and
-- whatever it calls, as the role planning the read. So the owner of
-- communities may not add such code calling a function of theirs: the DDL
-- is refused when it is added (DL7C2, _guard_communities_planner_code from
-- the ddl_command_end event trigger) and nothing of it remains. Built-in
-- functions are fine; code already there before (validate_catalog reports
-- it, DL7C1) does not stop unrelated DDL.
begin;
select plan(11);

select 'cd_comm_owner_' || substr(md5(current_database()), 1, 10) as owner_role \gset
create role :"owner_role" nologin;
grant create on schema public to :"owner_role";
alter table public.communities owner to :"owner_role";

set local role :"owner_role";
create table public.comm_log (who text);
create function public.comm_act() returns void language plpgsql volatile as $$
begin insert into public.comm_log values (current_user); end $$;
create function public.comm_gate(text) returns boolean language plpgsql immutable as $$
begin perform public.comm_act(); return true; end $$;
create function public.comm_lower(text) returns text language sql immutable as $$ select lower($1) $$;

select throws_like($$ create index communities_gate on public.communities (id) where public.comm_gate('x') $$,
  '%refused DDL on public.communities: index public.communities_gate calls public.comm_gate(text)%every read of communities%',
  'a partial index whose predicate calls the owner''s function is refused, naming it');
select is(to_regclass('public.communities_gate'), null, 'and the index does not exist');
select throws_ok($$ create index communities_expr on public.communities (public.comm_lower(host)) $$,
  'DL7C2', null, 'an index expression calling the owner''s function is refused');
select throws_ok($$ create statistics public.communities_stats on (public.comm_lower(host)), id from public.communities $$,
  'DL7C2', null, 'and so is a statistics expression');
select lives_ok($$ create domain public.comm_text as text check (public.comm_gate(value)) $$,
  'a domain of the owner''s, used by nothing the engine reads, is created as before');
select throws_ok($$ alter table public.communities add column tag public.comm_text $$,
  'DL7C2', null, 'a column of communities of that domain is refused');
select lives_ok($$ create index communities_lower on public.communities (lower(host)) $$,
  'an index calling only built-in functions is created as before');
reset role;
select is((select count(*)::int from public.comm_log where who = 'community_deletion_owner'), 0,
  'the owner''s code never ran as the engine');

-- Code that predates the guard (added with the event trigger off, as before
-- the engine was installed): validate_catalog reports it; unrelated DDL
-- still works.
alter event trigger _110_guard_registered_tables disable;
create function public.comm_quiet(text) returns boolean language sql immutable as $$ select true $$;
alter function public.comm_quiet(text) owner to :"owner_role";
create index communities_quiet on public.communities (id) where public.comm_quiet('x');
alter event trigger _110_guard_registered_tables enable;
select throws_like($$ select community_deletion.validate_catalog() $$,
  '%communities_quiet calls public.comm_quiet(text)%', 'validate_catalog reports code that predates the guard');
set local role :"owner_role";
select lives_ok($$ create table public.comm_unrelated (id integer) $$, 'unrelated DDL is not stopped by it');
select lives_ok($$ alter table public.comm_unrelated add column note text $$, 'nor is altering an unrelated table');
reset role;

select * from finish();
rollback;
drop role if exists :"owner_role";
