-- Two executors claiming at the same time never both win: claims take rows
-- FOR UPDATE SKIP LOCKED, so a second claimer skips a row another claim is
-- granting (it does not wait) and, once granted, the live lease keeps it out.
-- Real concurrent sessions through dblink; setup is committed (this file runs
-- in its own throw-away database).
\ir ../fixtures/lifecycle.sql
select plan(10);

select tests.lc_approved('race-a.example') as ra \gset
select tests.lc_approved('race-b.example') as rb \gset
select tests.lc_force(format($$ update community_deletion.requests set created_at = now() - interval '1 hour' where id = %L $$, :'ra')) \g /dev/null

select dblink_connect('s1', 'dbname=' || current_database()) \g /dev/null
select dblink_connect('s2', 'dbname=' || current_database()) \g /dev/null
-- Without SKIP LOCKED s2 would wait for s1's row lock: fail fast instead of hanging.
select dblink_exec('s2', 'set lock_timeout = ''3s''') \g /dev/null

-- s1 is granting a claim on A (its transaction is still open, the row is locked).
select dblink_exec('s1', 'begin') \g /dev/null
select is((select count(*)::int from dblink('s1', format('select request_id from community_deletion.claim(%L, %L)', 'exec-1', :'ra'))
             as t(request_id uuid)), 1, 's1 claims request A (not yet committed)');

-- s2 asks for A specifically: it skips the locked row instead of waiting, and wins nothing.
select is((select count(*)::int from dblink('s2', format('select request_id from community_deletion.claim(%L, %L)', 'exec-2', :'ra'))
             as t(request_id uuid)), 0, 's2 claiming A while s1 holds it gets zero rows without waiting');
-- s2 asks for the next request: it skips A and takes B.
select is((select request_id from dblink('s2', format('select request_id from community_deletion.claim(%L)', 'exec-2'))
             as t(request_id uuid)), :'rb'::uuid, 's2 claiming the next request skips A and takes B');

select dblink_exec('s1', 'commit') \g /dev/null
select is((select count(*)::int from dblink('s2', format('select request_id from community_deletion.claim(%L, %L)', 'exec-2', :'ra'))
             as t(request_id uuid)), 0, 'after s1 commits, its live lease keeps s2 out of A');
select is((select row(lease_owner, lease_generation)::text from community_deletion.requests where id = :'ra'),
  row('exec-1', 1::bigint)::text, 'A is leased once: exec-1 at generation 1');
select is((select row(lease_owner, lease_generation)::text from community_deletion.requests where id = :'rb'),
  row('exec-2', 1::bigint)::text, 'B is leased once: exec-2 at generation 1');

-- Both sessions race for the same expired request at the same moment: exactly one wins.
update community_deletion.requests set lease_until = now() - interval '1 second' where id = :'ra';
select dblink_exec('s1', 'begin') \g /dev/null
select dblink_exec('s2', 'begin') \g /dev/null
select dblink_send_query('s1', format('select request_id, lease_generation from community_deletion.claim(%L, %L)', 'exec-3', :'ra')) \g /dev/null
select dblink_send_query('s2', format('select request_id, lease_generation from community_deletion.claim(%L, %L)', 'exec-4', :'ra')) \g /dev/null
create temporary table race (session text, request_id uuid, lease_generation bigint);
insert into race select 's1', * from dblink_get_result('s1') as t(request_id uuid, lease_generation bigint);
insert into race select 's2', * from dblink_get_result('s2') as t(request_id uuid, lease_generation bigint);
select dblink_get_result('s1') \g /dev/null
select dblink_get_result('s2') \g /dev/null
select dblink_exec('s1', 'commit') \g /dev/null
select dblink_exec('s2', 'commit') \g /dev/null
select is((select count(*)::int from race), 1, 'two simultaneous claimers: exactly one wins');
select is((select lease_generation from race), 2::bigint, 'the winner holds generation 2');
select is((select lease_generation from community_deletion.requests where id = :'ra'), 2::bigint,
  'the generation was bumped exactly once');
select is((select attempts from community_deletion.requests where id = :'ra'), 2, 'attempts counted exactly once per grant');

select dblink_disconnect('s1') \g /dev/null
select dblink_disconnect('s2') \g /dev/null
select * from finish();
