-- The PostgreSQL absence proof (cache_purged) needs the tombstone at the
-- token's fence generation and zero target rows in every registered scoped
-- and provenance table, with the live catalog equal to the registry; the
-- logically_verified transition repeats the proof atomically and drops the
-- key chunks; retention_pending completes the request and releases the lease.
begin;
\ir ../fixtures/destruction.sql
select plan(25);

select * from tests.dx_fenced_request('target.example', 1) \gset
select format('%L, %L, %s, %s', :'request_id', :'owner', :'generation', :'fence_generation') as token \gset
select tests.dx_to_bindings_removed(:'request_id', :'owner', :'generation', :'fence_generation', :'community_id');

select throws_ok(format($$ select community_deletion.mark_cache_purged(%s, '{}') $$, :'token'),
  'DL4L1', null, 'cache_purged is refused before the purge (wrong stage)');
select community_deletion.purge_postgres(:'request_id', :'owner', :'generation', :'fence_generation');
select throws_ok(format($$ select community_deletion.verify_postgres_absence(%s) $$, :'token'),
  'DL4L1', null, 'the absence proof runs only at cache_purged');
select throws_ok(format($$ select community_deletion.mark_cache_purged(%s, '[1]') $$, :'token'),
  'DL1I1', null, 'the cache detail must be a JSON object');
select lives_ok(format($$ select community_deletion.mark_cache_purged(%s, '{"unlinked": 3}') $$, :'token'),
  'postgres_purged -> cache_purged');
select is((select detail from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'postgres_purged' and unit_key = 'purge_cache_namespace'),
  '{"unlinked": 3}'::jsonb, 'the Redis result is kept as the checkpoint detail');

select lives_ok(format($$ select community_deletion.verify_postgres_absence(%s) $$, :'token'), 'the proof passes on a clean purge');

-- A table with a keyset index (community_deletion._keyset_columns) is probed
-- through that index, the one the bounded purge's lookups walked and marked
-- dead — events has two more indexes leading with community_id, smaller ones
-- the planner would rather use; and no JIT code is compiled for the probes.
select is(community_deletion._keyset_columns('public.events', 'community_id'), array['community_id', 'id'],
  'events is walked in the order of events_pkey');
create temp table scans_before as
  select c.relname, pg_stat_get_xact_numscans(c.oid) as n from pg_class c
   where c.relname in ('events_pkey', 'events_channel_idx', 'events_community_kind_idx');
select community_deletion.verify_postgres_absence(:'request_id', :'owner', :'generation', :'fence_generation') \g /dev/null
select is((select string_agg(b.relname || ':' || (pg_stat_get_xact_numscans(c.oid) - b.n), ', ' order by b.relname)
             from scans_before b join pg_class c on c.relname = b.relname),
          'events_channel_idx:0, events_community_kind_idx:0, events_pkey:1',
  'the proof probed events once, through events_pkey, never through its other community indexes');
select ok((select 'jit=off' = any (p.proconfig) from pg_proc p
            where p.oid = 'community_deletion._prove_postgres_absence'::regproc),
  'the proof never compiles JIT code (with sequential scans off every plan costs above jit_above_cost)');
set local session_replication_role = replica;
insert into public.events (community_id, id, pubkey, kind) values (:'community_id', tests.hex64('ghost event'), 'p', 1);
set local session_replication_role = origin;
select throws_ok(format($$ select community_deletion.verify_postgres_absence(%s) $$, :'token'),
  'DL9A1', 'request ' || :'request_id' || ': table events still holds rows of purged community ' || :'community_id',
  'a remaining row in a table probed through its keyset index fails the proof, naming the table');
set local session_replication_role = replica;
delete from public.events where community_id = :'community_id';
set local session_replication_role = origin;
select throws_ok(format($$ select community_deletion.verify_postgres_absence(%L, %L, %s, %s) $$,
  :'request_id', :'owner', :'generation', :'fence_generation'::bigint + 1),
  'DL4L1', null, 'the proof refuses a wrong fence generation');

-- A row of the purged community reappearing (written around the fence).
set local session_replication_role = replica;
insert into public.pubkey_allowlist (community_id, pubkey) values (:'community_id', tests.hex64('ghost'));
set local session_replication_role = origin;
select throws_ok(format($$ select community_deletion.verify_postgres_absence(%s) $$, :'token'),
  'DL9A1', null, 'a remaining scoped row fails the proof');
select throws_ok(format($$ select community_deletion.mark_logically_verified(%s, '{}') $$, :'token'),
  'DL9A1', null, 'logically_verified repeats the proof and fails on the same row');
set local session_replication_role = replica;
delete from public.pubkey_allowlist where community_id = :'community_id';
update public.product_feedback set community_id = :'community_id'
 where ctid = (select ctid from public.product_feedback where community_id is null limit 1);
set local session_replication_role = origin;
select throws_ok(format($$ select community_deletion.verify_postgres_absence(%s) $$, :'token'),
  'DL9A1', null, 'a provenance row pointing at the purged community fails the proof');
set local session_replication_role = replica;
update public.product_feedback set community_id = null where community_id = :'community_id';

-- The tombstone must be there, at the token's generation.
update public.communities set deletion_state = 'fenced', deleted_at = null where id = :'community_id';
set local session_replication_role = origin;
select throws_ok(format($$ select community_deletion.verify_postgres_absence(%s) $$, :'token'),
  'DL8T1', null, 'a community that is not a tombstone fails the proof');
set local session_replication_role = replica;
update public.communities set deletion_state = 'tombstone', deleted_at = now() where id = :'community_id';
set local session_replication_role = origin;

-- A table with community_id that the registry does not know fails closed.
create table public.late_scoped_probe (community_id uuid not null, payload text);
create index on public.late_scoped_probe (community_id);
select throws_ok(format($$ select community_deletion.verify_postgres_absence(%s) $$, :'token'),
  'DL7C1', null, 'an unregistered community table fails the proof (catalog drift)');
select throws_ok(format($$ select community_deletion.mark_logically_verified(%s, '{}') $$, :'token'),
  'DL7C1', null, 'and the logically_verified transition too');
drop table public.late_scoped_probe;

select lives_ok(format($$ select community_deletion.verify_postgres_absence(%s) $$, :'token'), 'the clean state proves again');
select throws_ok(format($$ select community_deletion.mark_logically_verified(%L, %L, %s, %s, '{}') $$,
  :'request_id', 'executor-2', :'generation', :'fence_generation'),
  'DL4L1', null, 'logically_verified refuses another owner');
select lives_ok(format($$ select community_deletion.mark_logically_verified(%s, '{"s3": "empty", "redis_scans": 2}') $$, :'token'),
  'cache_purged -> logically_verified');
select results_eq(format($$ select total, deleted from community_deletion.key_chunk_progress(%L) $$, :'request_id'),
  $$ values (0, 0) $$, 'the key chunks are dropped in the same transaction');
select is((select detail ->> 'key_chunks_dropped' from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'cache_purged' and unit_key = 'verify_cross_store_absence'),
  '3', 'the transition checkpoint records how many chunks were dropped (one per prefix)');
select is((select destructive_storage_manifest is not null from community_deletion.requests where id = :'request_id'),
  true, 'the manifest''s counts and digests stay on the request as evidence');

update community_deletion.requests set lease_until = now() - interval '1 second' where id = :'request_id';
select throws_ok(format($$ select community_deletion.mark_retention_pending(%s, '{}') $$, :'token'),
  'DL4L1', null, 'retention_pending refuses an expired lease');
update community_deletion.requests set lease_until = now() + interval '1 hour' where id = :'request_id';
select lives_ok(format($$ select community_deletion.mark_retention_pending(%s, '{"shared_cas": "retained"}') $$, :'token'),
  'logically_verified -> retention_pending');

select * from finish();
rollback;
