-- The stage vocabulary is exact: one forward order, only the documented next
-- stage, only approved … logically_verified runnable, two terminal stages;
-- the community lock key is stable forever; stored text is bounded.
begin;
select plan(14);

select is(
  (select array_agg(s order by community_deletion._stage_order(s))
     from unnest(array['retention_pending', 'aborted', 'submitted', 'fenced', 'inventoried', 'drained',
                       'approved', 'cache_purged', 'bindings_removed', 'logically_verified', 'postgres_purged']) s),
  array['submitted', 'inventoried', 'approved', 'fenced', 'drained', 'bindings_removed', 'postgres_purged',
        'cache_purged', 'logically_verified', 'retention_pending', 'aborted'],
  'stage order is submitted … retention_pending, then aborted');
select is(community_deletion._stage_order('aborted'), 99, 'aborted orders last (99)');
select is(community_deletion._stage_order('exploded'), null, 'an unknown stage has no order');

select is(
  (select array_agg(community_deletion._next_stage(s) order by community_deletion._stage_order(s))
     from unnest(array['submitted', 'inventoried', 'approved', 'fenced', 'drained', 'bindings_removed',
                       'postgres_purged', 'cache_purged', 'logically_verified']) s),
  array['inventoried', 'approved', 'fenced', 'drained', 'bindings_removed', 'postgres_purged',
        'cache_purged', 'logically_verified', 'retention_pending'],
  'each stage has exactly the next stage');
select ok(community_deletion._next_stage('retention_pending') is null and community_deletion._next_stage('aborted') is null,
  'terminal stages have no next stage');

select is(
  (select array_agg(s order by community_deletion._stage_order(s))
     from unnest(array['submitted', 'inventoried', 'approved', 'fenced', 'drained', 'bindings_removed',
                       'postgres_purged', 'cache_purged', 'logically_verified', 'retention_pending', 'aborted']) s
    where community_deletion._stage_is_runnable(s)),
  array['approved', 'fenced', 'drained', 'bindings_removed', 'postgres_purged', 'cache_purged', 'logically_verified'],
  'runnable stages are approved … logically_verified');
select ok(not community_deletion._stage_is_runnable(null), 'null is not runnable');
select ok(community_deletion._stage_is_terminal('aborted') and community_deletion._stage_is_terminal('retention_pending')
          and not community_deletion._stage_is_terminal('logically_verified'),
  'aborted and retention_pending are the terminal stages');

select is(community_deletion._community_lock_key('0d6c2a3e-8b1f-4c55-9d7a-1e2f3a4b5c6d'),
  7927258194927820848::bigint,
  'the community lock key derivation never changes (first 8 bytes XOR "commdele")');
select isnt(community_deletion._community_lock_key('0d6c2a3e-8b1f-4c55-9d7a-1e2f3a4b5c6d'),
            community_deletion._community_lock_key('0d6c2a3e-8b1f-4c56-9d7a-1e2f3a4b5c6d'),
  'different communities get different lock keys');

select is(community_deletion._bound_text(repeat('é', 5000), 4096), repeat('é', 2048),
  'bound text keeps at most the limit in UTF-8 bytes (é is 2 bytes)');
select is(community_deletion._bound_text('a' || repeat('😀', 10), 10), 'a😀😀',
  'and never cuts a character in half (a 4-byte emoji that would not fit is dropped whole)');
select is(community_deletion._bound_text(repeat('x', 4096), 4096), repeat('x', 4096), 'a text at the limit is kept whole');
select is(community_deletion._bound_text(null, 10), null, 'bound text keeps null');

select * from finish();
rollback;
