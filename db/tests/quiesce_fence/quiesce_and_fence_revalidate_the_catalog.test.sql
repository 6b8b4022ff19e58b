-- The approved stage re-checks the catalog inside the transition (docs/design.md#lifecycle
-- "structural catalog re-check"): a table with community_id that appeared
-- after the claim stops quiesce and fence (catalog_drift DL7C1) without
-- changing the community — the fence must never close with an unfenced table.
begin;
\ir ../fixtures/fence.sql
select plan(6);
-- These cases build drift a table owner can no longer create: the DDL guard
-- (event trigger _110_guard_registered_tables) refuses dropping or disabling
-- a fence trigger. A superuser can still disable the guard; the catalog
-- check is the second line of defence, and that is what is tested here.
alter event trigger _110_guard_registered_tables disable;

select * from tests.fx_claimed('revalidate.example', 'executor-1') \gset

savepoint s;
create table public.late_table (community_id uuid not null references public.communities (id), body text);
create index on public.late_table (community_id);
select throws_ok(format($$ select community_deletion.begin_quiescing(%L, 'executor-1', %s) $$, :'request_id', :generation),
  'DL7C1', null, 'quiesce refuses while an unregistered community table exists');
select is((select deletion_state from public.communities where id = :'community_id'), 'active',
  'the community is untouched');
rollback to savepoint s;

select community_deletion.begin_quiescing(:'request_id', 'executor-1', :generation);
savepoint s;
drop trigger _010_community_write_fence on public.reactions;
select throws_ok(format($$ select community_deletion.fence(%L, 'executor-1', %s) $$, :'request_id', :generation),
  'DL7C1', null, 'the fence refuses while a registered scoped table lacks its fence');
select is((select (deletion_state, deletion_fence_generation)::text from public.communities where id = :'community_id'),
  '(quiescing,0)', 'the community stays quiescing at the old generation');
rollback to savepoint s;

select is(community_deletion.fence(:'request_id', 'executor-1', :generation), 1::bigint,
  'with the catalog restored the fence closes');
select is((select deletion_state from public.communities where id = :'community_id'), 'fenced', 'the community is fenced');

select * from finish();
rollback;
