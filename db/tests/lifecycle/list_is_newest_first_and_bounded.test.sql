-- community_deletion.list_requests: newest first, at most p_limit rows, p_limit in 1..1000
-- (invalid_argument DL1I1 otherwise), with the same state word as inspect.
begin;
select plan(7);
\ir ../fixtures/lifecycle.sql

select tests.lc_approved('list-1.example') as r1 \gset
select tests.lc_inventoried('list-2.example') as r2 \gset
select tests.seed_community('list-3.example', 1) \g /dev/null
select id as r3 from community_deletion.submit('list-3.example', 'alice') \gset
select tests.lc_force(format($$ update community_deletion.requests set created_at = now() - interval '3 hours' where id = %L;
  update community_deletion.requests set created_at = now() - interval '2 hours' where id = %L $$, :'r1', :'r2')) \g /dev/null

select is(array(select request_id from community_deletion.list_requests()), array[:'r3', :'r2', :'r1']::uuid[], 'newest first');
select is(array(select request_id from community_deletion.list_requests(2)), array[:'r3', :'r2']::uuid[], 'the limit bounds the rows');
select is(array(select state from community_deletion.list_requests()), array['waiting_for_inventory', 'waiting_for_approval', 'runnable'],
  'each row carries its state');
select is((select approved_by from community_deletion.list_requests() where request_id = :'r1'), 'bob', 'approved rows name the approver');
select throws_ok($$ select * from community_deletion.list_requests(0) $$, 'DL1I1', null, 'a limit of 0 is refused');
select throws_ok($$ select * from community_deletion.list_requests(1001) $$, 'DL1I1', null, 'a limit above 1000 is refused');
select lives_ok($$ select * from community_deletion.list_requests(1000) $$, 'a limit of 1000 is accepted');

select * from finish();
rollback;
