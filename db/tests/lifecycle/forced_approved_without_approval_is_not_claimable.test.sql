-- A request forced into a runnable stage without an approval row (or with an
-- approval that does not match) is never claimable and no lease verifies.
begin;
select plan(5);
\ir ../fixtures/lifecycle.sql

select tests.lc_inventoried('forged.example') as rid \gset
update community_deletion.requests set stage = 'approved' where id = :'rid';

select is((select stage from community_deletion.requests where id = :'rid'), 'approved',
  'the stage was forced to approved without an approval');
select is((select count(*)::int from community_deletion.claim('forger', :'rid')), 0,
  'a specific claim does not take it');
select is((select count(*)::int from community_deletion.claim('forger')), 0,
  'claim-next does not take it');
select is(community_deletion.inspect(:'rid')->>'state', 'waiting_for_approval',
  'inspect explains that no approval matches');

-- Even a forged lease on it does not verify.
update community_deletion.requests set lease_owner = 'forger', lease_generation = 1, lease_until = now() + interval '1 minute'
 where id = :'rid';
select throws_ok(format($$ select community_deletion.verify_token(%L, 'forger', 1, 'approved') $$, :'rid'),
  'DL4L1', null, 'a lease on an unapproved request never verifies');

select * from finish();
rollback;
