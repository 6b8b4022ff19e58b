-- community_deletion.validate_serving_catalog is the serving-side readiness check: it
-- fails on MISSING fence machinery (registered table unfenced, guard trigger
-- off, columns wrong) but not on extra unknown tables, which stop destruction
-- only. community_deletion.validate_catalog is two-sided.
begin;
select plan(6);
-- These cases build drift a table owner can no longer create: the DDL guard
-- (event trigger _110_guard_registered_tables) refuses dropping or disabling
-- a fence trigger. A superuser can still disable the guard; the catalog
-- check is the second line of defence, and that is what is tested here.
alter event trigger _110_guard_registered_tables disable;

select lives_ok($$ select community_deletion.validate_serving_catalog() $$, 'the reference schema is ready to serve');

savepoint s;
create table public.ahead_of_registry (community_id uuid not null, payload text);
select lives_ok($$ select community_deletion.validate_serving_catalog() $$,
  'an unknown table with community_id does not stop serving');
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null, '... but it stops destruction');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence on public.events;
select throws_ok($$ select community_deletion.validate_serving_catalog() $$, 'DL7C1', null,
  'a registered scoped table without its fence is not ready to serve');
rollback to savepoint s;

savepoint s;
alter table public.communities disable trigger _010_protect_lifecycle;
select throws_ok($$ select community_deletion.validate_serving_catalog() $$, 'DL7C1', null,
  'a disabled lifecycle/tombstone guard is not ready to serve');
rollback to savepoint s;

savepoint s;
alter table public.communities alter column deletion_fence_generation drop not null;
select throws_ok($$ select community_deletion.validate_serving_catalog() $$, 'DL7C1', null,
  'incompatible lifecycle columns are not ready to serve');
rollback to savepoint s;

select * from finish();
rollback;
