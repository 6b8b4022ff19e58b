-- Review finding P1: a lease admitted before quiescing keeps renewing and
-- verifying while the community quiesces (its effect must be able to finish
-- under an exclusion proof); it holds the fence back (serving_not_drained
-- DL5D1, retryable) until released, then the fence closes.
begin;
\ir ../fixtures/fence.sql
select plan(13);

select * from tests.fx_claimed('p1.example', 'executor-1') \gset
select (l).id as lease_id, (l).generation as lease_gen, (l).fence_generation as lease_fence, (l).lease_until as lease_until
  from (select community_deletion.acquire_serving_lease(:'community_id', 'media_upload', 'relay-1', 60) as l) x \gset

select community_deletion.begin_quiescing(:'request_id', 'executor-1', :generation);

select lives_ok(format($$ select community_deletion.verify_serving_lease(%L, 'relay-1', %s, %s) $$, :'lease_id', :lease_gen, :lease_fence),
  'the admitted lease still verifies while quiescing');
select cmp_ok(community_deletion.renew_serving_lease(:'lease_id', 'relay-1', :lease_gen, :lease_fence, 120), '>', :'lease_until'::timestamptz,
  'the admitted lease renews (and extends) while quiescing');
select throws_ok(format($$ select community_deletion.acquire_serving_lease(%L, 'git_push', 'relay-2') $$, :'community_id'),
  'DL5S1', null, 'a new lease is refused while quiescing');

select throws_ok(format($$ select community_deletion.fence(%L, 'executor-1', %s) $$, :'request_id', :generation),
  'DL5D1', null, 'the fence refuses while the admitted lease is live (serving_not_drained)');

-- The refusal names the count and the operations (DETAIL, JSON) for the operator.
create function pg_temp.fence_detail(p_request uuid, p_owner text, p_generation bigint) returns jsonb
language plpgsql as $f$
declare v_detail text;
begin
  perform community_deletion.fence(p_request, p_owner, p_generation);
  return null;
exception when sqlstate 'DL5D1' then
  get stacked diagnostics v_detail = pg_exception_detail;
  return v_detail::jsonb;
end $f$;
select is(pg_temp.fence_detail(:'request_id', 'executor-1', :generation) - 'community_id',
  '{"live_leases": 1, "operations": ["media_upload"]}'::jsonb,
  'the not-drained refusal carries the live lease count and operations');

select is((select deletion_state from public.communities where id = :'community_id'), 'quiescing',
  'the refused fence left the community quiescing');

select is(community_deletion.release_serving_lease(:'lease_id', 'relay-1', :lease_gen, :lease_fence), true,
  'the holder releases its lease when the effect is done');
select is(community_deletion.release_serving_lease(:'lease_id', 'relay-1', :lease_gen, :lease_fence), false,
  'releasing again is harmless');
select is(community_deletion.fence(:'request_id', 'executor-1', :generation), 1::bigint,
  'with no live lease the fence closes at generation 1');
select throws_ok(format($$ select community_deletion.renew_serving_lease(%L, 'relay-1', %s, %s) $$, :'lease_id', :lease_gen, :lease_fence),
  'DL5S1', null, 'the released lease cannot renew');

-- An expired lease that was not released holds the fence back for
-- settings.serving_lease_grace (its writer may have stalled mid-upload: S3
-- has no fence); after that it no longer does.
select * from tests.fx_claimed('p1-expired.example', 'executor-2') \gset e_
select (community_deletion.acquire_serving_lease(:'e_community_id', 'media_upload', 'relay-3')).id as e_lease \gset
select community_deletion.begin_quiescing(:'e_request_id', 'executor-2', :e_generation);
update community_deletion.serving_write_leases set lease_until = now() - interval '1 second' where id = :'e_lease';
select throws_ok(format('select community_deletion.fence(%L, %L, %s)', :'e_request_id', 'executor-2', :e_generation),
  'DL5D1', null, 'a lease expired within the grace still holds the fence back');
update community_deletion.serving_write_leases
   set lease_until = now() - (select serving_lease_grace from community_deletion.settings) + interval '1 second' where id = :'e_lease';
select throws_ok(format('select community_deletion.fence(%L, %L, %s)', :'e_request_id', 'executor-2', :e_generation),
  'DL5D1', null, 'up to the end of the grace');
update community_deletion.serving_write_leases
   set lease_until = now() - (select serving_lease_grace from community_deletion.settings) - interval '1 second' where id = :'e_lease';
select is(community_deletion.fence(:'e_request_id', 'executor-2', :e_generation), 1::bigint,
  'a lease expired longer ago than the grace does not hold the fence back');

select * from finish();
rollback;
