-- community_deletion.block: a permanent failure is a failed checkpoint plus a durable
-- block with the reason; the lease is released and nothing claims it again.
begin;
select plan(7);
\ir ../fixtures/lifecycle.sql

select tests.lc_approved('block.example') as rid \gset
select tests.lc_claim(:'rid', 'exec-1') as g \gset

select throws_ok(format($$ select community_deletion.block(%L, 'exec-1', %s, 'fenced', 'preflight', 'x') $$, :'rid', :g),
  'DL4L1', null, 'a block for another stage than the lease''s is stale');
select lives_ok(format($$ select community_deletion.block(%L, 'exec-1', %s, 'approved', 's3:versioning', 'bucket versioning is suspended') $$, :'rid', :g),
  'the lease holder blocks the request');
select is((select row(blocked_reason, last_error, lease_owner, stage)::text from community_deletion.requests where id = :'rid'),
  row('bucket versioning is suspended', 'bucket versioning is suspended', null::text, 'approved')::text,
  'the block records the reason, releases the lease and keeps the stage');
select is((select row(stage, status, error, detail->>'retryable')::text from community_deletion.checkpoints
            where request_id = :'rid' and unit_key = 's3:versioning'),
  row('approved', 'failed', 'bucket versioning is suspended', 'false')::text, 'a failed checkpoint records the permanent failure');
select is((select count(*)::int from community_deletion.claim('exec-2', :'rid')), 0, 'a blocked request is not claimed');
select throws_ok(format($$ select community_deletion.block(%L, 'exec-1', %s, 'approved', 'again', 'x') $$, :'rid', :g),
  'DL4L1', null, 'the released token cannot block again');
select is(community_deletion.inspect(:'rid')->>'state', 'blocked', 'inspect reports blocked');

select * from finish();
rollback;
