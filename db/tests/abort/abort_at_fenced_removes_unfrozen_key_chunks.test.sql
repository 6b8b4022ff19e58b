-- An abort at fenced removes, in its own transaction, the key chunks of a
-- post-fence enumeration that was never frozen (nobody will act on them);
-- chunks whose destructive manifest was frozen stay as evidence of what was
-- planned. Runs on both fence implementations.
begin;
\ir ../fixtures/destruction.sql
select plan(5);

select * from tests.dx_fenced_request('unfrozen.example', 1) \gset u_
select tests.dx_enumerate(:'u_request_id', :'u_owner', :'u_generation', :'u_fence_generation', :'u_community_id',
  tests.dx_sample_entries(:'u_community_id'), 2) \g /dev/null
select is((select count(*)::int from community_deletion.manifest_keys where request_id = :'u_request_id'), 4,
  'an unfrozen enumeration left four key chunks');
update community_deletion.requests set lease_until = now() - interval '1 second' where id = :'u_request_id';
select is((select stage from community_deletion.abort(:'u_request_id', 'carol', 'changed our mind')), 'aborted', 'aborted at fenced');
select is((select count(*)::int from community_deletion.manifest_keys where request_id = :'u_request_id'), 0,
  'its unfrozen chunks are gone, in the abort''s transaction');

select * from tests.dx_fenced_request('frozen.example', 1) \gset f_
select community_deletion.freeze_destructive_manifest(:'f_request_id', :'f_owner', :'f_generation', :'f_fence_generation',
  tests.dx_enumerate(:'f_request_id', :'f_owner', :'f_generation', :'f_fence_generation', :'f_community_id',
    tests.dx_sample_entries(:'f_community_id'), 2)) \g /dev/null
update community_deletion.requests set lease_until = now() - interval '1 second' where id = :'f_request_id';
select is((select stage from community_deletion.abort(:'f_request_id', 'carol', 'changed our mind')), 'aborted',
  'aborted at fenced after the manifest was frozen');
select is((select count(*)::int from community_deletion.manifest_keys where request_id = :'f_request_id'), 4,
  'frozen chunks stay as evidence');

select * from finish();
rollback;
