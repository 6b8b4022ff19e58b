-- The fixed test vector of docs/manifest-format.md: SQL accepts exactly the
-- hand-computed chained digests (the TypeScript enumerator asserts the same
-- values), and the canonical line / chunk text are what the format says.
begin;
\ir ../fixtures/destruction.sql
select plan(8);

insert into public.communities (id, host) values ('11111111-2222-4333-8444-555555555555', 'vector.example');
select * from tests.dx_fence('vector.example') \gset

select '_meta/11111111-2222-4333-8444-555555555555/' as meta,
       '_meta/11111111-2222-4333-8444-555555555555/' || repeat('a', 64) || '.json' as ka,
       '_meta/11111111-2222-4333-8444-555555555555/' || repeat('b', 64) || '.json' as kb \gset

select is(community_deletion._manifest_entry_line(tests.dx_entry(:'kb', '3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY', 'delete_marker')),
  :'kb' || E'\t3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY\tdelete_marker\n',
  'the canonical line is key TAB version_id TAB kind LF');

-- chunk_size 10,000: one chunk, digest = SHA-256 of the three lines.
select is(encode(sha256(convert_to((community_deletion._key_chunk_facts(
    jsonb_build_array(tests.dx_entry(:'ka', 'null', 'object'),
                      tests.dx_entry(:'kb', '3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY', 'delete_marker'),
                      tests.dx_entry(:'kb', 'QUpfdndhfd8438MNFDN93jdnJFkdmqnh', 'object')),
    :'meta', community_deletion._owned_key_pattern(:'community_id', :'meta'))).chunk_text, 'UTF8')), 'hex'),
  'd745b23ebcce748c19fe191b8b76c1b9b84a1e210beeeb17664a7787f7100801',
  'the one-chunk text of the vector hashes to the documented digest');

-- chunk_size 2: chunk 0 = entries 1-2, chunk 1 = entry 3; repos has one entry; _uploads is empty.
select lives_ok(format($$ select community_deletion.append_key_chunk(%L, %L, %s, %s, 0, %L, %L) $$,
  :'request_id', :'owner', :'generation', :'fence_generation', :'meta',
  jsonb_build_array(tests.dx_entry(:'ka', 'null', 'object'),
                    tests.dx_entry(:'kb', '3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY', 'delete_marker'))),
  'chunk 0 of the vector is appended');
select lives_ok(format($$ select community_deletion.append_key_chunk(%L, %L, %s, %s, 1, %L, %L) $$,
  :'request_id', :'owner', :'generation', :'fence_generation', :'meta',
  jsonb_build_array(tests.dx_entry(:'kb', 'QUpfdndhfd8438MNFDN93jdnJFkdmqnh', 'object'))),
  'chunk 1 of the vector is appended');
select lives_ok(format($$ select community_deletion.append_key_chunk(%L, %L, %s, %s, 2, %L, %L) $$,
  :'request_id', :'owner', :'generation', :'fence_generation', 'repos/11111111-2222-4333-8444-555555555555/',
  jsonb_build_array(tests.dx_entry('repos/11111111-2222-4333-8444-555555555555/hello-world.json'))),
  'the repos entry is appended');

select jsonb_build_object('version', 1, 'chunk_size', 2, 'prefixes', jsonb_build_array(
  jsonb_build_object('prefix', :'meta', 'object_count', 3, 'total_bytes', 15,
                     'keys_digest', '40641387113b63c7c29193bc5637677cce7ffc189c2090ad28e3be0398bef4ad'),
  jsonb_build_object('prefix', '_uploads/11111111-2222-4333-8444-555555555555/', 'object_count', 0, 'total_bytes', 0,
                     'keys_digest', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
  jsonb_build_object('prefix', 'repos/11111111-2222-4333-8444-555555555555/', 'object_count', 1, 'total_bytes', 7,
                     'keys_digest', 'b7127a1a08ec454af94f5f1d5b469603ac18961c00793689df5f9b30e0574917'))) as manifest \gset

-- h1 alone (the digest after chunk 0) is not the prefix digest.
select throws_ok(format($$ select community_deletion.freeze_destructive_manifest(%L, %L, %s, %s, %L) $$,
  :'request_id', :'owner', :'generation', :'fence_generation',
  jsonb_set(:'manifest'::jsonb, '{prefixes,0,keys_digest}', '"82fcce36ec30f319348330fb4a6754b9957c6b8afa1849b5251acd25171f8114"')),
  'DL6K1', null, 'h1 (after chunk 0 only) is refused as the prefix digest');
select lives_ok(format($$ select community_deletion.freeze_destructive_manifest(%L, %L, %s, %s, %L) $$,
  :'request_id', :'owner', :'generation', :'fence_generation', :'manifest'),
  'the documented chained digests freeze');
select is((select destructive_storage_manifest from community_deletion.requests where id = :'request_id'),
  :'manifest'::jsonb, 'the frozen manifest is the one sent');

select * from finish();
rollback;
