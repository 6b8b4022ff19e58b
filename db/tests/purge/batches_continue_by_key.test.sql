-- A bounded purge batch continues a scoped table by key
-- (community_deletion._purge_keyset): it looks rows up from right after the
-- last key the table's previous batch removed (checkpoint detail "after"),
-- not from the start of the community's range, and records the key range it
-- removed ("from" .. "to") for the next batch to sweep. A lookup by key
-- never completes a table: only a lookup from the start of the range that
-- finds nothing does, so rows a key lookup skipped (a key holding NULL, a
-- stale or tampered "after") are still purged before the tombstone.
begin;
\ir ../fixtures/destruction.sql
select plan(18);

-- Which index a table continues by.
create temp table k_plain (community_id uuid, a integer, b text, c text collate "C", d integer);
select is((select count(*)::int from community_deletion._purge_keyset('k_plain'::regclass, 'community_id')), 0,
  'no index: no key');
create index on k_plain (community_id);
select is((select count(*)::int from community_deletion._purge_keyset('k_plain'::regclass, 'community_id')), 0,
  'an index on the community column alone gives no key');
create index on k_plain (community_id, a desc);
create index on k_plain (community_id, d) where d > 0;
create index on k_plain (community_id, (lower(b)));
create index on k_plain (a, community_id);
create index on k_plain (community_id, b collate "C");
select is((select count(*)::int from community_deletion._purge_keyset('k_plain'::regclass, 'community_id')), 0,
  'descending, partial, expression, not-leading and other-collation indexes give no key');
create index on k_plain (community_id, a, d);
select is((select (key_columns, key_types, key_unique)::text from community_deletion._purge_keyset('k_plain'::regclass, 'community_id')),
  ('{a,d}', '{integer,integer}', false)::text, 'a plain ascending index gives its columns after the community column');
create index on k_plain (community_id, c);
select is((select key_columns from community_deletion._purge_keyset('k_plain'::regclass, 'community_id')), '{c}'::text[],
  'of two, the one with fewer columns (c keeps its own collation)');
create unique index on k_plain (community_id, b, a);
select is((select (key_columns, key_unique)::text from community_deletion._purge_keyset('k_plain'::regclass, 'community_id')),
  ('{b,a}', true)::text, 'a unique index is preferred');
select is((select key_columns from community_deletion._purge_keyset('public.audit_log'::regclass, 'community_id')), '{id}'::text[],
  'audit_log continues by id (its primary key after community_id)');

-- A community with a thousand more audit_log rows, at bindings_removed.
select tests.seed_community('keyed.example', 2) as community_id \gset
insert into public.audit_log (community_id, actor, action) select :'community_id', 'keyed', 'seeded' from generate_series(1, 1000);
select request_id, owner, generation, fence_generation from tests.dx_fence('keyed.example') \gset
select tests.dx_to_bindings_removed(:'request_id', :'owner', :'generation', :'fence_generation', :'community_id');
select set_config('community_deletion.read_state_hard_delete', 'on', true);
create function pg_temp.batch(p_request uuid, p_community uuid, p_generation bigint, p_budget bigint) returns jsonb
  language plpgsql as $$
declare
  v jsonb;
begin
  set local role community_deletion_owner;
  v := community_deletion._purge_batch(p_request, p_community, 'bindings_removed', p_generation, p_budget, interval '1 hour');
  reset role;
  return v;
end;
$$;
create function pg_temp.audit() returns jsonb language sql as $$
  select detail from community_deletion.checkpoints
   where request_id = current_setting('tests.request_id')::uuid and stage = 'bindings_removed' and unit_key = 'purge:audit_log'
$$;
select set_config('tests.request_id', :'request_id', true) \g /dev/null

-- Batches of 200 until one stops inside audit_log.
do $$
begin
  for i in 1..1000 loop
    perform pg_temp.batch(current_setting('tests.request_id')::uuid,
      (select community_id from community_deletion.requests where id = current_setting('tests.request_id')::uuid),
      (select lease_generation from community_deletion.requests where id = current_setting('tests.request_id')::uuid), 200);
    exit when (pg_temp.audit() ->> 'rows')::int > 0;
  end loop;
end $$;
select ok((pg_temp.audit() ->> 'rows')::int between 1 and 999, 'a batch stopped inside audit_log');
select ok(jsonb_typeof(pg_temp.audit() -> 'after') = 'array' and (pg_temp.audit() -> 'after' ->> 0) is not null
          and not exists (select 1 from public.audit_log
                           where community_id = :'community_id' and id <= (pg_temp.audit() -> 'after' ->> 0)::bigint),
  'its checkpoint keeps the last key removed: no row of the community up to it is left');
select is(pg_temp.audit() -> 'to', pg_temp.audit() -> 'after', 'the range it removed ends there');
select ok((pg_temp.audit() ->> 'from') is not null, 'and starts where it began');

-- Tamper with "after": skip 100 rows. The next batch continues past them.
select id as skip_to from public.audit_log where community_id = :'community_id' order by id offset 99 limit 1 \gset
select count(*) as beyond_before from public.audit_log where community_id = :'community_id' and id > :skip_to \gset
select community_deletion._checkpoint(:'request_id', 'bindings_removed', 'purge:audit_log', 'started', :generation,
  pg_temp.audit() || jsonb_build_object('after', jsonb_build_array((:skip_to)::text)));
select pg_temp.batch(:'request_id', :'community_id', :generation, 200) \g /dev/null
select is((select count(*)::int from public.audit_log where community_id = :'community_id' and id <= :skip_to),
  100, 'the next batch continued after the key: the 100 rows up to it are still there');
select cmp_ok((select count(*) from public.audit_log where community_id = :'community_id' and id > :skip_to), '<', :beyond_before::bigint,
  'and it removed rows after the key');

-- Run to the end: the skipped rows are found by the lookup from the start.
do $$
declare
  v jsonb;
begin
  for i in 1..1000 loop
    v := pg_temp.batch(current_setting('tests.request_id')::uuid,
      (select community_id from community_deletion.requests where id = current_setting('tests.request_id')::uuid),
      (select lease_generation from community_deletion.requests where id = current_setting('tests.request_id')::uuid), 200);
    exit when (v ->> 'done')::boolean;
  end loop;
end $$;
select is((select count(*)::int from public.audit_log where community_id = :'community_id'), 0,
  'every audit_log row is gone, the skipped ones too: only a lookup from the start completes a table');
select is((select status from community_deletion.checkpoints
            where request_id = :'request_id' and stage = 'bindings_removed' and unit_key = 'purge:audit_log'), 'completed',
  'audit_log is completed');
select ok(not (pg_temp.audit() ? 'after') and not (pg_temp.audit() ? 'from'), 'a completed checkpoint keeps no key');
select is((select sum(row_count)::int from tests.scoped_row_counts(:'community_id')), 0, 'nothing of the community is left');
select lives_ok(format('select community_deletion.finish_postgres_purge(%L, %L, %s, %s)',
  :'request_id', :'owner', :'generation', :'fence_generation'), 'and the absence proof passes');

select * from finish();
rollback;
