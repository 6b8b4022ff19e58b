-- community_deletion.queue_status(): requests per state over the whole table
-- (no cap: 1,200 requests are all counted), the oldest per state, and which
-- states need an operator. schema_version() reports the engine's version.
begin;
\ir ../fixtures/lifecycle.sql
select plan(6);

-- 1,200 submitted requests, each for its own community (one open request per community).
insert into public.communities (host)
select 'queue-' || g || '.example' from generate_series(1, 1200) g;
insert into community_deletion.requests (community_id, community_host, requested_by, created_at)
select c.id, c.host, 'alice', now() - make_interval(secs => g)
  from (select id, host, row_number() over (order by host) as g from public.communities where host like 'queue-%') c;
select tests.lc_approved('queue-approved.example') as approved \gset
update community_deletion.requests set blocked_at = now(), blocked_reason = 'test block'
 where community_host = 'queue-1.example';

select is((select requests from community_deletion.queue_status() where state = 'waiting_for_inventory'), 1199::bigint,
  'every submitted request is counted (past any list limit)');
select is((select requests from community_deletion.queue_status() where state = 'blocked'), 1::bigint, 'the blocked one');
select is((select requests from community_deletion.queue_status() where state = 'runnable'), 1::bigint, 'the approved one');
select ok((select bool_and(needs_operator = (state in ('blocked', 'waiting_for_approval', 'waiting_for_inventory')))
             from community_deletion.queue_status()), 'needs_operator marks the states an operator must act on');
select is((select oldest_created_at from community_deletion.queue_status() where state = 'waiting_for_inventory'),
  (select min(created_at) from community_deletion.requests where stage = 'submitted' and blocked_at is null),
  'the oldest request per state');
select cmp_ok(community_deletion.schema_version(), '>=', 10, 'the engine reports its schema version');

select * from finish();
rollback;
