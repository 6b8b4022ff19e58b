-- A request forced into a runnable stage without an approval row (or with an
-- approval that does not match) is never claimable and no lease verifies.
begin;
select plan(5);
\ir ../fixtures/lifecycle.sql

select tests.lc_inventoried('forged.example') as rid \gset
update public.community_deletion_requests set stage = 'approved' where id = :'rid';

select is((select stage from public.community_deletion_requests where id = :'rid'), 'approved',
  'the stage was forced to approved without an approval');
select is((select count(*)::int from public.deletion_claim('forger', :'rid')), 0,
  'a specific claim does not take it');
select is((select count(*)::int from public.deletion_claim('forger')), 0,
  'claim-next does not take it');
select is(public.deletion_inspect(:'rid')->>'state', 'waiting_for_approval',
  'inspect explains that no approval matches');

-- Even a forged lease on it does not verify.
update public.community_deletion_requests set lease_owner = 'forger', lease_generation = 1, lease_until = now() + interval '1 minute'
 where id = :'rid';
select throws_ok(format($$ select public.deletion_verify_token(%L, 'forger', 1, 'approved') $$, :'rid'),
  'DL4L1', null, 'a lease on an unapproved request never verifies');

select * from finish();
rollback;
