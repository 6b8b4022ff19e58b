-- The early-refusal row triggers skip rows whose community equals the
-- statement's hint (community_deletion.fence_checked); any client can set that
-- setting. Forging it must change nothing: the statement-level fence decides
-- every statement from its transition tables, so a forged hint only moves the
-- refusal from the early check to the end of the statement (55000 still, or a
-- constraint error that the early check would have pre-empted) and no row of
-- a non-active community is ever written. The hint also never outlives the
-- statement that set it.
begin;
\ir ../fixtures/fence.sql
select plan(11);

select tests.seed_community('forged-hint-fenced.example', 2) as f \gset
select tests.seed_community('forged-hint-active.example', 2) as a \gset
select tests.fx_force_state(:'f', 'fenced', 1);
select count(*) as users_before from public.users where community_id = :'f' \gset
grant usage on schema tests to community_deletion_app;
grant execute on all functions in schema tests to community_deletion_app;
set local role community_deletion_app;

-- Hint forged before the statement.
select set_config('community_deletion.fence_checked', :'f', true);
select throws_ok(
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'forged-before') $$, :'f'),
  '55000', null, 'a hint forged before the statement does not admit an INSERT');

-- Hint forged inside the statement, for every row.
select throws_ok(
  format($$ insert into public.pubkey_allowlist (community_id, pubkey)
            select %1$L, 'forged-inline-' || g || coalesce(set_config('community_deletion.fence_checked', %1$L, true), '')
              from generate_series(1, 5) g $$, :'f'),
  '55000', null, 'a hint forged inside the statement does not admit a multi-row INSERT');

select set_config('community_deletion.fence_checked', :'f', true);
select throws_ok(
  format($$ update public.pubkey_allowlist set added_by = 'forged' where community_id = %L $$, :'f'),
  '55000', null, 'a forged hint does not admit an UPDATE');

select set_config('community_deletion.fence_checked', :'f', true);
select throws_ok(
  format($$ delete from public.pubkey_allowlist where community_id = %L $$, :'f'),
  '55000', null, 'a forged hint does not admit a DELETE');

-- With the early check skipped, a parent row's foreign-key check may fail
-- first (23503 instead of 55000): the delete is refused all the same.
select set_config('community_deletion.fence_checked', :'f', true);
select isnt(tests.fx_sqlstate(format($$ delete from public.users where community_id = %L $$, :'f')), '00000',
  'a forged hint does not admit a DELETE of parent rows either');
select is((select count(*) from public.users where community_id = :'f'), :'users_before'::bigint,
  'the fenced community keeps every row');
select is((select count(*)::int from public.pubkey_allowlist where community_id = :'f' and pubkey like 'forged%'), 0,
  'no forged row was written');

-- One statement for two communities: refused as a whole.
select throws_ok(
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'mixed-a'), (%L, 'mixed-f') $$, :'a', :'f'),
  '55000', null, 'a statement writing an active and a fenced community is refused');
select is((select count(*)::int from public.pubkey_allowlist where pubkey like 'mixed-%'), 0,
  'not even the active community''s row of that statement is written');

-- The hint lives for one statement.
insert into public.pubkey_allowlist (community_id, pubkey) select :'a', 'bulk-' || g from generate_series(1, 10) g;
select is(coalesce(current_setting('community_deletion.fence_checked', true), ''), '',
  'the hint is cleared when the statement that set it ends');
select lives_ok(
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'after') $$, :'a'),
  'the active community keeps writing');

reset role;
select * from finish();
rollback;
