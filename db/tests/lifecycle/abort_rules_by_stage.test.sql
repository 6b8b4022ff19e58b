-- community_deletion.abort: at submitted or inventoried a withdrawal (the
-- community untouched); at approved or fenced it restores the community
-- (active, pre-quiesce archived_at, fence generation + 1); never from drained
-- on (DL2S1), DL2T1 when terminal, refused while serving leases are live
-- (DL5D1). It terminalises the request with an audit checkpoint, invalidates
-- every token, and a fresh request may follow.
begin;
select plan(33);
\ir ../fixtures/lifecycle.sql

-- Refusals by stage.
select tests.seed_community('abort-submitted.example', 1) as c1 \gset
select id as r_submitted from community_deletion.submit('abort-submitted.example', 'alice') \gset
select deletion_fence_generation as c1_generation from public.communities where id = :'c1' \gset
select is((select stage from community_deletion.abort(:'r_submitted', 'carol', 'filed by mistake')), 'aborted',
  'a submitted request is withdrawn');
select is((select (deletion_state, deletion_fence_generation)::text from public.communities where id = :'c1'),
  format('(active,%s)', :'c1_generation'), 'a withdrawal leaves the community exactly as it was');
select is((select detail->>'withdrawn' from community_deletion.checkpoints
            where request_id = :'r_submitted' and unit_key like 'operator_abort:%'), 'true',
  'with the same audit evidence (an operator_abort checkpoint)');
select lives_ok($$ select community_deletion.submit('abort-submitted.example', 'alice', 'the right one') $$,
  'a fresh request for the community may follow at once');
select tests.lc_inventoried('abort-inventoried.example') as r_inventoried \gset
select is((select stage from community_deletion.abort(:'r_inventoried', 'carol', 'not this one')), 'aborted',
  'an inventoried request is withdrawn');
select tests.lc_approved('abort-drained.example') as r_drained \gset
select tests.lc_force_fenced(:'r_drained', 1) \g /dev/null
select tests.lc_force(format($$ update community_deletion.requests set stage = 'drained' where id = %L $$, :'r_drained')) \g /dev/null
select throws_ok(format($$ select community_deletion.abort(%L, 'carol', 'x') $$, :'r_drained'), 'DL2S1', null,
  'a drained request cannot be aborted (objects may be gone)');
select tests.lc_force(format($$ update community_deletion.requests set stage = 'bindings_removed' where id = %L $$, :'r_drained')) \g /dev/null
select throws_ok(format($$ select community_deletion.abort(%L, 'carol', 'x') $$, :'r_drained'), 'DL2S1', null,
  'a bindings_removed request cannot be aborted');
select tests.lc_force(format($$ update community_deletion.requests set stage = 'logically_verified' where id = %L $$, :'r_drained')) \g /dev/null
select throws_ok(format($$ select community_deletion.abort(%L, 'carol', 'x') $$, :'r_drained'), 'DL2S1', null,
  'a logically_verified request cannot be aborted');
select tests.lc_force(format($$ update community_deletion.requests set stage = 'retention_pending', completed_at = now() where id = %L $$, :'r_drained')) \g /dev/null
select throws_ok(format($$ select community_deletion.abort(%L, 'carol', 'x') $$, :'r_drained'), 'DL2T1', null,
  'a completed request cannot be aborted');
select throws_ok(format($$ select community_deletion.abort(%L, 'carol', 'x') $$, gen_random_uuid()), 'DL1N1', null,
  'an unknown request is refused');

-- Abort at approved, with a live executor lease.
select tests.lc_approved('abort-approved.example') as rid \gset
select community_id as c from community_deletion.requests where id = :'rid' \gset
select tests.lc_claim(:'rid', 'exec-1') as g \gset
select throws_ok(format($$ select community_deletion.abort(%L, ' ', 'x') $$, :'rid'), 'DL1I1', null, 'a blank operator is refused');
select throws_ok(format($$ select community_deletion.abort(%L, 'carol', '') $$, :'rid'), 'DL1I1', null, 'a blank reason is refused');

insert into community_deletion.serving_write_leases (community_id, operation, owner, fence_generation, lease_until)
values (:'c', 'media_upload', 'relay-1', 0, now() + interval '30 seconds');
select throws_ok(format($$ select community_deletion.abort(%L, 'carol', 'x') $$, :'rid'), 'DL5D1', null,
  'a live serving-write lease refuses the abort (retryable)');
update community_deletion.serving_write_leases set lease_until = now() - interval '1 hour' where community_id = :'c';

select is((select row(stage, aborted_by, abort_reason, aborted_at, completed_at, lease_owner, blocked_at)::text
             from community_deletion.abort(:'rid', ' carol ', ' tenant changed their mind ')),
  row('aborted', 'carol', 'tenant changed their mind', now(), now(), null::text, null::timestamptz)::text,
  'abort terminalises the request with who, why and when, and drops the lease');
select is((select row(deletion_state, deletion_fence_generation, archived_at)::text from public.communities where id = :'c'),
  row('active', 1::bigint, null::timestamptz)::text, 'the community is active with its fence generation bumped');
select is((select row(lease_generation, fence_generation)::text from community_deletion.requests where id = :'rid'),
  row(:g::bigint + 1, 1::bigint)::text, 'the request''s lease generation is bumped and it records the new fence generation');
select is((select row(status, stage, detail->>'aborted_by', detail->>'reason', detail->>'old_fence_generation', detail->>'new_fence_generation')::text
             from community_deletion.checkpoints where request_id = :'rid' and unit_key like 'operator\_abort:%'),
  row('completed', 'approved', 'carol', 'tenant changed their mind', '0', '1')::text,
  'an audit checkpoint records the abort and the generations');

select throws_ok(format($$ select community_deletion.verify_token(%L, 'exec-1', %s, 'approved') $$, :'rid', :g), 'DL4L1', null,
  'the executor''s token is stale after the abort');
select throws_ok(format($$ select community_deletion._advance(%L, 'exec-1', %s, 'approved', 'fenced', 1) $$, :'rid', :g), 'DL4L1', null,
  'the executor cannot advance an aborted request');
select is((select count(*)::int from community_deletion.claim('exec-2', :'rid')), 0, 'an aborted request is never claimed');
select throws_ok(format($$ select community_deletion.unblock(%L, 'carol', 'x') $$, :'rid'), 'DL2T1', null, 'an aborted request is never unblocked');
select throws_ok(format($$ select community_deletion.block_preclaim(%L, 'service_setup', 'x') $$, :'rid'), 'DL2T1', null,
  'an aborted request records no setup failure');
select throws_ok(format($$ select community_deletion.abort(%L, 'carol', 'again') $$, :'rid'), 'DL2T1', null,
  'an aborted request cannot be aborted again');
select is(community_deletion.inspect(:'rid')->>'state', 'aborted', 'inspect reports aborted');

-- A fresh request with a fresh inventory may follow.
select id as fresh from community_deletion.submit('abort-approved.example', 'dave', 'second attempt') \gset
select isnt(:'fresh'::uuid, :'rid'::uuid, 'a fresh submission after abort creates a new request');
select is((select row(stage, inventory_digest)::text from community_deletion.requests where id = :'fresh'),
  row('submitted', null::text)::text, 'the fresh request starts submitted without an inventory');
select is((select stage from community_deletion.freeze_inventory(:'fresh', tests.lc_storage_summary(:'c'), tests.store_identity())), 'inventoried',
  'and freezes a fresh inventory');
select is((select stage from community_deletion.requests where id = :'rid'), 'aborted', 'the aborted request is kept as evidence');

-- Abort at fenced restores the pre-quiesce archived_at and the community.
select tests.lc_approved('abort-fenced.example') as rid2 \gset
select community_id as c2 from community_deletion.requests where id = :'rid2' \gset
select tests.lc_claim(:'rid2', 'exec-3') as g2 \gset
select tests.lc_force_fenced(:'rid2', 5, '2020-01-01 00:00:00+00') \g /dev/null
select is((select stage from community_deletion.abort(:'rid2', 'carol', 'fence went wrong')), 'aborted', 'a fenced request can be aborted');
select is((select row(deletion_state, deletion_fence_generation, archived_at)::text from public.communities where id = :'c2'),
  row('active', 6::bigint, '2020-01-01 00:00:00+00'::timestamptz)::text,
  'the community is active again at generation + 1 with its pre-quiesce archived_at');
select throws_ok(format($$ select community_deletion.verify_token(%L, 'exec-3', %s, 'fenced') $$, :'rid2', :g2), 'DL4L1', null,
  'the fenced executor''s token is stale');

-- A never-archived community is restored to archived_at null.
select tests.lc_approved('abort-never-archived.example') as rid3 \gset
select community_id as c3 from community_deletion.requests where id = :'rid3' \gset
select tests.lc_force_fenced(:'rid3', 1, null) \g /dev/null
select 1 from community_deletion.abort(:'rid3', 'carol', 'x') \g /dev/null
select is((select archived_at from public.communities where id = :'c3'), null,
  'a never-archived community is restored to archived_at null (quiescing had set it)');

-- Abort takes the community lock first: it waits for a holder of that lock.
select is((select count(*)::int from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()
             and objid = (community_deletion._community_lock_key(:'c3') & 4294967295)
             and classid = ((community_deletion._community_lock_key(:'c3') >> 32) & 4294967295) and mode = 'ExclusiveLock'), 1,
  'abort holds the community advisory lock exclusively until commit');

select * from finish();
rollback;
