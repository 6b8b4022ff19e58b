-- A request is bound to the stores its inventory was taken from:
-- freeze_inventory records the normalised store identity (S3 endpoint +
-- bucket, Redis server + database); verify_store_identity, which the executor
-- calls with its own identity and lease token before every step, accepts the
-- same stores however they are spelled and refuses any other with
-- store_mismatch (DL4S1) naming both; a request frozen without an identity
-- (before the migration) records the first one presented; the identity is
-- frozen.
begin;
select plan(28);
\ir ../fixtures/lifecycle.sql

-- Normalisation: the same store is never a mismatch; credentials never stored.
select is(community_deletion._normalize_store_identity(
            '{"s3_endpoint": "HTTP://LocalHost:80/", "s3_bucket": " media ", "redis_server": "redis://user:secret@Cache.Local/"}', 't'),
          '{"s3_endpoint": "http://localhost", "s3_bucket": "media", "redis_server": "cache.local:6379", "redis_db": 0}'::jsonb,
          'scheme and host lowercase, default ports, trailing slashes and credentials dropped, database 0 when absent');
select is(community_deletion._normalize_store_identity(
            '{"s3_endpoint": "https://s3.example.com:443/base//", "s3_bucket": "b", "redis_server": "rediss://cache:6380/3"}', 't'),
          '{"s3_endpoint": "https://s3.example.com/base", "s3_bucket": "b", "redis_server": "cache:6380", "redis_db": 3}'::jsonb,
          'https default port dropped, path kept without trailing slashes; a redis URL''s path is its database');
select is(community_deletion._normalize_store_identity(
            '{"s3_endpoint": "http://127.0.0.1:5055", "s3_bucket": "b", "redis_server": "127.0.0.1", "redis_db": 2}', 't'),
          '{"s3_endpoint": "http://127.0.0.1:5055", "s3_bucket": "b", "redis_server": "127.0.0.1:6379", "redis_db": 2}'::jsonb,
          'host without port gets Redis''s default port; redis_db as given');
select is(community_deletion._normalize_store_identity(
            community_deletion._normalize_store_identity(
              '{"s3_endpoint": "HTTP://A:9000/", "s3_bucket": "b", "redis_server": "redis://R:7000/5"}', 't'), 't'),
          community_deletion._normalize_store_identity(
            '{"s3_endpoint": "HTTP://A:9000/", "s3_bucket": "b", "redis_server": "redis://R:7000/5"}', 't'),
          'the canonical form normalises to itself');
select throws_ok($$ select community_deletion._normalize_store_identity('{"s3_endpoint": "ftp://x", "s3_bucket": "b", "redis_server": "r"}', 't') $$,
  'DL1I1', null, 'an S3 endpoint that is not http(s) is refused');
select throws_ok($$ select community_deletion._normalize_store_identity('{"s3_endpoint": "http://x", "redis_server": "r"}', 't') $$,
  'DL1I1', null, 'a missing bucket is refused');
select throws_ok($$ select community_deletion._normalize_store_identity('{"s3_endpoint": "http://x", "s3_bucket": "b", "redis_server": "r", "redis_db": "one"}', 't') $$,
  'DL1I1', null, 'a database that is not a number is refused');
select throws_ok($$ select community_deletion._normalize_store_identity('{"s3_endpoint": "http://x", "s3_bucket": "b", "redis_server": "r", "region": "eu"}', 't') $$,
  'DL1I1', null, 'an unknown field is refused');
select throws_ok($$ select community_deletion._normalize_store_identity(jsonb_build_object('s3_endpoint', 'http://x', 's3_bucket', E'b\u001b[31m', 'redis_server', 'r'), 't') $$,
  'DL1I1', null, 'control characters in a value are refused');
select throws_ok($$ select community_deletion._normalize_store_identity('{"s3_endpoint": "http://x", "s3_bucket": "b"}', 't') $$,
  'DL1I1', null, 'a missing Redis server is refused');

-- Recorded at freeze time.
select tests.seed_community('stores.example', 1) as c \gset
select id as rid from community_deletion.submit('stores.example', 'alice', 'stores') \gset
select is((select store_identity from community_deletion.freeze_inventory(:'rid', tests.lc_storage_summary(:'c'),
             '{"s3_endpoint": "http://127.0.0.1:5055/", "s3_bucket": "bucket-a", "redis_server": "redis://127.0.0.1:6379/0"}')),
          '{"s3_endpoint": "http://127.0.0.1:5055", "s3_bucket": "bucket-a", "redis_server": "127.0.0.1:6379", "redis_db": 0}'::jsonb,
          'freeze_inventory records the canonical store identity');
select isnt((select store_identity_recorded_at from community_deletion.requests where id = :'rid'), null, 'with the time it was recorded');
select tests.approve(:'rid', 'bob') \g /dev/null
select tests.lc_claim(:'rid', 'exec-1') as gen \gset

select is(community_deletion.verify_store_identity(:'rid', 'exec-1', :'gen',
            '{"s3_endpoint": "HTTP://127.0.0.1:5055", "s3_bucket": "bucket-a", "redis_server": "127.0.0.1:6379", "redis_db": 0}'),
          '{"s3_endpoint": "http://127.0.0.1:5055", "s3_bucket": "bucket-a", "redis_server": "127.0.0.1:6379", "redis_db": 0}'::jsonb,
          'the same stores, spelled differently, are accepted');
select throws_ok(format($$ select community_deletion.verify_store_identity(%L, 'exec-1', %s,
            '{"s3_endpoint": "http://127.0.0.1:5055", "s3_bucket": "bucket-b", "redis_server": "127.0.0.1:6379"}') $$, :'rid', :'gen'),
  'DL4S1', null, 'another bucket is store_mismatch');
select throws_matching(format($$ select community_deletion.verify_store_identity(%L, 'exec-1', %s,
            '{"s3_endpoint": "http://127.0.0.1:5055", "s3_bucket": "bucket-b", "redis_server": "127.0.0.1:6379"}') $$, :'rid', :'gen'),
  'inventoried against S3 http://127\.0\.0\.1:5055 bucket bucket-a, Redis 127\.0\.0\.1:6379 database 0, but this executor is configured for S3 http://127\.0\.0\.1:5055 bucket bucket-b.*differing: s3_bucket.*deletions unblock',
  'the refusal names the recorded and the presented stores, what differs and what to do');
select throws_ok(format($$ select community_deletion.verify_store_identity(%L, 'exec-1', %s,
            '{"s3_endpoint": "http://127.0.0.1:5055", "s3_bucket": "bucket-a", "redis_server": "redis://127.0.0.1:6379/1"}') $$, :'rid', :'gen'),
  'DL4S1', null, 'another Redis database is store_mismatch');
select throws_ok(format($$ select community_deletion.verify_store_identity(%L, 'exec-1', %s,
            '{"s3_endpoint": "http://127.0.0.1:9000", "s3_bucket": "bucket-a", "redis_server": "127.0.0.1:6379"}') $$, :'rid', :'gen'),
  'DL4S1', null, 'another S3 endpoint is store_mismatch');
select throws_ok(format($$ select community_deletion.verify_store_identity(%L, 'exec-1', %s,
            '{"s3_endpoint": "http://127.0.0.1:5055", "s3_bucket": "bucket-a", "redis_server": "10.0.0.1:6379"}') $$, :'rid', :'gen'),
  'DL4S1', null, 'another Redis server is store_mismatch');
select throws_ok(format($$ select community_deletion.verify_store_identity(%L, 'exec-0', %s,
            '{"s3_endpoint": "http://127.0.0.1:5055", "s3_bucket": "bucket-a", "redis_server": "127.0.0.1:6379"}') $$, :'rid', :'gen'),
  'DL4L1', null, 'a stale lease token is refused before any comparison');

-- Frozen like the other frozen request fields.
select throws_ok(format($$ update community_deletion.requests set store_identity = store_identity || '{"s3_bucket": "bucket-b"}' where id = %L $$, :'rid'),
  'DL6F1', null, 'the recorded store identity cannot change');
select throws_ok(format($$ update community_deletion.requests set store_identity = null, store_identity_recorded_at = null where id = %L $$, :'rid'),
  'DL6F1', null, 'nor be removed');

-- A request frozen without an identity (before the migration): the first
-- executor step records its identity, and from then on it is compared.
select tests.lc_approved('legacy-stores.example') as legacy \gset
select tests.as_frozen_without_store_identity(:'legacy');
select is((select store_identity from community_deletion.requests where id = :'legacy'), null, 'frozen without a store identity');
select tests.lc_claim(:'legacy', 'exec-2') as lgen \gset
select is(community_deletion.verify_store_identity(:'legacy', 'exec-2', :'lgen',
            '{"s3_endpoint": "http://s3.local", "s3_bucket": "media", "redis_server": "cache:6379", "redis_db": 4}')->>'s3_bucket',
          'media', 'the first executor step records its stores');
select is((select store_identity from community_deletion.requests where id = :'legacy'),
          '{"s3_endpoint": "http://s3.local", "s3_bucket": "media", "redis_server": "cache:6379", "redis_db": 4}'::jsonb,
          'recorded on the request');
select is((select status from community_deletion.checkpoints where request_id = :'legacy' and unit_key = 'store_identity_recorded'),
          'completed', 'with a checkpoint saying so');
select throws_ok(format($$ select community_deletion.verify_store_identity(%L, 'exec-2', %s,
            '{"s3_endpoint": "http://s3.local", "s3_bucket": "media", "redis_server": "cache:6379", "redis_db": 0}') $$, :'legacy', :'lgen'),
  'DL4S1', null, 'after that another store is refused');

-- Who may call it.
select ok(has_function_privilege('community_deletion_executor', 'community_deletion.verify_store_identity(uuid, text, bigint, jsonb)', 'execute'),
  'the executor role calls verify_store_identity');
select ok(not has_function_privilege('community_deletion_app', 'community_deletion.verify_store_identity(uuid, text, bigint, jsonb)', 'execute'),
  'the application role does not');

select * from finish();
rollback;
