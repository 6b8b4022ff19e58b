-- The seeds authorised the executor through session settings any client could
-- set. Here no setting authorises anything: the engine is recognised only as
-- current_user = community_deletion_owner (its security-definer functions), and
-- serving writes only by a grant row only the engine can insert.
begin;
\ir ../fixtures/fence.sql
select plan(10);

select tests.seed_community('fenced.example', 1) as f \gset
select tests.seed_community('quiet.example', 1) as q \gset
select tests.fx_force_state(:'f', 'fenced', 1);
select tests.fx_force_state(:'q', 'quiescing', 0);

-- Every name the seeds (or a guess) might use, set for this transaction.
select set_config(name, value, true) from (values
  ('community_deletion.executor_community', :'f'),
  ('community_deletion.fence_generation', '1'),
  ('community_deletion.executor', 'on'),
  ('buzz.deletion_executor_community', :'f'),
  ('buzz.deletion_fence_generation', '1'),
  ('buzz.serving_write_community', :'q'),
  ('buzz.serving_write_fence_generation', '0'),
  ('community_deletion.serving_write_community', :'q')) as s(name, value);

select throws_ok(
  format($$ delete from public.pubkey_allowlist where community_id = %L $$, :'f'),
  '55000', null, 'a superuser session with forged executor settings cannot write a fenced community');

set local role community_deletion_app;
select throws_ok(
  format($$ delete from public.pubkey_allowlist where community_id = %L $$, :'f'),
  '55000', null, 'the application role with forged executor settings cannot write a fenced community');
select throws_ok(
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'forged') $$, :'q'),
  '55000', null, 'forged serving-write settings do not admit a write to a quiescing community');
select throws_ok(
  format($$ select community_deletion.assert_community_write_allowed(%L) $$, :'f'),
  '55000', null, 'assert_community_write_allowed ignores forged settings');
select throws_ok(
  format($$ insert into community_deletion.serving_write_grants (xact_id, community_id, lease_id, fence_generation)
            values (pg_current_xact_id(), %L, gen_random_uuid(), 0) $$, :'q'),
  '42501', null, 'the application role cannot forge a serving-write grant row');
select is(community_deletion._serving_write_granted(:'q', 0), false,
  'the application role holds no serving-write grant it did not obtain through the guard');
reset role;

-- The recognition rule itself: code running as the owner role (only the
-- engine's security-definer functions do) may write a fenced community, but
-- not a quiescing one (the engine never writes tenant rows before the fence).
set local role community_deletion_owner;
select lives_ok(
  format($$ delete from public.pubkey_allowlist where community_id = %L $$, :'f'),
  'the engine owner role writes a fenced community (the purge path)');
select throws_ok(
  format($$ delete from public.pubkey_allowlist where community_id = %L $$, :'q'),
  '55000', null, 'the engine owner role is not admitted to a quiescing community');
reset role;

select ok(not exists (
  select 1 from pg_catalog.pg_auth_members m where m.roleid = 'community_deletion_owner'::regrole),
  'nobody is a member of the engine owner role');
select ok(not pg_has_role('community_deletion_app', 'community_deletion_owner', 'MEMBER')
          and not pg_has_role('community_deletion_executor', 'community_deletion_owner', 'MEMBER')
          and not pg_has_role('community_deletion_operator', 'community_deletion_owner', 'MEMBER'),
  'no engine client role can SET ROLE to the owner');

select * from finish();
rollback;
