-- A request frozen without a store identity (before migration 000037 made
-- freeze_inventory's required) adopts the stores of its first executor step. If
-- those hold nothing under the owned prefixes while the approved inventory
-- listed object versions there — a mistyped bucket — the destructive
-- manifest is refused as store_mismatch (DL4S1) before anything is deleted:
-- otherwise the engine would delete nothing and prove an empty bucket empty.
-- Stores recorded at freeze are trusted (they are what the approver saw):
-- vanished versions are then only recorded in the difference.
begin;
\ir ../fixtures/lifecycle.sql
\ir ../fixtures/destruction.sql
select plan(6);

-- An approved inventory listing 3 object versions under _meta/.
create function pg_temp.summary_with_objects(p_c uuid) returns jsonb language sql as $$
  select jsonb_set(tests.lc_storage_summary(p_c), '{prefixes,0}',
                   (tests.lc_storage_summary(p_c) -> 'prefixes' -> 0)
                   || jsonb_build_object('object_count', 3, 'total_bytes', 30, 'keys_digest', tests.hex64('three objects')))
$$;

-- Frozen without stores: the first executor step adopts its own.
select tests.seed_community('adopted.example', 1) as c \gset
select id as rid from community_deletion.submit('adopted.example', 'alice', 'stores') \gset
select 1 from community_deletion.freeze_inventory(:'rid', pg_temp.summary_with_objects(:'c'), tests.store_identity()) \g /dev/null
select tests.as_frozen_without_store_identity(:'rid');
select tests.approve(:'rid', 'bob') \g /dev/null
select lease_generation as gen from community_deletion.claim('exec-1', :'rid', 3600) \gset
select community_deletion.verify_store_identity(:'rid', 'exec-1', :gen,
  '{"s3_endpoint": "http://127.0.0.1:5055", "s3_bucket": "empty-typo", "redis_server": "127.0.0.1:6379"}') \g /dev/null
select community_deletion.begin_quiescing(:'rid', 'exec-1', :gen) \g /dev/null
select community_deletion.fence(:'rid', 'exec-1', :gen) as fg \gset
select tests.dx_enumerate(:'rid', 'exec-1', :gen, :fg, :'c', '[]') as manifest \gset

select throws_ok(format($$ select community_deletion.freeze_destructive_manifest(%L, 'exec-1', %s, %s, %L) $$, :'rid', :gen, :fg, :'manifest'),
  'DL4S1', null, 'adopted stores holding none of the 3 approved versions are refused (store_mismatch)');
select throws_like(format($$ select community_deletion.freeze_destructive_manifest(%L, 'exec-1', %s, %s, %L) $$, :'rid', :gen, :fg, :'manifest'),
  '%presented (S3 http://127.0.0.1:5055 bucket empty-typo%) hold nothing under the owned prefixes, but the approved inventory listed 3 object versions%',
  'the refusal names the adopted stores and what the approved inventory listed');
select is((select destructive_storage_manifest from community_deletion.requests where id = :'rid'), null,
  'nothing was frozen, so nothing can be deleted');

-- With an object under the prefix, the adopted stores are plausibly the
-- right ones: the manifest freezes, the difference records what vanished.
select tests.dx_enumerate(:'rid', 'exec-1', :gen, :fg, :'c', tests.dx_sample_entries(:'c')) as manifest2 \gset
select lives_ok(format($$ select community_deletion.freeze_destructive_manifest(%L, 'exec-1', %s, %s, %L) $$, :'rid', :gen, :fg, :'manifest2'),
  'adopted stores that hold some of the community''s objects are accepted');

-- Stores recorded at freeze (what the approver saw) are trusted: an empty
-- enumeration only records what vanished.
select tests.seed_community('recorded.example', 1) as c2 \gset
select id as rid2 from community_deletion.submit('recorded.example', 'alice', 'stores') \gset
select 1 from community_deletion.freeze_inventory(:'rid2', pg_temp.summary_with_objects(:'c2'),
  '{"s3_endpoint": "http://127.0.0.1:5055", "s3_bucket": "media", "redis_server": "127.0.0.1:6379"}') \g /dev/null
select tests.approve(:'rid2', 'bob') \g /dev/null
select lease_generation as gen2 from community_deletion.claim('exec-2', :'rid2', 3600) \gset
select community_deletion.begin_quiescing(:'rid2', 'exec-2', :gen2) \g /dev/null
select community_deletion.fence(:'rid2', 'exec-2', :gen2) as fg2 \gset
select tests.dx_enumerate(:'rid2', 'exec-2', :gen2, :fg2, :'c2', '[]') as manifest3 \gset
select lives_ok(format($$ select community_deletion.freeze_destructive_manifest(%L, 'exec-2', %s, %s, %L) $$, :'rid2', :gen2, :fg2, :'manifest3'),
  'with the stores recorded at freeze, the empty enumeration freezes');
select is((select (e ->> 'vanished')::int from community_deletion.requests r, jsonb_array_elements(r.destructive_difference -> 'prefixes') e
            where r.id = :'rid2' and e ->> 'prefix' = '_meta/' || :'c2' || '/'), 3,
  'and the difference records the 3 versions that vanished');

select * from finish();
rollback;
