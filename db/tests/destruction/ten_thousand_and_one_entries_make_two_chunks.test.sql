-- The chunk boundary: with chunk_size 10,000 a prefix of 10,001 entries is
-- exactly two chunks (10,000 + 1), the manifest freezes only with that cut,
-- and both chunks must be stamped before bindings_removed.
begin;
\ir ../fixtures/destruction.sql
select plan(9);

select * from tests.dx_fenced_request('big.example', 1) \gset
select format('%L, %L, %s, %s', :'request_id', :'owner', :'generation', :'fence_generation') as token \gset

select tests.dx_enumerate(:'request_id', :'owner', :'generation', :'fence_generation', :'community_id',
  (select jsonb_agg(tests.dx_entry(tests.dx_meta_key(:'community_id', 'k' || i))) from generate_series(1, 10001) i),
  10000) as manifest \gset

select results_eq(format($$ select chunk_no, entry_count from community_deletion.manifest_keys
                            where request_id = %L order by chunk_no $$, :'request_id'),
  $$ values (0, 10000), (1, 1) $$, '10,001 entries are two chunks: 10,000 + 1');
select is((:'manifest'::jsonb) #>> '{prefixes,0,object_count}', '10001', 'the manifest counts all 10,001 entries');
select throws_ok(format($$ select community_deletion.freeze_destructive_manifest(%s, %L) $$, :'token',
  jsonb_set(:'manifest'::jsonb, '{chunk_size}', '10001')),
  'DL6K1', null, 'the same chunks do not freeze under chunk_size 10,001 (they would have been one chunk)');
select lives_ok(format($$ select community_deletion.freeze_destructive_manifest(%s, %L) $$, :'token', :'manifest'),
  'the manifest freezes with chunk_size 10,000');
select community_deletion.mark_drained(:'request_id', :'owner', :'generation', :'fence_generation');

select lives_ok(format($$ select community_deletion.stamp_key_chunk(%s, 0, '{"deleted": 10000}') $$, :'token'),
  'chunk 0 (10,000 entries) is stamped');
select throws_ok(format($$ select community_deletion.mark_bindings_removed(%s, '{}') $$, :'token'),
  'DL6K2', null, 'bindings_removed is refused while chunk 1 (the 10,001st entry) is unstamped');
select results_eq(format($$ select chunk_no, jsonb_array_length(entries) from community_deletion.next_key_chunk(%s) $$, :'token'),
  $$ values (1, 1) $$, 'the next chunk is chunk 1 with the one remaining entry');
select lives_ok(format($$ select community_deletion.stamp_key_chunk(%s, 1, '{"deleted": 1}') $$, :'token'), 'chunk 1 is stamped');
select lives_ok(format($$ select community_deletion.mark_bindings_removed(%s, '{"deleted_versions": 10001}') $$, :'token'),
  'with both chunks stamped the request reaches bindings_removed');

select * from finish();
rollback;
