-- freeze_destructive_manifest records, with the manifest, what appeared or
-- vanished between the approved inventory and the community after the fence
-- (requests.destructive_difference): rows per scoped table, object versions
-- per owned prefix (net counts, and whether a prefix's content changed). It is
-- shown by inspect and frozen like the manifest.
begin;
select plan(12);
\ir ../fixtures/lifecycle.sql
\ir ../fixtures/destruction.sql

select tests.seed_community('diff.example', 2) as c \gset
select id as rid from community_deletion.submit('diff.example', 'alice@ops', 'difference') \gset
select 1 from community_deletion.freeze_inventory(:'rid', tests.dx_empty_summary(:'c'), tests.store_identity()) \g /dev/null
select tests.approve(:'rid', 'bob@ops') \g /dev/null

-- Between approval and the fence the community is still active: it gains a
-- user, loses its bans, and objects are uploaded.
insert into public.users (community_id, pubkey, display_name) values (:'c', tests.hex64('diff:late'), 'late');
delete from public.community_bans where community_id = :'c';

select lease_generation as gen from community_deletion.claim('executor-1', :'rid', 3600) \gset
select community_deletion.begin_quiescing(:'rid', 'executor-1', :gen) \g /dev/null
select community_deletion.fence(:'rid', 'executor-1', :gen) as fg \gset
select tests.dx_enumerate(:'rid', 'executor-1', :gen, :fg, :'c', tests.dx_sample_entries(:'c')) as manifest \gset

select is((select destructive_difference from community_deletion.requests where id = :'rid'), null, 'nothing recorded before the freeze');
select lives_ok(format($$ select community_deletion.freeze_destructive_manifest(%L, 'executor-1', %s, %s, %L) $$, :'rid', :gen, :fg, :'manifest'),
  'the destructive manifest freezes');
select destructive_difference as diff from community_deletion.requests where id = :'rid' \gset

select is((:'diff'::jsonb ->> 'changed')::boolean, true, 'the difference says something changed');
select is((select e from jsonb_array_elements(:'diff'::jsonb -> 'tables') e where e ->> 'table' = 'users'),
          '{"table": "users", "approved_rows": 2, "fenced_rows": 3, "appeared": 1, "vanished": 0}'::jsonb,
          'a row that appeared since approval is counted per table');
select is((select e from jsonb_array_elements(:'diff'::jsonb -> 'tables') e where e ->> 'table' = 'community_bans'),
          '{"table": "community_bans", "approved_rows": 2, "fenced_rows": 0, "appeared": 0, "vanished": 2}'::jsonb,
          'rows that vanished since approval are counted per table');
select is((select e from jsonb_array_elements(:'diff'::jsonb -> 'tables') e where e ->> 'table' = 'channels'),
          '{"table": "channels", "approved_rows": 1, "fenced_rows": 1, "appeared": 0, "vanished": 0}'::jsonb,
          'an unchanged table shows no change');
select is((select count(*)::integer from jsonb_array_elements(:'diff'::jsonb -> 'tables')),
          (select count(*)::integer from community_deletion.registered_tables where kind = 'scoped'),
          'every scoped table is listed');
select is((select e from jsonb_array_elements(:'diff'::jsonb -> 'prefixes') e where e ->> 'prefix' = '_meta/' || :'c' || '/'),
          jsonb_build_object('prefix', '_meta/' || :'c' || '/', 'approved_versions', 0, 'fenced_versions', 3,
                             'appeared', 3, 'vanished', 0, 'content_changed', true),
          'object versions that appeared since approval are counted per prefix, and the content changed');
select is(community_deletion.inspect(:'rid') -> 'request' -> 'destructive_difference', :'diff'::jsonb,
  'inspect shows the difference');
select throws_ok(format($$ update community_deletion.requests set destructive_difference = '{"changed": false, "tables": [], "prefixes": []}' where id = %L $$, :'rid'),
  'DL6F1', null, 'the recorded difference is frozen');

-- Nothing changed: the same rows and no objects on both sides.
select * from tests.dx_fenced_request('same.example') \gset s_
select tests.dx_enumerate(:'s_request_id', :'s_owner', :s_generation, :s_fence_generation, :'s_community_id', '[]') as same_manifest \gset
select community_deletion.freeze_destructive_manifest(:'s_request_id', :'s_owner', :s_generation, :s_fence_generation, :'same_manifest') \g /dev/null
select is((select (destructive_difference ->> 'changed')::boolean from community_deletion.requests where id = :'s_request_id'), false,
  'an unchanged community records changed = false');
select is((select count(*)::integer from community_deletion.requests r, jsonb_array_elements(r.destructive_difference -> 'prefixes') e
            where r.id = :'s_request_id' and e ->> 'content_changed' = 'false'), 3,
  'each prefix''s content is the same');

select * from finish();
rollback;
