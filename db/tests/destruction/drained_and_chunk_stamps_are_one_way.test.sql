-- fenced → drained needs the frozen manifest and no live serving lease; in
-- drained, chunks are handed out lowest first, each stamp is one-way and
-- checkpointed chunk:<n> in the same transaction, and bindings_removed is
-- reachable only once every chunk is stamped.
begin;
\ir ../fixtures/destruction.sql
select plan(30);

select * from tests.dx_fenced_request('target.example', 1) \gset
select tests.dx_enumerate(:'request_id', :'owner', :'generation', :'fence_generation', :'community_id',
  tests.dx_sample_entries(:'community_id'), 2) as manifest \gset
select format('%L, %L, %s, %s', :'request_id', :'owner', :'generation', :'fence_generation') as token \gset

select throws_ok(format($$ select community_deletion.mark_drained(%s) $$, :'token'),
  'DL2S1', null, 'drained is refused before the destructive manifest is frozen');
select community_deletion.freeze_destructive_manifest(:'request_id', :'owner', :'generation', :'fence_generation', :'manifest');

insert into community_deletion.serving_write_leases (community_id, operation, owner, fence_generation, lease_until)
values (:'community_id', 'git_push', 'relay-1', :'fence_generation', now() + interval '1 minute');
select throws_ok(format($$ select community_deletion.mark_drained(%s) $$, :'token'),
  'DL5D1', null, 'drained is refused while a serving-write lease is live');
update community_deletion.serving_write_leases set lease_until = now() - interval '1 hour' where community_id = :'community_id';
select throws_ok(format($$ select community_deletion.mark_drained(%L, %L, %s, %s) $$,
  :'request_id', :'owner', :'generation', :'fence_generation'::bigint - 1),
  'DL4L1', null, 'drained is refused with a stale fence generation');
select lives_ok(format($$ select community_deletion.mark_drained(%s) $$, :'token'), 'an expired lease no longer holds drained back');
select is((select stage from community_deletion.requests where id = :'request_id'), 'drained', 'fenced -> drained');
select is((select status from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'fenced' and unit_key = 'serving_writes_drained'),
  'completed', 'drained is checkpointed');

select results_eq(format($$ select chunk_no from community_deletion.next_key_chunk(%s) $$, :'token'),
  $$ values (0) $$, 'the first pending chunk is chunk 0');
select throws_ok(format($$ select community_deletion.mark_bindings_removed(%s, '{}') $$, :'token'),
  'DL6K2', null, 'bindings_removed is refused while chunks are unstamped');

select lives_ok(format($$ select community_deletion.stamp_key_chunk(%s, 0, '{"deleted": 2}') $$, :'token'), 'chunk 0 is stamped');
select is((select detail ->> 'deleted' from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'drained' and unit_key = 'chunk:0' and status = 'completed'),
  '2', 'the stamp is checkpointed as drained/chunk:0 with the driver''s detail');
select throws_ok(format($$ select community_deletion.stamp_key_chunk(%s, 0, '{}') $$, :'token'),
  'DL6F1', null, 'a second stamp of the same chunk is refused');
select throws_ok(format($$ select community_deletion.stamp_key_chunk(%s, 99, '{}') $$, :'token'),
  'DL6K1', null, 'stamping a chunk that does not exist is refused');
select throws_ok(format($$ update community_deletion.manifest_keys set deleted_at = now() + interval '1 second'
                           where request_id = %L and chunk_no = 0 $$, :'request_id'),
  'DL6F1', null, 'a stamp cannot be rewritten directly');
select throws_ok(format($$ update community_deletion.manifest_keys set deleted_at = null
                           where request_id = %L and chunk_no = 0 $$, :'request_id'),
  'DL6F1', null, 'a stamp cannot be undone');
select throws_ok(format($$ update community_deletion.manifest_keys set prefix = prefix, deleted_at = now(), entry_count = entry_count,
                                  entries = entries || '[]'::jsonb, chunk_no = chunk_no + 10
                           where request_id = %L and chunk_no = 1 $$, :'request_id'),
  'DL6F1', null, 'stamping cannot be combined with any other change');

select results_eq(format($$ select chunk_no from community_deletion.next_key_chunk(%s) $$, :'token'),
  $$ values (1) $$, 'after the stamp the next pending chunk is chunk 1 (a resumed executor starts here)');
select results_eq(format($$ select total, deleted from community_deletion.key_chunk_progress(%L) $$, :'request_id'),
  $$ values (4, 1) $$, 'progress is (total, deleted)');
select is((select entries_deleted from community_deletion.key_chunk_progress(:'request_id')), 2::bigint,
  'progress counts the object versions of the stamped chunk (chunk size 2), not chunks');
select is((select entries_total from community_deletion.key_chunk_progress(:'request_id')),
  (select sum(jsonb_array_length(entries))::bigint from community_deletion.manifest_keys where request_id = :'request_id'),
  'entries_total counts every object version in the frozen manifest');
select throws_ok(format($$ select * from community_deletion.next_key_chunk(%L, %L, %s, %s) $$,
  :'request_id', :'owner', :'generation'::bigint + 1, :'fence_generation'),
  'DL4L1', null, 'the chunk loop refuses a stale lease generation');

-- The executor dies here; a successor reclaims at the next lease generation
-- and resumes from the first unstamped chunk; the dead owner's token is void.
update community_deletion.requests set lease_until = now() - interval '1 second' where id = :'request_id';
select c.lease_generation as generation2 from community_deletion.claim('executor-2', :'request_id', 600) c \gset
select is(:'generation2'::bigint, :'generation'::bigint + 1, 'the successor claims at the next lease generation');
select throws_ok(format($$ select community_deletion.stamp_key_chunk(%s, 1, '{}') $$, :'token'),
  'DL4L1', null, 'the dead owner''s token can stamp nothing');
select results_eq(format($$ select chunk_no from community_deletion.next_key_chunk(%L, 'executor-2', %s, %s) $$,
  :'request_id', :'generation2', :'fence_generation'),
  $$ values (1) $$, 'the successor resumes at chunk 1');
select is(tests.dx_stamp_all(:'request_id', 'executor-2', :'generation2', :'fence_generation'), 3,
  'the successor stamps the remaining three chunks');
select format('%L, %L, %s, %s', :'request_id', 'executor-2', :'generation2', :'fence_generation') as token \gset
select is_empty(format($$ select * from community_deletion.next_key_chunk(%s) $$, :'token'), 'no chunk is pending');
select lives_ok(format($$ select community_deletion.mark_bindings_removed(%s, '{"deleted_versions": 5}') $$, :'token'),
  'bindings_removed once every chunk is stamped');
select is((select stage from community_deletion.requests where id = :'request_id'), 'bindings_removed', 'drained -> bindings_removed');
select is((select detail from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'drained' and unit_key = 'remove_storage_bindings'),
  '{"chunks": 4, "entries": 5, "deleted_versions": 5}'::jsonb, 'the transition is checkpointed with chunk and entry totals');
select throws_ok(format($$ select community_deletion.stamp_key_chunk(%s, 0, '{}') $$, :'token'),
  'DL4L1', null, 'no stamping after drained');
select throws_ok(format($$ delete from community_deletion.manifest_keys where request_id = %L $$, :'request_id'),
  'DL6F1', null, 'stamped chunks are not deleted before logically_verified');

select * from finish();
rollback;
