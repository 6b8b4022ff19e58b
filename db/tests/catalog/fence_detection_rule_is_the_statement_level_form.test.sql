-- The catalog's fence-detection rule for the statement-level fence (see
-- catalog_validate.sql): a scoped table is fenced only if, for each of INSERT,
-- UPDATE and DELETE, an enabled AFTER … FOR EACH STATEMENT trigger without WHEN
-- executes tg_scoped_table__enforce_write_fence() with exactly the transition
-- tables it reads. The early-refusal row triggers are not part of the rule; any
-- fence trigger on a table that is not a registered scoped table is drift.
begin;
select plan(12);

select lives_ok($$ select community_deletion.validate_catalog() $$, 'the reference schema validates');
select is((select count(*)::int from pg_trigger t join pg_class c on c.oid = t.tgrelid
            where c.relname = 'pubkey_allowlist' and t.tgname like '\_010\_community\_write\_fence%'), 5,
  'registration attaches five triggers: three statement-level, two early-refusal');

savepoint s;
drop trigger _010_community_write_fence_update on public.pubkey_allowlist;
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null, 'a fence without its UPDATE trigger is drift');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence_delete on public.pubkey_allowlist;
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null, 'a fence without its DELETE trigger is drift');
rollback to savepoint s;

savepoint s;
alter table public.pubkey_allowlist disable trigger _010_community_write_fence_update;
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null, 'a disabled UPDATE trigger does not count');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence on public.pubkey_allowlist;
create trigger _010_community_write_fence after insert on public.pubkey_allowlist
  referencing new table as other_name for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence();
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null,
  'an INSERT trigger naming another transition table does not count');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence on public.pubkey_allowlist;
create trigger _010_community_write_fence after insert on public.pubkey_allowlist
  referencing new table as fence_new_rows for each statement when (false)
  execute function community_deletion.tg_scoped_table__enforce_write_fence();
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null, 'a trigger with a WHEN condition does not count');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence on public.pubkey_allowlist;
create trigger _010_community_write_fence after insert on public.pubkey_allowlist
  referencing new table as fence_new_rows for each row execute function community_deletion.tg_scoped_table__enforce_write_fence();
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null, 'a row-level trigger does not count');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence on public.pubkey_allowlist;
create trigger _010_community_write_fence after insert on public.pubkey_allowlist
  for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence();
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null, 'a statement-level trigger without transition tables does not count');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence_early on public.pubkey_allowlist;
drop trigger _010_community_write_fence_early_delete on public.pubkey_allowlist;
select lives_ok($$ select community_deletion.validate_catalog() $$,
  'the early-refusal triggers only order error codes: without them the table is still fenced');
rollback to savepoint s;

savepoint s;
create trigger _010_community_write_fence_early before insert or update on public.product_feedback
  for each row execute function community_deletion.tg_scoped_table__refuse_write_early();
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null,
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

select * from finish();
rollback;
