-- Abort's community restoration (docs/design.md#failure-handling): back to active,
-- archived_at restored to its value BEFORE the deletion quiesced it (a
-- previously archived community keeps its old timestamp, a never-archived one
-- returns to NULL), the fence generation bumped so every stale executor token
-- and serving lease fails closed; the application writes again afterwards.
begin;
\ir ../fixtures/fence.sql
select plan(12);

-- A community archived long before the deletion, aborted after the fence.
select tests.seed_community('was-archived.example', 1) as old_c \gset
update public.communities set archived_at = '2021-06-07 08:09:10+00' where id = :'old_c';
select r.id as old_r from community_deletion.submit('was-archived.example', 'alice', 'test') r \gset
select community_deletion.freeze_inventory(:'old_r', tests.lc_storage_summary(:'old_c'), tests.store_identity()) is not null;
select tests.approve(:'old_r', 'bob') is not null;
select lease_generation as old_g from community_deletion.claim('executor-1', :'old_r', 3600) \gset
select community_deletion.begin_quiescing(:'old_r', 'executor-1', :old_g);
select community_deletion.fence(:'old_r', 'executor-1', :old_g) as old_fence \gset
select community_deletion.abort(:'old_r', 'carol', 'changed our mind') is not null;

select is((select (deletion_state, archived_at)::text from public.communities where id = :'old_c'),
  (select ('active', '2021-06-07 08:09:10+00'::timestamptz)::text),
  'a previously archived community is active again with its original archived_at');
select is((select deletion_fence_generation from public.communities where id = :'old_c'), 2::bigint,
  'the fence generation moved past the fence (1) to 2');
select throws_ok(format($$ select community_deletion.verify_token(%L, 'executor-1', %s, 'fenced') $$, :'old_r', :old_g),
  'DL4L1', null, 'the executor''s token is stale after abort');
select throws_ok(format($$ select community_deletion._verify_lease_and_fence(%L, 'executor-1', %s, 'fenced', %s) $$, :'old_r', :old_g, :old_fence),
  'DL4L1', null, 'the old fence generation is stale after abort');

-- A never-archived community, aborted while quiescing (still approved), with an
-- admitted lease released before the abort.
select * from tests.fx_claimed('never-archived.example', 'executor-2') \gset new_
select (l).id as lid, (l).generation as lg, (l).fence_generation as lfg
  from (select community_deletion.acquire_serving_lease(:'new_community_id', 'push', 'relay-1') as l) x \gset
select community_deletion.begin_quiescing(:'new_request_id', 'executor-2', :new_generation);
select is((select archived_at is not null from public.communities where id = :'new_community_id'), true,
  'quiescing archived the community');
select throws_ok(format($$ select community_deletion.abort(%L, 'carol', 'stop') $$, :'new_request_id'),
  'DL5D1', null, 'abort is refused while a serving-write lease is live');
select community_deletion.release_serving_lease(:'lid', 'relay-1', :lg, :lfg);
select is((select stage from community_deletion.abort(:'new_request_id', 'carol', 'stop')), 'aborted', 'abort terminalises the request');
select is((select (deletion_state, archived_at, deletion_fence_generation)::text from public.communities where id = :'new_community_id'),
  '(active,,1)', 'a never-archived community returns to active with archived_at NULL, generation bumped to 1');
select throws_ok(format($$ select community_deletion.begin_quiescing(%L, 'executor-2', %s) $$, :'new_request_id', :new_generation),
  'DL4L1', null, 'the executor cannot re-quiesce the rescued community');

set local role community_deletion_app;
select lives_ok(format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'welcome-back') $$, :'new_community_id'),
  'the application role writes the rescued community again');
select lives_ok(format($$ update public.users set display_name = 'back' where community_id = %L $$, :'old_c'),
  'and the rescued archived community too');
select lives_ok(format($$ select community_deletion.acquire_serving_lease(%L, 'push', 'relay-1') $$, :'new_community_id'),
  'new serving-write leases are admitted again (at the new generation)');
reset role;

select * from finish();
rollback;
