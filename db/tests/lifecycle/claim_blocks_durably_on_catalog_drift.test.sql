-- Catalog drift at claim time (e.g. a migration added a table with
-- community_id during a deletion) does not fail silently: the claim returns no
-- lease, and durably (committed, visible to other sessions) records a failed
-- 'claim:catalog_validation' checkpoint and blocks the request with the
-- reason, so community_deletion.inspect explains it. After the drift is resolved, an
-- unblock lets the deletion proceed.
\ir ../fixtures/lifecycle.sql
select plan(10);

select tests.lc_approved('drift.example') as rid \gset
create table public.lc_max_drift_probe (community_id uuid, note text);

select dblink_connect('executor', 'dbname=' || current_database()) \g /dev/null
-- The executor's claim runs in its own (autocommit) session.
select is((select count(*)::int from dblink('executor', format('select request_id from community_deletion.claim(%L, %L)', 'exec-1', :'rid'))
             as t(request_id uuid)), 0, 'the claim grants no lease on catalog drift (and does not raise)');
select dblink_disconnect('executor') \g /dev/null

select is((select row(stage, lease_owner)::text from community_deletion.requests where id = :'rid'),
  row('approved', null::text)::text, 'the request stays at its stage without a lease');
select ok((select blocked_at is not null from community_deletion.requests where id = :'rid'),
  'the block was committed by the executor''s session');
select matches((select blocked_reason from community_deletion.requests where id = :'rid'), 'lc_max_drift_probe',
  'the block reason names the unknown table');
select is((select row(stage, status, attempts)::text from community_deletion.checkpoints
            where request_id = :'rid' and unit_key = 'claim:catalog_validation'),
  row('approved', 'failed', 1)::text, 'a failed claim:catalog_validation checkpoint is recorded');
select is(community_deletion.inspect(:'rid')->>'state', 'blocked', 'inspect shows the stranded request as blocked');
select matches(community_deletion.inspect(:'rid')->>'explanation', 'catalog drift', 'and explains why');
select is((select count(*)::int from community_deletion.claim('exec-2', :'rid')), 0, 'a blocked request is not claimed');

drop table public.lc_max_drift_probe;
select 1 from community_deletion.unblock(:'rid', 'carol', 'dropped the stray table') \g /dev/null
select is((select lease_owner from community_deletion.claim('exec-3', :'rid')), 'exec-3',
  'once the drift is resolved and the request unblocked, the claim succeeds');
select is((select attempts from community_deletion.checkpoints where request_id = :'rid' and unit_key = 'claim:catalog_validation'), 1,
  'the failure evidence is kept');

select * from finish();
