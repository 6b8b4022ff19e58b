-- community_deletion.submit: resolves the host case-insensitively, only for an active,
-- never-deleted community, at most one open request per community; the same
-- requester resubmitting while submitted gets the same request back.
begin;
select plan(15);
\ir ../fixtures/lifecycle.sql

select tests.seed_community('Target.Example', 1) as c \gset
select tests.seed_community('other.example', 1) as other \gset

select id as rid, community_id, community_host, stage, requested_by, reason
  from community_deletion.submit('  target.EXAMPLE ', ' alice ', ' leaving ') \gset
select is(:'community_id'::uuid, :'c'::uuid, 'the host resolves case-insensitively to the community');
select is(:'community_host'::text, 'Target.Example', 'the request keeps the community''s own host spelling');
select is(:'stage'::text, 'submitted', 'a new request starts submitted');
select is(:'requested_by'::text, 'alice', 'the requester identity is stored trimmed');
select is(:'reason'::text, 'leaving', 'the reason is stored trimmed');

select is((select id from community_deletion.submit('target.example', 'Alice')), :'rid'::uuid,
  'the same requester resubmitting while submitted gets the existing request');

select throws_ok($$ select community_deletion.submit('target.example', 'bob') $$, 'DL2C2', null,
  'another requester cannot open a second request for the community');

select 1 from community_deletion.freeze_inventory(:'rid', tests.lc_storage_summary(:'c'), tests.store_identity()) \g /dev/null
select throws_ok($$ select community_deletion.submit('target.example', 'alice') $$, 'DL2C2', null,
  'the requester cannot resubmit once the request moved past submitted');

select throws_ok($$ select community_deletion.submit('nowhere.example', 'alice') $$, 'DL1N2', null,
  'an unknown host is refused');
select throws_ok($$ select community_deletion.submit('other.example', '   ') $$, 'DL1I1', null,
  'a blank requester is refused');
select throws_ok($$ select community_deletion.submit('', 'alice') $$, 'DL1I1', null,
  'a blank host is refused');

select tests.lc_force(format($$ update public.communities set deletion_state = 'quiescing' where id = %L $$, :'other')) \g /dev/null
select throws_ok($$ select community_deletion.submit('other.example', 'alice') $$, 'DL2C1', null,
  'a quiescing community is not eligible');
select tests.lc_force(format($$ update public.communities set deletion_state = 'fenced' where id = %L $$, :'other')) \g /dev/null
select throws_ok($$ select community_deletion.submit('other.example', 'alice') $$, 'DL2C1', null,
  'a fenced community is not eligible');
select tests.lc_force(format($$ update public.communities set deletion_state = 'tombstone', deleted_at = now() where id = %L $$, :'other')) \g /dev/null
select throws_ok($$ select community_deletion.submit('other.example', 'alice') $$, 'DL2C1', null,
  'a tombstoned community is not eligible');

select is((select count(*)::int from community_deletion.requests where community_id in (:'c', :'other')), 1,
  'refusals created no request rows');

select * from finish();
rollback;
