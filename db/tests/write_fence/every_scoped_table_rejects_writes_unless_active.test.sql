-- The write fence (docs/design.md#write-fence): every registered scoped table refuses INSERT,
-- UPDATE and DELETE for a community that is not active (55000), while an active
-- bystander keeps writing.
begin;
\ir ../fixtures/fence.sql
select plan(12);

select tests.seed_community('target.example', 2) as t \gset
select tests.seed_community('bystander.example', 2) as b \gset

select is(
  (select count(*)::int from unnest(community_deletion._live_fenced_tables()) t),
  28, 'all 28 registered scoped tables carry the write fence');

select lives_ok(
  format($$ delete from public.community_bans where community_id = %L $$, :'t'),
  'an active community accepts deletes');
insert into public.community_bans (community_id, pubkey) values (:'t', 'again');

select tests.fx_force_state(:'t', 'fenced', 1);

select is_empty(
  format($$ select * from tests.fx_tables_not_refusing('delete from public.%%1$I where community_id = %%2$L', %L, '55000') $$, :'t'),
  'a DELETE of a fenced community''s rows is refused (55000) in every scoped table');
select is_empty(
  format($$ select * from tests.fx_tables_not_refusing('update public.%%1$I set community_id = community_id where community_id = %%2$L', %L, '55000') $$, :'t'),
  'an UPDATE of a fenced community''s rows is refused (55000) in every scoped table');
set local role community_deletion_app;
select throws_ok(
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'late') $$, :'t'),
  '55000', null, 'an INSERT for a fenced community is refused');

-- The message prefix is part of the documented contract (docs/design.md#write-fence).
select throws_ok(
  format($$ insert into public.users (community_id, pubkey) values (%L, repeat('a', 64)) $$, :'t'),
  '55000', null, 'an INSERT into users for a fenced community is refused before its constraints');

select lives_ok(
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'still-writing') $$, :'b'),
  'an active bystander still accepts inserts');
select lives_ok(
  format($$ update public.users set display_name = 'renamed' where community_id = %L $$, :'b'),
  'an active bystander still accepts updates');
reset role;

select tests.fx_force_state(:'t', 'quiescing', 0);
select throws_ok(
  format($$ update public.users set display_name = 'x' where community_id = %L $$, :'t'),
  '55000', null, 'a quiescing community refuses writes without a serving-write authorisation');

select tests.fx_force_state(:'t', 'tombstone', 1);
select throws_ok(
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'ghost') $$, :'t'),
  '55000', null, 'a tombstoned community refuses writes');

select throws_ok(
  $$ insert into public.pubkey_allowlist (community_id, pubkey) values ('00000000-0000-4000-8000-00000000dead', 'x') $$,
  '55000', null, 'a write for a community that does not exist is refused by the fence');

do $$
begin
  insert into public.pubkey_allowlist (community_id, pubkey)
    values ((select id from public.communities where host = 'target.example'), 'msg');
exception when sqlstate '55000' then
  perform set_config('tests.fence_message', sqlerrm, true);
end;
$$;
select ok(current_setting('tests.fence_message') like 'community write%',
          'the refusal message starts with "community write" (documented contract)');

select * from finish();
rollback;
