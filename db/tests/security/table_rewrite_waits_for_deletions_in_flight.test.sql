-- A table rewrite changes rows without a write any trigger sees: ALTER
-- COLUMN … TYPE … USING can change a fenced community's rows or move them
-- to another community, ADD COLUMN with a volatile default rewrites them
-- all. The event trigger _111_guard_table_rewrite refuses (DL7C2) rewriting
-- a registered scoped or provenance table while a deletion is in flight (a
-- request not terminal whose community is not active), and rewriting
-- communities while any community is under deletion or a tombstone; nothing
-- of the command remains. Other tables, and registered ones once no
-- deletion is in flight, are rewritten as before. The DDL comes from the
-- tables' owner, not a superuser.
-- Committed setup: the owner role owns a registered scoped table and a
-- registered provenance table (this database is a private clone).
select 'cd_rewrite_owner_' || substr(md5(current_database()), 1, 10) as owner_role \gset
\ir ../fixtures/owned_registered_tables.sql
create table public.unregistered_things (id bigint, body text);
alter table public.unregistered_things owner to :"owner_role";

begin;
\ir ../fixtures/destruction.sql
\ir ../fixtures/fence.sql
select plan(15);

create function pg_temp.sqlstate_of(p_sql text) returns text language plpgsql as $$
begin
  execute p_sql;
  return 'no error';
exception when others then
  return sqlstate;
end $$;

select tests.seed_community('rewrite-target.example', 1) as target \gset
select tests.seed_community('rewrite-bystander.example', 1) as bystander \gset
insert into public.owned_things (community_id, body) values (:'target', 'target row'), (:'bystander', 'bystander row');
insert into public.owned_notes (community_id, body) values (:'target', 'target note');
insert into public.unregistered_things values (1, 'x');

set local role :"owner_role";
select lives_ok($$ alter table public.owned_things alter column body type text using body || '' $$,
  'with no deletion in flight, the owner may rewrite a registered table');
reset role;

select * from tests.dx_fence('rewrite-target.example') \gset

set local role :"owner_role";
-- (Changing the foreign key's column re-checks the key, which needs REFERENCES
-- on communities the owner lacks: an attacker drops the key first.)
alter table public.owned_things drop constraint owned_things_community_id_fkey;
-- (With the PL/pgSQL fence the early trigger's WHEN clause names the
-- column, so PostgreSQL itself forbids changing its type: 0A000.)
select is(pg_temp.sqlstate_of(format($$ alter table public.owned_things alter column community_id type uuid
                                        using (case when community_id = %L then %L::uuid else community_id end) $$, :'target', :'bystander')),
  case community_deletion.write_fence_implementation() when 'native' then 'DL7C2' else '0A000' end,
  'moving the fenced community''s rows to another community by a rewrite is refused');
select throws_ok($$ alter table public.owned_things alter column body type text
                   using (case when body = 'target row' then 'changed' else body end) $$,
  'DL7C2', null, 'changing the fenced community''s rows by a rewrite is refused');
select throws_ok($$ alter table public.owned_things add column stamp text default (random()::text) $$,
  'DL7C2', null, 'adding a column with a volatile default (a rewrite) is refused');
select throws_ok($$ alter table public.owned_notes alter column body type text using body || '!' $$,
  'DL7C2', null, 'rewriting a registered provenance table is refused');
select throws_like($$ alter table public.owned_things alter column body type text using body || '' $$,
  format('%%refused DDL on registered tables: owned_things: the command rewrites every row of the table while a deletion is in flight (request %s at fenced for rewrite-target.example)%%', :'request_id'),
  'the refusal names the table and the deletion in flight');
select lives_ok($$ alter table public.owned_things add column note text default 'n' $$,
  'adding a column with a constant default (no rewrite) still works');
select lives_ok($$ alter table public.unregistered_things alter column body type text using body || '' $$,
  'a table the registry does not know is rewritten as before');
reset role;

select throws_ok($$ alter table public.communities alter column name type text using name || '' $$,
  'DL7C2', null, 'rewriting communities while a community is under deletion is refused, even for a superuser');
select is((select string_agg(community_id::text || ':' || body, ',' order by body) from public.owned_things),
  format('%s:bystander row,%s:target row', :'bystander', :'target'),
  'nothing of a refused rewrite remains: every row as it was');
select is((select count(*)::int from public.owned_things where community_id = :'target'), 1,
  'the fenced community still has its row, for the purge to remove');

-- The deletion ends (aborted): registered tables may be rewritten again.
select community_deletion.abort(:'request_id', 'carol@ops', 'rewrite test') \g /dev/null
set local role :"owner_role";
select lives_ok($$ alter table public.owned_things alter column body type text using body || '' $$,
  'once no deletion is in flight, the rewrite works again');
reset role;
select lives_ok($$ alter table public.communities alter column name type text using name || '' $$,
  'communities too, while every community is active');

-- A tombstone reserves communities' rows for ever.
select tests.fx_force_state(:'bystander', 'tombstone', 1);
select throws_ok($$ alter table public.communities alter column name type text using name || '' $$,
  'DL7C2', null, 'rewriting communities while a tombstone exists is refused');

-- The guard takes the table from the event trigger: called directly (it is
-- executable by every role) it answers nothing about deletions in flight.
select throws_ok($$ select community_deletion._guard_registered_table_rewrite() $$, '39P03', null,
  'the rewrite guard cannot be called outside a table_rewrite event trigger');

select * from finish();
rollback;
drop table public.unregistered_things;
reassign owned by :"owner_role" to current_user;
drop owned by :"owner_role";
drop role :"owner_role";
