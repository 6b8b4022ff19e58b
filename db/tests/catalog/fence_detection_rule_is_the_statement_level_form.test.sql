-- The catalog's two fence rules, each case aimed at one of them and checked
-- by the problem it reports, so that removing that rule fails the case:
--  * the form (_live_fenced_tables): a scoped table is fenced only if, for
--    each of INSERT, UPDATE and DELETE, an AFTER … FOR EACH STATEMENT trigger
--    without WHEN executes tg_scoped_table__enforce_write_fence() with exactly
--    the transition tables it reads, firing for ordinary sessions. The cases
--    keep every trigger's name, function and firing, and change only the form;
--  * the set (_fence_trigger_problems): all six triggers register_scoped_table
--    attaches exist under their names, execute their functions and fire for
--    ordinary sessions ('O': not disabled, not REPLICA, not ALWAYS).
-- Any fence trigger on a table that is not a registered scoped table is drift.
begin;
select plan(17);
-- These cases build drift a table owner can no longer create: the DDL guard
-- (event trigger _110_guard_registered_tables) refuses dropping or disabling
-- a fence trigger. A superuser can still disable the guard; the catalog
-- check is the second line of defence, and that is what is tested here.
alter event trigger _110_guard_registered_tables disable;

-- The drift validate_catalog reports, or 'no drift'.
create function pg_temp.drift() returns text language plpgsql as $$
begin
  perform community_deletion.validate_catalog();
  return 'no drift';
exception when sqlstate 'DL7C1' then
  return sqlerrm;
end;
$$;

select is(pg_temp.drift(), 'no drift', 'the reference schema validates');
select is((select count(*)::int from pg_trigger t join pg_class c on c.oid = t.tgrelid
            where c.relname = 'pubkey_allowlist' and t.tgname like '\_010\_community\_write\_fence%'), 6,
  'registration attaches six triggers: three statement-level, two early-refusal, one TRUNCATE guard');

-- The form: names, functions and firing unchanged.
savepoint s;
drop trigger _010_community_write_fence_update on public.pubkey_allowlist;
create trigger _010_community_write_fence_update after update on public.pubkey_allowlist
  referencing old table as fence_old_rows new table as other_name
  for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence();
select matches(pg_temp.drift(), 'scoped tables without the write fence: pubkey_allowlist',
  'an UPDATE trigger naming another new-rows table does not count');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence_delete on public.pubkey_allowlist;
create trigger _010_community_write_fence_delete after insert on public.pubkey_allowlist
  referencing new table as fence_new_rows
  for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence();
select matches(pg_temp.drift(), 'scoped tables without the write fence: pubkey_allowlist',
  'a fence that covers INSERT twice and DELETE never is not a fence');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence on public.pubkey_allowlist;
create trigger _010_community_write_fence after insert on public.pubkey_allowlist
  referencing new table as other_name for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence();
select matches(pg_temp.drift(), 'scoped tables without the write fence: pubkey_allowlist',
  'an INSERT trigger naming another transition table does not count');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence on public.pubkey_allowlist;
create trigger _010_community_write_fence after insert on public.pubkey_allowlist
  referencing new table as fence_new_rows for each statement when (false)
  execute function community_deletion.tg_scoped_table__enforce_write_fence();
select matches(pg_temp.drift(), 'scoped tables without the write fence: pubkey_allowlist',
  'a trigger with a WHEN condition does not count');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence on public.pubkey_allowlist;
create trigger _010_community_write_fence after insert on public.pubkey_allowlist
  referencing new table as fence_new_rows for each row execute function community_deletion.tg_scoped_table__enforce_write_fence();
select matches(pg_temp.drift(), 'scoped tables without the write fence: pubkey_allowlist',
  'a row-level trigger does not count');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence on public.pubkey_allowlist;
create trigger _010_community_write_fence after insert on public.pubkey_allowlist
  for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence();
select matches(pg_temp.drift(), 'scoped tables without the write fence: pubkey_allowlist',
  'a statement-level trigger without transition tables does not count');
rollback to savepoint s;

-- The set: each of the six, under its name, with its function, firing for ordinary sessions.
savepoint s;
alter table public.pubkey_allowlist disable trigger _010_community_write_fence_update;
select matches(pg_temp.drift(), 'pubkey_allowlist: _010_community_write_fence_update disabled',
  'a disabled UPDATE trigger is drift, named');
rollback to savepoint s;

savepoint s;
alter table public.pubkey_allowlist enable replica trigger _010_community_write_fence_delete;
select matches(pg_temp.drift(), 'pubkey_allowlist: _010_community_write_fence_delete set to fire on replicas only',
  'a DELETE trigger set to fire on replicas only is drift');
rollback to savepoint s;

savepoint s;
alter table public.pubkey_allowlist enable always trigger _010_community_write_fence;
select matches(pg_temp.drift(), 'pubkey_allowlist: _010_community_write_fence set to fire always',
  'an INSERT trigger set to fire always is drift (only the default firing is the fence)');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence_early on public.pubkey_allowlist;
drop trigger _010_community_write_fence_early_delete on public.pubkey_allowlist;
select matches(pg_temp.drift(), 'pubkey_allowlist: _010_community_write_fence_early missing, _010_community_write_fence_early_delete missing',
  'missing early-refusal triggers are drift');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence_truncate on public.pubkey_allowlist;
select matches(pg_temp.drift(), 'pubkey_allowlist: _010_community_write_fence_truncate missing',
  'a missing TRUNCATE guard is drift');
rollback to savepoint s;

savepoint s;
create function pg_temp.not_the_fence() returns trigger language plpgsql as $$ begin return new; end $$;
create or replace trigger _010_community_write_fence_early before insert or update on public.pubkey_allowlist
  for each row execute function pg_temp.not_the_fence();
select matches(pg_temp.drift(), 'pubkey_allowlist: _010_community_write_fence_early executes another function',
  'an early trigger executing another function is drift');
rollback to savepoint s;

savepoint s;
create trigger _010_community_write_fence_early before insert or update on public.product_feedback
  for each row execute function community_deletion.tg_scoped_table__refuse_write_early();
select matches(pg_temp.drift(), 'write fence on unregistered tables: product_feedback',
  'an early-refusal trigger on a provenance table is drift (stale registry)');
rollback to savepoint s;

-- Misattached, the fence fails closed rather than waving writes through.
savepoint s;
create table public.misattached (community_id uuid not null references public.communities (id), v text);
create trigger fence after insert on public.misattached
  for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence();
insert into public.communities (host) values ('misattached.example');
select throws_ok(
  $$ insert into public.misattached (community_id, v) select id, 'x' from public.communities where host = 'misattached.example' $$,
  '42P01', null, 'attached without its transition tables the fence refuses every write');
rollback to savepoint s;

select is(pg_temp.drift(), 'no drift', 'every change above was rolled back');

select * from finish();
rollback;
