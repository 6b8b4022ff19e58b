-- A whole deletion driven from psql, fenced → retention_pending, with
-- hand-made key chunks: every target row is gone from all 28 scoped tables,
-- provenance rows survive with a NULL community, the bystander is
-- byte-identical, the tombstone is present and permanent and its host is
-- reserved, and the request ends completed with its lease released.
begin;
\ir ../fixtures/destruction.sql
select plan(27);

select tests.seed_community('bystander.example', 3) as bystander \gset
select * from tests.dx_fenced_request('target.example', 3) \gset
select tests.community_fingerprint(:'bystander') as bystander_before \gset
select (select count(*) from public.product_feedback) + (select count(*) from public.rate_limit_violations) as provenance_before \gset

select is((select sum(row_count)::int > 28 from tests.scoped_row_counts(:'community_id')), true,
  'the target starts with rows in the scoped tables');

-- fenced: enumerate, freeze, drained
select tests.dx_enumerate(:'request_id', :'owner', :'generation', :'fence_generation', :'community_id',
  tests.dx_sample_entries(:'community_id'), 2) as manifest \gset
select lives_ok(format($$ select community_deletion.freeze_destructive_manifest(%L, %L, %s, %s, %L) $$,
  :'request_id', :'owner', :'generation', :'fence_generation', :'manifest'), 'the destructive manifest freezes');
select results_eq(format($$ select prefix, entry_count from community_deletion.manifest_keys
                            where request_id = %L order by chunk_no $$, :'request_id'),
  format($$ values ('_meta/%1$s/', 2), ('_meta/%1$s/', 1), ('_uploads/%1$s/', 1), ('repos/%1$s/', 1) $$, :'community_id'),
  'chunk_size 2 cuts _meta (3 entries) into 2 + 1 and _uploads, repos into 1 chunk each, in prefix order');
select lives_ok(format($$ select community_deletion.mark_drained(%L, %L, %s, %s) $$,
  :'request_id', :'owner', :'generation', :'fence_generation'), 'fenced -> drained');

-- drained: chunk loop
select is(tests.dx_stamp_all(:'request_id', :'owner', :'generation', :'fence_generation'), 4, 'every chunk is stamped');
select results_eq(format($$ select total, deleted from community_deletion.key_chunk_progress(%L) $$, :'request_id'),
  $$ values (4, 4) $$, 'progress reports (total, deleted)');
select lives_ok(format($$ select community_deletion.mark_bindings_removed(%L, %L, %s, %s, '{"deleted_versions": 5}') $$,
  :'request_id', :'owner', :'generation', :'fence_generation'), 'drained -> bindings_removed');

-- bindings_removed: purge
select community_deletion.purge_postgres(:'request_id', :'owner', :'generation', :'fence_generation') as purge_result \gset
select is((select count(*)::int from jsonb_object_keys((:'purge_result'::jsonb) -> 'deleted')), 28,
  'the purge reports a row count for each of the 28 scoped tables');
select is((select stage from community_deletion.requests where id = :'request_id'), 'postgres_purged',
  'bindings_removed -> postgres_purged');
select is_empty(format($$ select table_name from tests.scoped_row_counts(%L) where row_count > 0 $$, :'community_id'),
  'no scoped table holds a target row');
select is((select count(*)::int from public.product_feedback where community_id = :'community_id')
        + (select count(*)::int from public.rate_limit_violations where community_id = :'community_id'), 0,
  'no provenance row points at the target any more');
select is((select count(*) from public.product_feedback) + (select count(*) from public.rate_limit_violations),
  :'provenance_before'::bigint, 'provenance rows are kept (their community is nulled, not deleted)');
select is((select count(*)::int from public.product_feedback where community_id is null), 3,
  'the target''s feedback rows remain with a NULL community');
select is((select count(*)::int from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'bindings_removed' and unit_key like 'purge:%'), 28,
  'one purge checkpoint per scoped table');

-- postgres_purged → cache_purged → (proof) → logically_verified → retention_pending
select lives_ok(format($$ select community_deletion.mark_cache_purged(%L, %L, %s, %s, '{"unlinked": 7, "scans": 1}') $$,
  :'request_id', :'owner', :'generation', :'fence_generation'), 'postgres_purged -> cache_purged');
select lives_ok(format($$ select community_deletion.verify_postgres_absence(%L, %L, %s, %s) $$,
  :'request_id', :'owner', :'generation', :'fence_generation'), 'the PostgreSQL absence proof passes');
select lives_ok(format($$ select community_deletion.mark_logically_verified(%L, %L, %s, %s, '{"s3": "empty", "redis": "empty"}') $$,
  :'request_id', :'owner', :'generation', :'fence_generation'), 'cache_purged -> logically_verified');
select is((select count(*)::int from community_deletion.manifest_keys where request_id = :'request_id'), 0,
  'the key chunks were dropped with logically_verified');
select lives_ok(format($$ select community_deletion.mark_retention_pending(%L, %L, %s, %s, '{"shared_cas": "retained"}') $$,
  :'request_id', :'owner', :'generation', :'fence_generation'), 'logically_verified -> retention_pending');
select row_eq(format($$ select stage, lease_owner, completed_at is not null, retry_count, blocked_at
                        from community_deletion.requests where id = %L $$, :'request_id'),
  row('retention_pending'::text, null::text, true, 0, null::timestamptz),
  'the request is completed with its lease released and no retry state');

-- tombstone
select row_eq(format($$ select deletion_state, deleted_at is not null, archived_at is not null, signing_key, icon,
                               deletion_fence_generation
                        from public.communities where id = %L $$, :'community_id'),
  row('tombstone'::text, true, true, null::bytea, null::text, :'fence_generation'::bigint),
  'the community is a tombstone: deleted, archived, signing key and icon cleared, fence generation kept');
select throws_ok(format($$ delete from public.communities where id = %L $$, :'community_id'),
  'DL8T1', null, 'the tombstone cannot be deleted');
select throws_ok(format($$ update public.communities set deletion_state = 'active', deleted_at = null where id = %L $$, :'community_id'),
  'DL8T1', null, 'the tombstone cannot be revived');
select throws_ok($$ insert into public.communities (host) values ('TARGET.example') $$,
  'DL8T2', null, 'the tombstone''s host is reserved (case-insensitively)');

-- bystander
select is(tests.community_fingerprint(:'bystander'), :'bystander_before', 'the bystander is byte-identical');
select is((select deletion_state from public.communities where id = :'bystander'), 'active', 'the bystander is still active');

-- a terminal request runs nothing again
select throws_ok(format($$ select community_deletion.purge_postgres(%L, %L, %s, %s) $$,
  :'request_id', :'owner', :'generation', :'fence_generation'),
  'DL4L1', null, 'the completed request''s token is no longer current');

select * from finish();
rollback;
