-- An admitted serving lease renews while its community is quiescing (its
-- effect may finish), but not forever: once quiescing, a renewal never
-- extends it beyond settings.serving_lease_quiescing_cap after quiescing
-- began, and past that point it is refused (DL5S1) — the lease then expires
-- and the fence proceeds. An active community's leases are not capped.
begin;
\ir ../fixtures/fence.sql
select plan(7);

update community_deletion.settings set serving_lease_quiescing_cap = interval '10 minutes';
select * from tests.fx_claimed('capped.example', 'executor-1') \gset
select (l).id as lease_id, (l).generation as lease_gen, (l).fence_generation as lease_fence
  from (select community_deletion.acquire_serving_lease(:'community_id', 'media_upload', 'relay-1', 60) as l) x \gset
select cmp_ok(community_deletion.renew_serving_lease(:'lease_id', 'relay-1', :lease_gen, :lease_fence, 3600),
  '=', now() + interval '3600 seconds', 'while the community is active, a renewal takes the full lease');

select community_deletion.begin_quiescing(:'request_id', 'executor-1', :generation);
select is(community_deletion.renew_serving_lease(:'lease_id', 'relay-1', :lease_gen, :lease_fence, 3600),
  (select quiescing_started_at + interval '10 minutes' from community_deletion.requests where id = :'request_id'),
  'while quiescing, a renewal ends at the cap (quiescing start + 10 minutes), not after an hour');
select cmp_ok(community_deletion.renew_serving_lease(:'lease_id', 'relay-1', :lease_gen, :lease_fence, 60),
  '=', now() + interval '60 seconds', 'a renewal shorter than the cap is unchanged');

-- Quiescing began longer ago than the cap.
select tests.lc_force(format($$ update community_deletion.requests set quiescing_started_at = now() - interval '11 minutes'
                                where id = %L $$, :'request_id'));
select throws_ok(format($$ select community_deletion.renew_serving_lease(%L, 'relay-1', %s, %s, 60) $$, :'lease_id', :lease_gen, :lease_fence),
  'DL5S1', null, 'past the cap, a renewal is refused: the holder must stop');
select throws_ok(format($$ select community_deletion.fence(%L, 'executor-1', %s) $$, :'request_id', :generation),
  'DL5D1', null, 'the fence still waits for the lease until it expires');
update community_deletion.serving_write_leases set lease_until = now() - interval '1 hour' where id = :'lease_id';
select lives_ok(format($$ select community_deletion.fence(%L, 'executor-1', %s) $$, :'request_id', :generation),
  'once the capped lease expired, the fence proceeds');
select is((select deletion_state from public.communities where id = :'community_id'), 'fenced', 'the community is fenced');

select * from finish();
rollback;
