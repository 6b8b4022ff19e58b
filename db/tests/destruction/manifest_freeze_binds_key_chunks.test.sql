-- community_deletion.freeze_destructive_manifest freezes only a manifest whose
-- per-prefix counts and chained digests are exactly what the stored chunks
-- hash to (grouping, order, chunk sizes, contiguity checked in SQL); it is
-- idempotent for the identical manifest and refuses a different one; after
-- the freeze neither the manifest nor a chunk can change.
begin;
\ir ../fixtures/destruction.sql
select plan(34);

select * from tests.dx_fenced_request('target.example', 1) \gset
select '_meta/' || :'community_id' || '/' as meta \gset
select tests.dx_enumerate(:'request_id', :'owner', :'generation', :'fence_generation', :'community_id',
  tests.dx_sample_entries(:'community_id'), 2) as manifest \gset

create function pg_temp.freeze(p_manifest jsonb) returns void language sql as $$
  select community_deletion.freeze_destructive_manifest(r.id, r.lease_owner, r.lease_generation, r.fence_generation, p_manifest)
  from community_deletion.requests r where r.community_host = 'target.example'
$$;

-- Chunks that do not hash to the manifest.
select throws_ok(format($$ select pg_temp.freeze(%L) $$,
  jsonb_set(:'manifest'::jsonb, '{prefixes,0,keys_digest}', to_jsonb(tests.hex64('drift')))),
  'DL6K1', null, 'a digest the chunks do not hash to is refused');
select throws_ok(format($$ select pg_temp.freeze(%L) $$,
  jsonb_set(:'manifest'::jsonb, '{prefixes,0,object_count}', '4')),
  'DL6K1', null, 'a count the chunks do not add up to is refused');
select throws_ok(format($$ select pg_temp.freeze(%L) $$,
  jsonb_set(:'manifest'::jsonb, '{prefixes,1}',
    jsonb_build_object('prefix', '_uploads/' || :'community_id' || '/', 'object_count', 0, 'total_bytes', 0,
                       'keys_digest', tests.dx_empty_digest()))),
  'DL6K1', null, 'a prefix summarised as empty while it has chunks is refused');
select throws_ok(format($$ select pg_temp.freeze(%L) $$, jsonb_set(:'manifest'::jsonb, '{chunk_size}', '3')),
  'DL6K1', null, 'a chunk holding fewer than chunk_size entries that is not its prefix''s last is refused');
select throws_ok(format($$ select pg_temp.freeze(%L) $$, jsonb_set(:'manifest'::jsonb, '{chunk_size}', '1')),
  'DL6K1', null, 'a chunk holding more than chunk_size entries is refused');

-- Manifest shape (DL1M1).
select throws_ok(format($$ select pg_temp.freeze(%L) $$, (:'manifest'::jsonb) #- '{prefixes,2}'),
  'DL1M1', null, 'a manifest missing one of the owned prefixes is refused');
select throws_ok(format($$ select pg_temp.freeze(%L) $$,
  jsonb_set(:'manifest'::jsonb, '{prefixes,2,prefix}', to_jsonb('repos/' || gen_random_uuid() || '/'))),
  'DL1M1', null, 'a manifest with a foreign prefix is refused');
select throws_ok(format($$ select pg_temp.freeze(%L) $$, jsonb_set(:'manifest'::jsonb, '{version}', '2')),
  'DL1M1', null, 'an unknown manifest version is refused');
select throws_ok($$ select pg_temp.freeze('"not an object"') $$,
  'DL1M1', null, 'a manifest that is not an object is refused');

-- A live serving-write lease could still add an object the enumeration missed.
insert into community_deletion.serving_write_leases (community_id, operation, owner, fence_generation, lease_until)
values (:'community_id', 'media_upload', 'relay-1', :'fence_generation', now() + interval '1 minute');
select throws_ok(format($$ select pg_temp.freeze(%L) $$, :'manifest'),
  'DL5D1', null, 'the freeze waits until no serving-write lease is live');
update community_deletion.serving_write_leases set lease_until = now() - interval '1 hour' where community_id = :'community_id';

-- The matching manifest freezes, idempotently.
select lives_ok(format($$ select pg_temp.freeze(%L) $$, :'manifest'), 'the matching manifest freezes');
select is((select destructive_storage_frozen_at is not null from community_deletion.requests where id = :'request_id'),
  true, 'the freeze time is recorded');
select is((select detail ->> 'chunks' from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'fenced' and unit_key = 'freeze_destructive_manifest'),
  '4', 'the freeze is checkpointed with its chunk count');
select lives_ok(format($$ select pg_temp.freeze(%L) $$, :'manifest'), 'the identical manifest again is a no-op');
select throws_ok(format($$ select pg_temp.freeze(%L) $$,
  jsonb_set(:'manifest'::jsonb, '{prefixes,2,total_bytes}', '99')),
  'DL6K1', null, 'a different manifest after the freeze is refused');

-- After the freeze nothing about the chunks or the manifest changes.
select throws_ok(format($$ select community_deletion.append_key_chunk(%L, %L, %s, %s, 4, %L, %L) $$,
  :'request_id', :'owner', :'generation', :'fence_generation', 'repos/' || :'community_id' || '/',
  jsonb_build_array(tests.dx_entry(tests.dx_repo_key(:'community_id', 'zzz')))),
  'DL6F1', null, 'appending through the API after the freeze is refused');
select throws_ok(format($$ insert into community_deletion.manifest_keys (request_id, chunk_no, prefix, entries, entry_count)
                           values (%L, 4, %L, %L, 1) $$,
  :'request_id', 'repos/' || :'community_id' || '/', jsonb_build_array(tests.dx_entry(tests.dx_repo_key(:'community_id', 'zzz')))),
  'DL6F1', null, 'a direct insert after the freeze is refused');
select throws_ok(format($$ update community_deletion.manifest_keys set entries = '[{"key":"x","version_id":"null","kind":"object"}]'
                           where request_id = %L and chunk_no = 0 $$, :'request_id'),
  'DL6F1', null, 'a frozen chunk''s entries cannot be updated');
select throws_ok(format($$ update community_deletion.manifest_keys set deleted_at = now()
                           where request_id = %L and chunk_no = 0 $$, :'request_id'),
  'DL6F1', null, 'a chunk cannot be stamped before drained');
select throws_ok(format($$ delete from community_deletion.manifest_keys where request_id = %L $$, :'request_id'),
  'DL6F1', null, 'frozen chunks cannot be deleted');
select throws_ok($$ truncate community_deletion.manifest_keys $$,
  'DL6F1', null, 'the chunk table cannot be truncated');
select throws_ok(format($$ select community_deletion.clear_key_chunks(%L, %L, %s, %s) $$,
  :'request_id', :'owner', :'generation', :'fence_generation'),
  'DL6F1', null, 'community_deletion.clear_key_chunks is refused once frozen');
select throws_ok(format($$ update community_deletion.requests set destructive_storage_manifest = '{}' where id = %L $$, :'request_id'),
  'DL6F1', null, 'the frozen manifest cannot be rewritten');
select throws_ok(format($$ update community_deletion.requests
                           set destructive_storage_frozen_at = destructive_storage_frozen_at + interval '1 second' where id = %L $$, :'request_id'),
  'DL6F1', null, 'the freeze time cannot be rewritten');
select is((select count(*)::int from community_deletion.manifest_keys where request_id = :'request_id'), 4,
  'the four frozen chunks are intact');

-- Chunks written directly get the same checks as the API (guard trigger)...
select request_id as raw_request, community_id as raw_community, owner as raw_owner, generation as raw_generation,
       fence_generation as raw_fence
  from tests.dx_fenced_request('raw.example', 1) \gset
select '_meta/' || :'raw_community' || '/' as raw_meta,
       tests.dx_entry('_meta/' || :'raw_community' || '/' || repeat('a', 64) || '.json') as raw_a,
       tests.dx_entry('_meta/' || :'raw_community' || '/' || repeat('b', 64) || '.json') as raw_b \gset
create function pg_temp.raw_insert(p_no integer, p_entries jsonb) returns void language sql as $$
  insert into community_deletion.manifest_keys (request_id, chunk_no, prefix, entries, entry_count)
  select r.id, p_no, '_meta/' || r.community_id || '/', p_entries, jsonb_array_length(p_entries)
  from community_deletion.requests r where r.community_host = 'raw.example'
$$;
select throws_ok(format($$ select pg_temp.raw_insert(0, %L) $$,
  jsonb_build_array(tests.dx_entry(:'raw_meta' || 'notes.txt'))),
  'DL6K1', null, 'a direct insert of a key outside the taxonomy is refused');
select throws_ok(format($$ select pg_temp.raw_insert(0, %L) $$, jsonb_build_array(:'raw_b'::jsonb, :'raw_a'::jsonb)),
  'DL6K1', null, 'a direct insert of descending entries is refused');
select lives_ok(format($$ select pg_temp.raw_insert(0, %L) $$, jsonb_build_array(:'raw_a'::jsonb)),
  'a direct insert of a valid chunk 0 is admitted');
select throws_ok(format($$ select pg_temp.raw_insert(2, %L) $$, jsonb_build_array(:'raw_b'::jsonb)),
  'DL6K1', null, 'a direct insert leaving a gap in the chunk numbers is refused');

-- ...and the freeze re-checks the stored sequence even if the trigger was
-- bypassed: a gap, or entries out of order, fail it although the digests match.
create function pg_temp.meta_manifest(p_c uuid, p_chunk_size integer, p_count integer, p_digest text) returns jsonb language sql as $$
  select jsonb_set(tests.dx_empty_summary(p_c, p_chunk_size), '{prefixes,0}', jsonb_build_object(
    'prefix', '_meta/' || p_c || '/', 'object_count', p_count, 'total_bytes', p_count, 'keys_digest', p_digest))
$$;
select community_deletion._manifest_entry_line(:'raw_a') as line_a, community_deletion._manifest_entry_line(:'raw_b') as line_b \gset
set local session_replication_role = replica;
select pg_temp.raw_insert(2, jsonb_build_array(:'raw_b'::jsonb));
set local session_replication_role = origin;
select throws_ok(format($$ select community_deletion.freeze_destructive_manifest(%L, %L, %s, %s, %L) $$,
  :'raw_request', :'raw_owner', :'raw_generation', :'raw_fence',
  pg_temp.meta_manifest(:'raw_community', 1, 2, encode(sha256(convert_to(
    encode(sha256(convert_to(:'line_a', 'UTF8')), 'hex') || :'line_b', 'UTF8')), 'hex'))),
  'DL6K1', null, 'a gap in the stored chunk numbers fails the freeze even when the digests match');
select is(community_deletion.clear_key_chunks(:'raw_request', :'raw_owner', :'raw_generation', :'raw_fence'), 2,
  'an unfrozen enumeration can be cleared for a retry');
set local session_replication_role = replica;
select pg_temp.raw_insert(0, jsonb_build_array(:'raw_b'::jsonb, :'raw_a'::jsonb));
set local session_replication_role = origin;
select throws_ok(format($$ select community_deletion.freeze_destructive_manifest(%L, %L, %s, %s, %L) $$,
  :'raw_request', :'raw_owner', :'raw_generation', :'raw_fence',
  pg_temp.meta_manifest(:'raw_community', 10000, 2, encode(sha256(convert_to(:'line_b' || :'line_a', 'UTF8')), 'hex'))),
  'DL6K1', null, 'stored entries out of (key, version_id) order fail the freeze even when the digests match');

-- Chunks are admitted only while the request is fenced.
select tests.seed_community('early.example', 1) as early \gset
select (community_deletion.submit('early.example', 'alice@ops')).id as early_request \gset
select throws_ok(format($$ insert into community_deletion.manifest_keys (request_id, chunk_no, prefix, entries, entry_count)
                           values (%L, 0, %L, %L, 1) $$,
  :'early_request', '_meta/' || :'early' || '/', jsonb_build_array(tests.dx_entry(tests.dx_meta_key(:'early', 'a')))),
  'DL2S1', null, 'a chunk for a request that is not fenced is refused');
select throws_ok(format($$ update community_deletion.requests set destructive_storage_manifest = '{}', destructive_storage_frozen_at = now()
                           where id = %L $$, :'early_request'),
  'DL2S1', null, 'a destructive manifest cannot be set outside stage fenced');

select * from finish();
rollback;
