-- Constraints of the control plane hold whatever code writes the rows.
begin;
select plan(12);

select tests.seed_community('cp.example', 1) as c \gset
select tests.seed_community('other.example', 1) as other \gset

select throws_ok(
  format($$ insert into community_deletion.requests (community_id, community_host, requested_by, stage)
            values (%L, 'cp.example', 'alice', 'exploded') $$, :'c'),
  '23514', null, 'an unknown stage value is refused (requests_stage_is_valid)');

select throws_ok(
  format($$ insert into community_deletion.requests (community_id, community_host, requested_by)
            values (%L, 'cp.example', '   ') $$, :'c'),
  '23514', null, 'a blank requester is refused');

insert into community_deletion.requests (id, community_id, community_host, requested_by)
  values ('00000000-0000-4000-8000-000000000001', :'c', 'cp.example', 'alice');

select throws_ok(
  format($$ insert into community_deletion.requests (community_id, community_host, requested_by)
            values (%L, 'cp.example', 'bob') $$, :'c'),
  '23505', null, 'a second non-aborted request for the same community is refused');

select throws_ok($$
  update community_deletion.requests set stage = 'inventoried'
  where id = '00000000-0000-4000-8000-000000000001' $$,
  '23514', null, 'leaving submitted without a frozen inventory is refused');

update community_deletion.requests
   set stage = 'inventoried', schema_manifest = '{}', storage_manifest = '{}', inventory_manifest = '{}',
       inventory_digest = repeat('a', 64), inventory_frozen_at = now()
 where id = '00000000-0000-4000-8000-000000000001';

select throws_ok(format($$
  insert into community_deletion.approvals (request_id, community_id, inventory_digest, approved_by, not_before)
  values ('00000000-0000-4000-8000-000000000001', %L, %L, 'bob', now()) $$, :'c', repeat('b', 64)),
  '23503', null, 'an approval for a different digest is unrepresentable');

select throws_ok(format($$
  insert into community_deletion.approvals (request_id, community_id, inventory_digest, approved_by, not_before)
  values ('00000000-0000-4000-8000-000000000001', %L, %L, 'bob', now()) $$, :'other', repeat('a', 64)),
  '23503', null, 'an approval bound to another community is unrepresentable');

select lives_ok(format($$
  insert into community_deletion.approvals (request_id, community_id, inventory_digest, approved_by, not_before)
  values ('00000000-0000-4000-8000-000000000001', %L, %L, 'bob', now()) $$, :'c', repeat('a', 64)),
  'an approval for the exact request, community and digest is accepted');

select throws_ok($$
  update community_deletion.requests set stage = 'fenced'
  where id = '00000000-0000-4000-8000-000000000001' $$,
  '23514', null, 'a fenced stage without a fence generation is refused');

select throws_ok($$
  update community_deletion.requests set lease_owner = 'exec-1'
  where id = '00000000-0000-4000-8000-000000000001' $$,
  '23514', null, 'a lease owner without an expiry is refused');

select throws_ok($$
  update community_deletion.requests set stage = 'aborted'
  where id = '00000000-0000-4000-8000-000000000001' $$,
  '23514', null, 'aborted without who, why and when is refused');

select throws_ok($$
  insert into community_deletion.checkpoints (request_id, stage, unit_key, status, lease_generation)
  values ('00000000-0000-4000-8000-000000000001', 'approved', 'x', 'failed', 1) $$,
  '23514', null, 'a failed checkpoint must carry its error');

select throws_ok(format($$ insert into public.communities (host) values (upper(%L)) $$, 'cp.example'),
  '23505', null, 'hosts are unique case-insensitively');

select * from finish();
rollback;
