-- The executor stage functions merge p_detail into their checkpoint: it must
-- be a JSON object or NULL; anything else is DL1I1 (one check,
-- community_deletion._require_detail_object, used by community_deletion.stamp_key_chunk and the
-- deletion_mark_* functions that take a detail).
begin;
select plan(7);
select lives_ok($$ select community_deletion._require_detail_object(gen_random_uuid(), '{"deleted": 3}') $$, 'an object passes');
select lives_ok($$ select community_deletion._require_detail_object(gen_random_uuid(), null) $$, 'NULL passes (it means {})');
select throws_ok($$ select community_deletion._require_detail_object(gen_random_uuid(), '[1, 2]') $$, 'DL1I1', null, 'an array is refused');
select throws_ok($$ select community_deletion._require_detail_object(gen_random_uuid(), '"text"') $$, 'DL1I1', null, 'a string is refused');
select throws_ok($$ select community_deletion._require_detail_object(gen_random_uuid(), '3') $$, 'DL1I1', null, 'a number is refused');
select throws_ok($$ select community_deletion._require_detail_object(gen_random_uuid(), 'null'::jsonb) $$, 'DL1I1', null, 'a JSON null is refused');
select is_empty($$
  select p.proname::text from pg_proc p
   where p.pronamespace = 'public'::regnamespace
     and p.proname in ('community_deletion.stamp_key_chunk', 'community_deletion.mark_bindings_removed', 'community_deletion.mark_cache_purged',
                       'community_deletion.mark_logically_verified', 'community_deletion.mark_retention_pending')
     and p.prosrc not like '%community_deletion._require_detail_object(p_request_id, p_detail)%' $$,
  'every stage function that takes a detail checks it');
select * from finish();
rollback;
