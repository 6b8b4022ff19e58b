-- The statement-level fence decides on the old AND the new rows of an
-- UPDATE: a row moved out of a fenced community into an active one is
-- refused even with the early row triggers gone, because the fenced
-- community is among the old rows (the early refusal only orders error
-- codes; it never decides). Runs on both fence implementations.
begin;
\ir ../fixtures/fence.sql
select plan(4);
-- The DDL guard would refuse dropping the early triggers; a superuser can
-- disable it, and the statement fence must hold regardless.
alter event trigger _110_guard_registered_tables disable;
drop trigger _010_community_write_fence_early on public.pubkey_allowlist;
drop trigger _010_community_write_fence_early_delete on public.pubkey_allowlist;

select tests.seed_community('moved-from.example', 1) as fenced \gset
select tests.seed_community('moved-to.example', 1) as active \gset
insert into public.pubkey_allowlist (community_id, pubkey) values (:'fenced', 'leaving');
select tests.fx_force_state(:'fenced', 'fenced', 1);

set local role community_deletion_app;
select throws_ok(format($$ update public.pubkey_allowlist set community_id = %L where community_id = %L and pubkey = 'leaving' $$,
                        :'active', :'fenced'),
  '55000', null, 'moving a row out of a fenced community is refused by the statement fence alone');
select throws_ok(format($$ delete from public.pubkey_allowlist where community_id = %L and pubkey = 'leaving' $$, :'fenced'),
  '55000', null, 'deleting it is refused too');
reset role;
select is((select community_id from public.pubkey_allowlist where pubkey = 'leaving'), :'fenced'::uuid,
  'the row is still the fenced community''s');
set local role community_deletion_app;
select lives_ok(format($$ update public.pubkey_allowlist set pubkey = pubkey where community_id = %L $$, :'active'),
  'the active community is still writable');
reset role;

select * from finish();
rollback;
