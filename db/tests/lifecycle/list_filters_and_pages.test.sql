-- community_deletion.list_requests filters (in_state, host) and pages past
-- 1,000 rows with before (the last request id of the previous page); the old
-- call forms list_requests() and list_requests(n) keep working.
begin;
select plan(11);
\ir ../fixtures/lifecycle.sql

-- 1,205 submitted requests through the API (all created in this
-- transaction, so one created_at: the id orders them, the cursor included).
insert into public.communities (host, name, signing_key, icon)
select format('page-%s.example', g), 'page', decode(tests.hex64('page' || g), 'hex'), 'icon.png' from generate_series(1, 1205) g;
select count(*) from public.communities c, community_deletion.submit(c.host, 'alice') r where c.host like 'page-%.example' \g /dev/null
select tests.lc_approved('filter-a.example') as ra \gset
select tests.lc_inventoried('filter-b.example') as rb \gset

create temporary table pages as
with recursive p(n, ids) as (
  select 1, array(select request_id from community_deletion.list_requests(max_rows => 1000))
  union all
  select n + 1, array(select request_id from community_deletion.list_requests(max_rows => 1000, before => ids[array_length(ids, 1)]))
    from p where array_length(ids, 1) = 1000
)
select n, ids from p;

select is((select count(*)::int from pages), 2, 'two pages of at most 1,000');
select is((select sum(array_length(ids, 1))::int from pages), (select count(*)::int from community_deletion.requests), 'paging reaches every request');
select is((select count(distinct x)::int from pages, unnest(ids) x), (select count(*)::int from community_deletion.requests), 'no request on two pages');
select is(array(select request_id from community_deletion.list_requests(max_rows => 2, before => (select ids[1] from pages where n = 1))),
          (select ids[2:3] from pages where n = 1), 'before lists what is older than the given request, newest first');
select is(array(select request_id from community_deletion.list_requests(max_rows => 1000, in_state => 'waiting_for_approval')), array[:'rb']::uuid[], 'in_state filters by the state word');
select is(array(select request_id from community_deletion.list_requests(host => 'FILTER-A.example')), array[:'ra']::uuid[], 'host filters case-insensitively');
select is((select count(*)::int from community_deletion.list_requests(max_rows => 1000, in_state => 'waiting_for_inventory', host => 'page-7.example')), 1, 'filters combine');
select throws_ok($$ select * from community_deletion.list_requests(in_state => 'nonsense') $$, 'DL1I1', null, 'an unknown state word is refused');
select throws_ok($$ select * from community_deletion.list_requests(before => gen_random_uuid()) $$, 'DL1N1', null, 'an unknown before id is refused');
select is((select count(*)::int from community_deletion.list_requests(5)), 5, 'list_requests(n) still works');
select is((select count(*)::int from community_deletion.list_requests()), 100, 'list_requests() still works');

select * from finish();
rollback;
