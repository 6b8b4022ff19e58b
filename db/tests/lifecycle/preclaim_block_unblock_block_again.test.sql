-- A failure before any claim (service setup) is recorded durably against the
-- request: a failed 'pre_claim:' checkpoint and a block, no lease. After an
-- unblock, the same failure blocks again and the checkpoint counts attempts = 2.
-- Terminal and live-leased requests refuse it.
begin;
select plan(16);
\ir ../fixtures/lifecycle.sql

select tests.lc_approved('preclaim.example') as rid \gset

select is((select row(stage, blocked_reason, last_error, lease_owner)::text
             from community_deletion.block_preclaim(:'rid', 'pre_claim:service_setup', 'BUZZ_S3_ENDPOINT is required')),
  row('approved', 'BUZZ_S3_ENDPOINT is required', 'BUZZ_S3_ENDPOINT is required', null::text)::text,
  'the setup failure blocks the request at its stage, without a lease');
select is((select row(stage, status, attempts, error, detail->>'error', completed_at)::text from community_deletion.checkpoints
            where request_id = :'rid' and unit_key = 'pre_claim:service_setup'),
  row('approved', 'failed', 1, 'BUZZ_S3_ENDPOINT is required', 'BUZZ_S3_ENDPOINT is required', null::timestamptz)::text,
  'a failed pre_claim checkpoint records it (attempts 1)');
select is(community_deletion.inspect(:'rid')->>'state', 'blocked', 'inspect explains the stranded request');
select matches(community_deletion.inspect(:'rid')->>'explanation', 'BUZZ_S3_ENDPOINT is required', 'with the setup error');

select 1 from community_deletion.unblock(:'rid', 'carol', 'endpoint configured') \g /dev/null
select is((select blocked_at from community_deletion.requests where id = :'rid'), null, 'unblocked');

select is((select row(blocked_reason, last_error)::text
             from community_deletion.block_preclaim(:'rid', 'service_setup', 'BUZZ_REDIS_URL is required')),
  row('BUZZ_REDIS_URL is required', 'BUZZ_REDIS_URL is required')::text,
  'the same unit failing again re-blocks with the new error (unit key prefixed with pre_claim:)');
select is((select row(status, attempts, error, detail->>'error', completed_at)::text from community_deletion.checkpoints
            where request_id = :'rid' and unit_key = 'pre_claim:service_setup'),
  row('failed', 2, 'BUZZ_REDIS_URL is required', 'BUZZ_REDIS_URL is required', null::timestamptz)::text,
  'the checkpoint is upserted: attempts = 2, latest error and detail');
select is((select count(*)::int from community_deletion.checkpoints where request_id = :'rid' and unit_key like 'pre\_claim:%'), 1,
  'one checkpoint per pre-claim unit');

-- A submitted request can be blocked before claim too (e.g. inventory setup).
select tests.seed_community('preclaim-submitted.example', 1) as c2 \gset
select id as rid2 from community_deletion.submit('preclaim-submitted.example', 'alice') \gset
select is((select stage from community_deletion.block_preclaim(:'rid2', 'inventory', 'S3 listing denied')), 'submitted',
  'a submitted request records a pre-claim failure at its stage');

select throws_ok(format($$ select community_deletion.block_preclaim(%L, 'x', 'y') $$, gen_random_uuid()), 'DL1N1', null,
  'an unknown request is refused');
select throws_ok(format($$ select community_deletion.block_preclaim(%L, '', 'y') $$, :'rid'), 'DL1I1', null,
  'a blank unit is refused');
select throws_ok(format($$ select community_deletion.block_preclaim(%L, 'x', ' ') $$, :'rid'), 'DL1I1', null,
  'a blank error is refused');

-- A live-leased request is the executor's to report.
select tests.lc_approved('preclaim-leased.example') as rid3 \gset
select tests.lc_claim(:'rid3', 'exec-1') as g \gset
select throws_ok(format($$ select community_deletion.block_preclaim(%L, 'service_setup', 'x') $$, :'rid3'), 'DL4L2', null,
  'a request leased by a live executor refuses a pre-claim failure');
update community_deletion.requests set lease_until = now() - interval '1 second' where id = :'rid3';
select is((select blocked_reason from community_deletion.block_preclaim(:'rid3', 'service_setup', 'late setup failure')), 'late setup failure',
  'once the lease expired, a pre-claim failure is recorded');

-- Terminal requests refuse it.
select tests.lc_approved('preclaim-aborted.example') as rid4 \gset
select 1 from community_deletion.abort(:'rid4', 'carol', 'cancel') \g /dev/null
select throws_ok(format($$ select community_deletion.block_preclaim(%L, 'service_setup', 'x') $$, :'rid4'), 'DL2T1', null,
  'an aborted request records no setup failure');
select tests.lc_force(format($$ update community_deletion.requests set stage = 'retention_pending', completed_at = now(),
  fence_generation = 1, lease_owner = null, lease_until = null where id = %L $$, :'rid')) \g /dev/null
select throws_ok(format($$ select community_deletion.block_preclaim(%L, 'service_setup', 'x') $$, :'rid'), 'DL2T1', null,
  'a completed (retention_pending) request records no setup failure');

select * from finish();
rollback;
