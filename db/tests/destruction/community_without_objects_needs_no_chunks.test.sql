-- A community with no objects under its owned prefixes freezes an all-empty
-- manifest (every digest the SHA-256 of the empty string) with no chunks and
-- passes straight through the chunk loop; a non-empty summary without chunks
-- does not freeze.
begin;
\ir ../fixtures/destruction.sql
select plan(6);

select * from tests.dx_fenced_request('empty.example', 1) \gset
select format('%L, %L, %s, %s', :'request_id', :'owner', :'generation', :'fence_generation') as token \gset

select throws_ok(format($$ select community_deletion.freeze_destructive_manifest(%s, %L) $$, :'token',
  jsonb_set(tests.dx_empty_summary(:'community_id'), '{prefixes,2}', jsonb_build_object(
    'prefix', 'repos/' || :'community_id' || '/', 'object_count', 1, 'total_bytes', 1,
    'keys_digest', tests.hex64('claimed but never enumerated')))),
  'DL6K1', null, 'a summary claiming entries that no chunk holds does not freeze');
select lives_ok(format($$ select community_deletion.freeze_destructive_manifest(%s, %L) $$, :'token', tests.dx_empty_summary(:'community_id')),
  'the all-empty manifest freezes with no chunks');
select lives_ok(format($$ select community_deletion.mark_drained(%s) $$, :'token'), 'fenced -> drained');
select is_empty(format($$ select * from community_deletion.next_key_chunk(%s) $$, :'token'), 'there is no chunk to delete');
select results_eq(format($$ select total, deleted from community_deletion.key_chunk_progress(%L) $$, :'request_id'),
  $$ values (0, 0) $$, 'progress is (0, 0)');
select lives_ok(format($$ select community_deletion.mark_bindings_removed(%s, '{"deleted_versions": 0}') $$, :'token'),
  'drained -> bindings_removed');

select * from finish();
rollback;
