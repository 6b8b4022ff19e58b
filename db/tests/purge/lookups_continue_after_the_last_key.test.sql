-- Keyset continuation (community_deletion._purge_batch, _keyset_columns,
-- _keyset_position): in a bounded batch, a table with an eligible unique
-- index leading with its community column is walked in that index's order,
-- each lookup starting after the key of the last row removed — not from the
-- start of the community, past the index entries of every row removed
-- before (quadratic in a large tenant; docs/design.md) — and a batch's
-- first lookup at the first key the previous batch removed, walking those
-- entries once after their deletion committed. The position lives
-- in a session setting named after the request and unit (never in a table:
-- it is a key of the community's rows), is forgotten once a lookup reaches
-- the end, and only a lookup from the start completes a unit: a wrong,
-- stale or forged position costs time, never a row.
begin;
\ir ../fixtures/destruction.sql
select plan(37);

-- 1. Which index qualifies.
create schema ks;
create table ks.plain (community_id uuid not null, id bigint not null, name text not null, note text,
                       primary key (community_id, id));
create table ks.nullable (community_id uuid not null, id bigint);
create unique index on ks.nullable (community_id, id);
create table ks.descending (community_id uuid not null, id bigint not null);
create unique index on ks.descending (community_id, id desc);
create table ks.partial (community_id uuid not null, id bigint not null);
create unique index on ks.partial (community_id, id) where id > 0;
create table ks.expression (community_id uuid not null, name text not null);
create unique index on ks.expression (community_id, lower(name));
create table ks.pattern_ops (community_id uuid not null, name text not null);
create unique index on ks.pattern_ops (community_id, name text_pattern_ops);
create table ks.other_collation (community_id uuid not null, name text not null);
create unique index on ks.other_collation (community_id, name collate "C");
create table ks.column_collation (community_id uuid not null, name text collate "C" not null);
create unique index on ks.column_collation (community_id, name);
create table ks.not_unique (community_id uuid not null, id bigint not null);
create index on ks.not_unique (community_id, id);
create table ks.alone (community_id uuid not null, id bigint not null);
create unique index on ks.alone (community_id);
create table ks.not_first (community_id uuid not null, id bigint not null);
create unique index on ks.not_first (id, community_id);
create table ks.included (community_id uuid not null, id bigint not null, extra text);
create unique index on ks.included (community_id, id) include (extra);
create table ks.hash_only (community_id uuid not null, id bigint not null);
create index on ks.hash_only using hash (community_id);
create table ks.two (community_id uuid not null, a bigint not null, b bigint not null, c bigint not null);
create unique index two_wide on ks.two (community_id, a, b, c);
create unique index two_narrow on ks.two (community_id, a, b);
create table ks.parted (community_id uuid not null, id bigint not null, primary key (community_id, id)) partition by hash (community_id);
create table ks.parted_0 partition of ks.parted for values with (modulus 1, remainder 0);

select is(community_deletion._keyset_columns('ks.plain', 'community_id'), '{community_id,id}'::text[],
  'a unique (community_id, id) primary key qualifies, its key columns community column first');
select is(community_deletion._keyset_columns('ks.nullable', 'community_id'), null, 'not with a nullable key column');
select is(community_deletion._keyset_columns('ks.descending', 'community_id'), null, 'not with a descending key column');
select is(community_deletion._keyset_columns('ks.partial', 'community_id'), null, 'not a partial index');
select is(community_deletion._keyset_columns('ks.expression', 'community_id'), null, 'not with an expression');
select is(community_deletion._keyset_columns('ks.pattern_ops', 'community_id'), null, 'not with a non-default operator class');
select is(community_deletion._keyset_columns('ks.other_collation', 'community_id'), null, 'not with a collation other than the column''s');
select is(community_deletion._keyset_columns('ks.column_collation', 'community_id'), '{community_id,name}'::text[],
  'the column''s own collation, even not the default, qualifies');
select is(community_deletion._keyset_columns('ks.not_unique', 'community_id'), null, 'not a non-unique index');
select is(community_deletion._keyset_columns('ks.alone', 'community_id'), null, 'not the community column alone');
select is(community_deletion._keyset_columns('ks.not_first', 'community_id'), null, 'not an index the community column does not lead');
select is(community_deletion._keyset_columns('ks.plain', 'id'), null, 'not for another column than the one asked');
select is(community_deletion._keyset_columns('ks.included', 'community_id'), '{community_id,id}'::text[],
  'INCLUDE columns are not key columns');
select is(community_deletion._keyset_columns('ks.hash_only', 'community_id'), null, 'not a hash index');
select is(community_deletion._keyset_columns('ks.two', 'community_id'), '{community_id,a,b}'::text[],
  'of two, the one with fewer key columns');
select is(community_deletion._keyset_columns('ks.parted', 'community_id'), null, 'not a partitioned table (its lookups stay as they are)');

-- 2. A recorded position is used only when it is a JSON object naming every key column after the first.
select is(community_deletion._keyset_position('{"id": 7}', '{community_id,id}'), '{"id": 7}'::jsonb, 'a well-formed position is used');
select is(community_deletion._keyset_position('', '{community_id,id}'), null, 'an empty setting: from the start');
select is(community_deletion._keyset_position(null, '{community_id,id}'), null, 'no setting: from the start');
select is(community_deletion._keyset_position('not json', '{community_id,id}'), null, 'not JSON: from the start, no error');
select is(community_deletion._keyset_position('[7]', '{community_id,id}'), null, 'not an object: from the start');
select is(community_deletion._keyset_position('{"a": 1}', '{community_id,a,b}'), null, 'a missing key column: from the start');

-- (The catalog check refuses unregistered tables holding a community column.)
drop schema ks cascade;

-- 3. A purge. One community at bindings_removed with 40,000 audit_log rows
-- (primary key (community_id, id): about 160 leaf pages of entries).
-- One batch as the engine runs it; counts the sequential scans of audit_log
-- the batches did (this transaction's counter) in the setting ks.seqscans.
create function pg_temp.batch(p_request uuid, p_community uuid, p_generation bigint, p_budget bigint)
  returns jsonb language plpgsql as $$
declare
  v jsonb;
  v_scans bigint := pg_stat_get_xact_numscans('public.audit_log'::regclass);
begin
  set local role community_deletion_owner;
  v := community_deletion._purge_batch(p_request, p_community, 'bindings_removed', p_generation, p_budget, interval '1 hour');
  reset role;
  perform set_config('ks.seqscans', (coalesce(nullif(current_setting('ks.seqscans', true), ''), '0')::bigint
                                     + pg_stat_get_xact_numscans('public.audit_log'::regclass) - v_scans)::text, true);
  return v;
end;
$$;
-- Index blocks of audit_log's primary key one batch fetched (this transaction's counter).
create function pg_temp.blocks_of_batch(p_request uuid, p_community uuid, p_generation bigint, p_budget bigint)
  returns bigint language plpgsql as $$
declare
  v_before bigint := pg_stat_get_xact_blocks_fetched('public.audit_log_pkey'::regclass);
begin
  perform pg_temp.batch(p_request, p_community, p_generation, p_budget);
  return pg_stat_get_xact_blocks_fetched('public.audit_log_pkey'::regclass) - v_before;
end;
$$;
create function pg_temp.audit_left(p_community uuid) returns bigint language sql as $$
  select count(*) from public.audit_log where community_id = p_community
$$;
select set_config('community_deletion.read_state_hard_delete', 'on', true);
select tests.seed_community('keyset.example', 2) as c \gset
insert into public.audit_log (community_id, actor, action) select :'c', 'keyset', 'seeded' from generate_series(1, 40000);
select v.request_id as r, v.owner as o, v.generation as g, v.fence_generation as fg from tests.dx_fence('keyset.example') v \gset
select tests.dx_to_bindings_removed(:'r', :'o', :g, :fg, :'c');
select count(*) as audit_rows, min(id) as first_audit_id from public.audit_log where community_id = :'c' \gset
create temp table audit_ids as
  select id, row_number() over (order by id) as rn from public.audit_log where community_id = :'c';
select 'community_deletion.purge_after_' || md5(:'r' || ':purge:audit_log') as setting \gset
select set_config('ks.r', :'r', true), set_config('ks.c', :'c', true), set_config('ks.g', :'g', true) \g /dev/null

-- Batches of 4,000 rows (a cost budget; audit_log weighs 1) until audit_log is under way.
do $$
begin
  for i in 1..40 loop
    exit when exists (select 1 from community_deletion.checkpoints
                       where request_id = current_setting('ks.r')::uuid and unit_key = 'purge:audit_log');
    perform pg_temp.batch(current_setting('ks.r')::uuid, current_setting('ks.c')::uuid, current_setting('ks.g')::bigint, 4000);
  end loop;
end;
$$;
select ok(pg_temp.audit_left(:'c') between 1 and 39999, 'a batch removed part of audit_log');
select :audit_rows - pg_temp.audit_left(:'c') as removed_by_first \gset
select is(current_setting(:'setting', true)::jsonb, jsonb_build_object('id', :first_audit_id::bigint),
  'the session holds the position: the first key that batch removed (the next batch walks its entries once, then goes on)');
select is((select count(*)::int from pg_temp.audit_ids i
             where (i.rn <= :removed_by_first) = exists (select 1 from public.audit_log a where a.id = i.id)), 0,
  'rows go in key order: the batch removed exactly the first ones by id');
select ok((select not (detail ?| array['id', 'after', 'position']) and detail::text !~ '"id"'
             from community_deletion.checkpoints where request_id = :'r' and unit_key = 'purge:audit_log'),
  'the checkpoint holds counts and pace, no key');

-- Well into the table (over 30,000 rows removed, their entries not yet
-- removable: same transaction): a batch that continues fetches a handful of
-- index blocks; the same batch from the start walks every removed entry.
select pg_temp.batch(:'r', :'c', :g, 4000) from generate_series(1, 7) \g /dev/null
select ok(pg_temp.audit_left(:'c') between 4001 and 9999, format('%s audit_log rows left', pg_temp.audit_left(:'c')));
select pg_temp.blocks_of_batch(:'r', :'c', :g, 1000) as continued \gset
select set_config(:'setting', '', false) \g /dev/null
select pg_temp.blocks_of_batch(:'r', :'c', :g, 1000) as restarted \gset
select ok(:continued < 40, format('a batch continuing after the last key fetched %s index blocks', :continued));
select ok(:restarted > 100, format('the same batch from the start of the community fetched %s', :restarted));

-- A forged position past every row: the keyset lookup finds nothing, the
-- batch starts again from the beginning at once (removing rows), and the
-- unit is not completed while rows are left.
select set_config(:'setting', '{"id": 9223372036854775807}', false) \g /dev/null
select pg_temp.audit_left(:'c') as before_forged \gset
select is((pg_temp.batch(:'r', :'c', :g, 1000) ->> 'rows')::bigint, 1000::bigint,
  'a position past the end: the batch still removes its 1,000 rows (from the start)');
select is(pg_temp.audit_left(:'c'), :before_forged - 1000::bigint, 'of audit_log');
select is((select status from community_deletion.checkpoints where request_id = :'r' and unit_key = 'purge:audit_log'),
  'started', 'and audit_log is not completed');
-- A forged position in the middle: the rows before it are skipped by the
-- lookups that continue, then found by the lookup from the start.
select set_config(:'setting', (select jsonb_build_object('id', max(id) - 100)::text from public.audit_log where community_id = :'c'), false) \g /dev/null
select count(*) as done_batches from (select pg_temp.batch(:'r', :'c', :g, 1000) as b from generate_series(1, 60)) x
 where (b ->> 'done')::boolean \gset
select ok(:done_batches > 0, 'the purge reaches done');
select is(pg_temp.audit_left(:'c'), 0::bigint, 'with every audit_log row of the community gone');
select is((select (status, (detail ->> 'rows')::bigint)::text from community_deletion.checkpoints
            where request_id = :'r' and unit_key = 'purge:audit_log'), ('completed', :audit_rows)::text,
  'audit_log completed with every row counted');
select is(current_setting(:'setting', true), '', 'and the session forgot the position');
select is(current_setting('ks.seqscans'), '0',
  'no batch read audit_log sequentially: rows are found through the index and removed through a TID scan');

select * from finish();
rollback;
