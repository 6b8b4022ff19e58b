-- The application writer role (community_deletion_app): ordinary tenant writes
-- and serving-write leases, nothing else. It cannot touch the control plane,
-- call operator or executor functions, change lifecycle columns, or write a
-- fenced community.
begin;
\ir ../fixtures/fence.sql
select plan(16);

select * from tests.fx_claimed('app-target.example', 'executor-1') \gset
select tests.seed_community('app-active.example', 1) as a \gset

set local role community_deletion_app;
select lives_ok(format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'app-write') $$, :'a'),
  'the application writes tenant rows of an active community');
select lives_ok(format($$ insert into public.product_feedback (community_id, body) values (%L, 'thanks') $$, :'a'),
  'the application writes provenance rows');
select lives_ok(format($$ select community_deletion.acquire_serving_lease(%L, 'upload', 'relay') $$, :'a'),
  'the application acquires serving-write leases');
select lives_ok($$ select community_deletion.validate_serving_catalog() $$,
  'the application can run the serving readiness check');

select is_empty($$
  select t from unnest(array['community_deletion.requests', 'community_deletion.approvals',
    'community_deletion.checkpoints', 'community_deletion.executor_heartbeats', 'community_deletion.manifest_keys',
    'community_deletion.serving_write_leases', 'community_deletion.serving_write_grants', 'community_deletion.registered_tables',
    'community_deletion.storage_taxonomy', 'community_deletion.settings', 'community_deletion.taxonomy_sweeps']) t
  where has_table_privilege('community_deletion_app', t, 'select, insert, update, delete, truncate')
$$, 'the application has no privilege on any control-plane table');
select throws_ok($$ select count(*) from community_deletion.requests $$,
  '42501', null, 'reading the requests table is denied');
select throws_ok(format($$ update community_deletion.serving_write_leases set lease_until = now() + interval '1 day' where community_id = %L $$, :'a'),
  '42501', null, 'extending a serving lease behind the engine''s back is denied');
select throws_ok(format($$ insert into community_deletion.approvals (request_id, community_id, inventory_digest, approved_by, not_before)
                           values (%L, %L, repeat('0', 64), 'me', now()) $$, :'request_id', :'community_id'),
  '42501', null, 'forging an approval is denied');

select throws_ok(format($$ select * from community_deletion.claim('app', %L) $$, :'request_id'),
  '42501', null, 'the application cannot claim (executor function)');
select throws_ok(format($$ select community_deletion.begin_quiescing(%L, 'executor-1', %s) $$, :'request_id', :generation),
  '42501', null, 'the application cannot quiesce (executor function)');
select throws_ok(format($$ select community_deletion.fence(%L, 'executor-1', %s) $$, :'request_id', :generation),
  '42501', null, 'the application cannot fence (executor function)');
select throws_ok(format($$ select community_deletion.purge_postgres(%L, 'executor-1', %s, 1) $$, :'request_id', :generation),
  '42501', null, 'the application cannot purge (executor function)');
select throws_ok(format($$ select community_deletion.abort(%L, 'app', 'no') $$, :'request_id'),
  '42501', null, 'the application cannot abort (operator function)');
select throws_ok(format($$ select community_deletion._restore_community(%L, null, false) $$, :'community_id'),
  '42501', null, 'the application cannot call engine internals');
select throws_ok(format($$ update public.communities set deletion_state = 'active' where id = %L $$, :'community_id'),
  '42501', null, 'the application cannot update lifecycle columns');
reset role;

select community_deletion.begin_quiescing(:'request_id', 'executor-1', :generation);
select community_deletion.fence(:'request_id', 'executor-1', :generation);
set local role community_deletion_app;
select throws_ok(format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'fenced') $$, :'community_id'),
  '55000', null, 'the application cannot write a fenced community');
reset role;

select * from finish();
rollback;
