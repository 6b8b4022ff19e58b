-- A table owner (not a superuser) cannot weaken the guards of a registered
-- table by DDL: disabling a fence trigger, setting it to fire on replicas
-- only or always, dropping or renaming it, making the table part of an
-- inheritance tree (statement triggers on a parent do not fire for a child's
-- statements), or renaming the table or moving it to another schema (the
-- registry binds it by name: renamed, its fence could be disabled unseen,
-- then renamed back), renaming or dropping its community column (the fence
-- reads it by name), or weakening public.communities — its lifecycle
-- trigger dropped or disabled, a lifecycle column renamed, dropped or
-- retyped — are all refused by the event trigger _110_guard_registered_tables
-- (DL7C2), and nothing of the command remains. The owner's other DDL works.
-- Runs on both fence implementations.
-- Committed setup: the owner role owns a registered scoped table and a
-- registered provenance table (this database is a private clone). Roles are
-- cluster-wide: the name is this database's own, and the role is dropped at
-- the end.
select 'cd_guard_owner_' || substr(md5(current_database()), 1, 10) as owner_role \gset
\ir ../fixtures/owned_registered_tables.sql
create table public.other_parent (body text);
alter table public.other_parent owner to :"owner_role";
create schema guard_elsewhere;
grant create, usage on schema guard_elsewhere to :"owner_role";

begin;
select plan(35);
set local role :"owner_role";

select throws_ok($$ alter table public.owned_things disable trigger _010_community_write_fence $$, 'DL7C2', null,
  'disabling the INSERT fence is refused');
select throws_ok($$ alter table public.owned_things disable trigger user $$, 'DL7C2', null,
  'disabling every user trigger is refused');
select throws_ok($$ alter table public.owned_things enable replica trigger _010_community_write_fence_update $$, 'DL7C2', null,
  'setting the UPDATE fence to fire on replicas only is refused');
select throws_ok($$ alter table public.owned_things enable always trigger _010_community_write_fence_delete $$, 'DL7C2', null,
  'setting the DELETE fence to fire always is refused');
select throws_ok($$ drop trigger _010_community_write_fence_delete on public.owned_things $$, 'DL7C2', null,
  'dropping the DELETE fence is refused');
select throws_ok($$ drop trigger _010_community_write_fence_early on public.owned_things $$, 'DL7C2', null,
  'dropping an early-refusal trigger is refused');
select throws_ok($$ drop trigger _010_community_write_fence_truncate on public.owned_things $$, 'DL7C2', null,
  'dropping the TRUNCATE guard is refused');
select throws_ok($$ alter trigger _010_community_write_fence on public.owned_things rename to harmless $$, 'DL7C2', null,
  'renaming a fence trigger is refused');
select throws_ok($$ drop trigger _020_provenance_guard on public.owned_notes $$, 'DL7C2', null,
  'dropping the provenance guard is refused');
select throws_ok($$ alter table public.owned_notes disable trigger _020_provenance_guard $$, 'DL7C2', null,
  'disabling the provenance guard is refused');
select throws_ok($$ alter table public.owned_things inherit public.other_parent $$, 'DL7C2', null,
  'making a registered table an inheritance child is refused');
select throws_ok($$ create table public.sneaky_child () inherits (public.owned_things) $$, 'DL7C2', null,
  'making a registered table an inheritance parent is refused');
select throws_ok($$ alter table public.owned_things rename to owned_things_x $$, 'DL7C2', null,
  'renaming a registered scoped table is refused');
select throws_like($$ alter table public.owned_things rename to owned_things_x $$,
  '%owned_things_x: carries the guards of a registered table that is no longer under its registered name (renamed or moved)%',
  'the refusal names the table under its new name');
select throws_ok($$ alter table public.owned_things set schema guard_elsewhere $$, 'DL7C2', null,
  'moving a registered scoped table to another schema is refused');
select throws_ok($$ alter table public.owned_notes rename to owned_notes_x $$, 'DL7C2', null,
  'renaming a registered provenance table is refused');
select throws_ok($$ do $d$ begin
                      execute 'alter table public.owned_things rename to owned_things_x';
                      execute 'alter table public.owned_things_x disable trigger user';
                      execute 'alter table public.owned_things_x enable trigger user';
                      execute 'alter table public.owned_things_x rename to owned_things';
                    end $d$ $$, 'DL7C2', null,
  'rename, disable the fence, re-enable, rename back: refused at the first step');
select throws_ok($$ alter table public.owned_things rename column community_id to cid $$, 'DL7C2', null,
  'renaming a scoped table''s community column is refused');
select throws_like($$ alter table public.owned_things rename column community_id to cid $$,
  '%owned_things: its community column community_id is missing (renamed or dropped)%',
  'the refusal says the community column went missing');
select throws_ok($$ alter table public.owned_things drop column community_id cascade $$, 'DL7C2', null,
  'dropping a scoped table''s community column is refused');
select throws_ok($$ alter table public.owned_notes rename column community_id to cid $$, 'DL7C2', null,
  'renaming a provenance table''s community column is refused');
select lives_ok($$ alter table public.owned_things rename column body to content $$,
  'renaming another column still works');
alter table public.owned_things rename column content to body;
select lives_ok($$ alter table public.other_parent rename to other_parent_renamed $$,
  'renaming a table the registry does not know still works');
select throws_like($$ alter table public.owned_things disable trigger _010_community_write_fence $$,
  '%refused DDL on registered tables: owned_things: _010_community_write_fence disabled%',
  'the refusal names the table and what the command would have done');

select set_eq($$ select tgname::text || ':' || tgenabled::text from pg_trigger
                  where tgrelid = 'public.owned_things'::regclass and not tgisinternal $$,
  array['_010_community_write_fence:O', '_010_community_write_fence_update:O', '_010_community_write_fence_delete:O',
        '_010_community_write_fence_early:O', '_010_community_write_fence_early_delete:O',
        '_010_community_write_fence_truncate:O'],
  'every fence trigger is still there and enabled');
select is(to_regclass('public.sneaky_child'), null, 'nothing of a refused command remains');

-- public.communities (owned by the superuser here; the event trigger
-- refuses a superuser's DDL as anyone's).
reset role;
select throws_ok($$ alter table public.communities disable trigger _010_protect_lifecycle $$, 'DL7C2', null,
  'disabling the lifecycle guard of communities is refused');
select throws_like($$ drop trigger _010_protect_lifecycle on public.communities $$,
  '%communities: trigger _010_protect_lifecycle is missing, disabled or altered%',
  'dropping it is refused, naming it');
select throws_ok($$ alter table public.communities rename column deletion_state to ds_hidden $$, 'DL7C2', null,
  'renaming a lifecycle column of communities is refused (a look-alike added next would be read instead)');
select throws_ok($$ alter table public.communities drop column deleted_at cascade $$, 'DL7C2', null,
  'dropping a lifecycle column is refused');
select throws_like($$ alter table public.communities alter column deletion_fence_generation type numeric $$,
  '%communities: column deletion_fence_generation bigint is missing or not of that type%',
  'retyping a lifecycle column is refused');
set local role :"owner_role";

-- The owner's ordinary DDL still works.
select lives_ok($$ alter table public.owned_things add column note text $$, 'adding a column works');
select lives_ok($$ create index owned_things_body_idx on public.owned_things (community_id, body) $$, 'adding an index works');
select lives_ok($$ comment on table public.owned_things is 'owned' $$, 'commenting works');
reset role;
select lives_ok($$ select community_deletion.validate_catalog() $$, 'and the catalog still validates');

select * from finish();
rollback;
drop schema guard_elsewhere;
reassign owned by :"owner_role" to current_user;
drop owned by :"owner_role";
drop role :"owner_role";
