-- community_deletion.append_key_chunk admits only a chunk that can belong to the
-- target's frozen enumeration: contiguous number, owned prefix, non-empty,
-- canonical entries under the prefix matching the taxonomy, strictly
-- ascending within and across chunks, under a current fenced token.
begin;
\ir ../fixtures/destruction.sql
select plan(22);

select * from tests.dx_fenced_request('target.example', 1) \gset
select tests.seed_community('other.example', 1) as other \gset
select '_meta/' || :'community_id' || '/' as meta, 'repos/' || :'community_id' || '/' as repos \gset

-- A small wrapper so each refusal reads as one line.
create function pg_temp.append(p_no integer, p_prefix text, p_entries jsonb) returns void language sql as $$
  select community_deletion.append_key_chunk(
    (select id from community_deletion.requests where community_host = 'target.example'),
    'executor-1',
    (select lease_generation from community_deletion.requests where community_host = 'target.example'),
    (select fence_generation from community_deletion.requests where community_host = 'target.example'),
    p_no, p_prefix, p_entries)
$$;

select throws_ok(format($$ select pg_temp.append(1, %L, %L) $$, :'meta',
  jsonb_build_array(tests.dx_entry(tests.dx_meta_key(:'community_id', 'a')))),
  'DL6K1', null, 'the first chunk must be chunk 0 (a gap is refused)');
select throws_ok(format($$ select pg_temp.append(0, %L, '[]') $$, :'meta'),
  'DL6K1', null, 'an empty chunk is refused');
select throws_ok(format($$ select pg_temp.append(0, %L, %L) $$, :'meta',
  jsonb_build_array(tests.dx_entry(tests.dx_upload_key(:'community_id', 'a')))),
  'DL6K1', null, 'a key outside its chunk prefix is refused');
select throws_ok(format($$ select pg_temp.append(0, %L, %L) $$, :'meta',
  jsonb_build_array(tests.dx_entry(:'meta' || 'not-a-sidecar.txt'))),
  'DL6K1', null, 'a key under an owned prefix that matches no taxonomy shape is refused');
select throws_ok(format($$ select pg_temp.append(0, %L, %L) $$, :'meta',
  jsonb_build_array(tests.dx_entry(:'meta' || upper(tests.hex64('x')) || '.json'))),
  'DL6K1', null, 'a sidecar key with uppercase hex is outside the taxonomy');
select throws_ok(format($$ select pg_temp.append(0, %L, %L) $$, :'meta',
  jsonb_build_array(tests.dx_entry(tests.dx_meta_key(:'other', 'a')))),
  'DL6K1', null, 'a foreign community''s key is refused');
select throws_ok(format($$ select pg_temp.append(0, %L, %L) $$, '_meta/' || :'other' || '/',
  jsonb_build_array(tests.dx_entry(tests.dx_meta_key(:'other', 'a')))),
  'DL6K1', null, 'a foreign community''s prefix is refused');
select throws_ok(format($$ select pg_temp.append(0, %L, %L) $$, 'blobs/',
  jsonb_build_array(tests.dx_entry('blobs/' || tests.hex64('a')))),
  'DL6K1', null, 'a shared (content-addressed) prefix is refused');
select throws_ok(format($$ select pg_temp.append(0, %L, %L) $$, '',
  jsonb_build_array(tests.dx_entry(tests.dx_meta_key(:'community_id', 'a')))),
  'DL6K1', null, 'the empty prefix (the whole bucket) is refused');
select throws_ok(format($$ select pg_temp.append(0, %L, %L) $$, :'meta',
  jsonb_build_array(tests.dx_entry(tests.dx_meta_key(:'community_id', 'a'), 'v1', 'object'),
                    tests.dx_entry(tests.dx_meta_key(:'community_id', 'a'), 'v1', 'object'))),
  'DL6K1', null, 'a duplicate (key, version_id) is refused');
select throws_ok(format($$ select pg_temp.append(0, %L, %L) $$, :'meta',
  jsonb_build_array(tests.dx_entry(:'meta' || repeat('b', 64) || '.json'),
                    tests.dx_entry(:'meta' || repeat('a', 64) || '.json'))),
  'DL6K1', null, 'descending keys are refused');
select throws_ok(format($$ select pg_temp.append(0, %L, %L) $$, :'meta',
  jsonb_build_array(tests.dx_entry(:'meta' || repeat('a', 64) || '.json', 'v2'),
                    tests.dx_entry(:'meta' || repeat('a', 64) || '.json', 'v1'))),
  'DL6K1', null, 'descending version ids of one key are refused');
select throws_ok(format($$ select pg_temp.append(0, %L, %L) $$, :'meta',
  jsonb_build_array(jsonb_build_object('key', tests.dx_meta_key(:'community_id', 'a'), 'version_id', 'null'))),
  'DL1M1', null, 'an entry without a kind is malformed');
select throws_ok(format($$ select pg_temp.append(0, %L, %L) $$, :'meta',
  jsonb_build_array(tests.dx_entry(tests.dx_meta_key(:'community_id', 'a'), 'null', 'version'))),
  'DL1M1', null, 'an entry whose kind is not object|delete_marker is malformed');
select throws_ok(format($$ select pg_temp.append(0, %L, %L) $$, :'meta',
  jsonb_build_array(tests.dx_entry(tests.dx_meta_key(:'community_id', 'a'), E'v\t1', 'object'))),
  'DL1M1', null, 'a version id containing TAB is malformed (it would alias the canonical line)');
select throws_ok(format($$ select pg_temp.append(0, %L, '{"key": "x"}') $$, :'meta'),
  'DL1M1', null, 'entries that are not an array are malformed');

-- A good first chunk, then the cross-chunk rules.
select lives_ok(format($$ select pg_temp.append(0, %L, %L) $$, :'meta',
  jsonb_build_array(tests.dx_entry(:'meta' || repeat('b', 64) || '.json'))),
  'a well-formed chunk 0 is appended');
select throws_ok(format($$ select pg_temp.append(0, %L, %L) $$, :'meta',
  jsonb_build_array(tests.dx_entry(:'meta' || repeat('c', 64) || '.json'))),
  'DL6K1', null, 'the same chunk number twice is refused');
select throws_ok(format($$ select pg_temp.append(1, %L, %L) $$, :'meta',
  jsonb_build_array(tests.dx_entry(:'meta' || repeat('a', 64) || '.json'))),
  'DL6K1', null, 'a chunk that does not continue after the previous chunk of its prefix is refused');
select lives_ok(format($$ select pg_temp.append(1, %L, %L) $$, :'repos',
  jsonb_build_array(tests.dx_entry(tests.dx_repo_key(:'community_id', 'r1')))),
  'a chunk of the next prefix is appended');
select throws_ok(format($$ select pg_temp.append(2, %L, %L) $$, :'meta',
  jsonb_build_array(tests.dx_entry(:'meta' || repeat('c', 64) || '.json'))),
  'DL6K1', null, 'going back to an earlier prefix is refused');

-- The token must be current and fenced.
select throws_ok(format($$ select community_deletion.append_key_chunk(%L, %L, %s, %s, 2, %L, %L) $$,
  :'request_id', :'owner', :'generation', :'fence_generation'::bigint + 1, :'repos',
  jsonb_build_array(tests.dx_entry(tests.dx_repo_key(:'community_id', 'r2')))),
  'DL4L1', null, 'a wrong fence generation is a stale token');

select * from finish();
rollback;
