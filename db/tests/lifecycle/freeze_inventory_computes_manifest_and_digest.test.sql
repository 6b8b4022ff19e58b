-- community_deletion.freeze_inventory: computes the schema manifest in SQL (sorted scoped
-- tables, per-table row counts, fenced tables), stores the canonical storage
-- summary, binds both in one inventory with its SHA-256 digest, and moves
-- submitted -> inventoried. Refusals by SQLSTATE.
begin;
select plan(19);
\ir ../fixtures/lifecycle.sql

select tests.seed_community('freeze.example', 3) as c \gset
select tests.seed_community('bystander.example', 2) as other \gset
select id as rid from community_deletion.submit('freeze.example', 'alice') \gset

-- The stores are required: without them the first executor would adopt its
-- own, and a mistyped Redis database would prove an empty namespace.
select throws_ok(format($$ select community_deletion.freeze_inventory(%L, tests.lc_storage_summary(%L)) $$, :'rid', :'c'),
  'DL1I1', 'store_identity is required: the S3 endpoint and bucket and the Redis server and database the storage summary was enumerated from',
  'a freeze without store_identity is refused');
select throws_ok(format($$ select community_deletion.freeze_inventory(%L, tests.lc_storage_summary(%L), 'null'::jsonb) $$, :'rid', :'c'),
  'DL1I1', null, 'and so is a JSON null');
select is((select (stage, inventory_digest is null)::text from community_deletion.requests where id = :'rid'), '(submitted,t)',
  'the refusals froze nothing');

select is((select stage from community_deletion.freeze_inventory(:'rid', tests.lc_storage_summary(:'c'), tests.store_identity())), 'inventoried',
  'freezing moves submitted -> inventoried');

select is(
  (select array(select jsonb_array_elements_text(schema_manifest->'scoped_tables'))
     from community_deletion.requests where id = :'rid'),
  (select array_agg(table_name::text order by table_name collate "C") from community_deletion.registered_tables where kind = 'scoped'),
  'the schema manifest lists every registered scoped table, sorted');
select is(
  (select jsonb_object_agg(t.table_name, t.row_count) from tests.scoped_row_counts(:'c') t),
  (select schema_manifest->'row_counts' from community_deletion.requests where id = :'rid'),
  'per-table row counts are the target''s rows (not the bystander''s)');
select ok(
  (select (schema_manifest->'row_counts'->>'users')::int = 3 from community_deletion.requests where id = :'rid'),
  'row counts count only the target community');
select is(
  (select schema_manifest->'fenced_tables' from community_deletion.requests where id = :'rid'),
  to_jsonb(community_deletion._live_fenced_tables()),
  'the schema manifest records the live fenced tables');
select is(
  (select storage_manifest from community_deletion.requests where id = :'rid'),
  tests.lc_storage_summary(:'c'),
  'the canonical storage summary is stored');
select is(
  (select inventory_manifest from community_deletion.requests where id = :'rid'),
  (select jsonb_build_object('schema', schema_manifest, 'storage', storage_manifest)
     from community_deletion.requests where id = :'rid'),
  'the inventory is {"schema": …, "storage": …}');
select is(
  (select inventory_digest from community_deletion.requests where id = :'rid'),
  (select encode(sha256(convert_to(inventory_manifest::text, 'UTF8')), 'hex')
     from community_deletion.requests where id = :'rid'),
  'the digest is the lowercase hex SHA-256 of the inventory''s jsonb text');
select ok((select inventory_frozen_at is not null from community_deletion.requests where id = :'rid'),
  'the freeze time is recorded');

select throws_ok(format($$ select community_deletion.freeze_inventory(%L, tests.lc_storage_summary(%L), tests.store_identity()) $$, :'rid', :'c'),
  'DL2S1', null, 'an inventory is frozen only once (stage inventoried refuses)');
select throws_ok(format($$ select community_deletion.freeze_inventory(%L, '{}', tests.store_identity()) $$, gen_random_uuid()),
  'DL1N1', null, 'an unknown request is refused');

-- A blocked submitted request is not frozen.
select id as rid2 from community_deletion.submit('bystander.example', 'carol') \gset
select 1 from community_deletion.block_preclaim(:'rid2', 'service_setup', 'configuration missing') \g /dev/null
select throws_ok(format($$ select community_deletion.freeze_inventory(%L, tests.lc_storage_summary(%L), tests.store_identity()) $$, :'rid2', :'other'),
  'DL2B1', null, 'a blocked request is not frozen');
select 1 from community_deletion.unblock(:'rid2', 'dave', 'configuration restored') \g /dev/null

-- The storage summary must be the target's own.
select throws_ok(format($$ select community_deletion.freeze_inventory(%L, tests.lc_storage_summary(%L), tests.store_identity()) $$, :'rid2', :'c'),
  'DL1M1', null, 'another community''s storage summary is refused');

-- Catalog drift refuses the freeze.
create table public.lc_drift_probe (community_id uuid);
select throws_ok(format($$ select community_deletion.freeze_inventory(%L, tests.lc_storage_summary(%L), tests.store_identity()) $$, :'rid2', :'other'),
  'DL7C1', null, 'an unregistered table with community_id refuses the freeze (catalog validated first)');
drop table public.lc_drift_probe;
select is((select stage from community_deletion.requests where id = :'rid2'), 'submitted',
  'refused freezes leave the request submitted');

-- A non-active community is not inventoried.
select tests.lc_force(format($$ update public.communities set deletion_state = 'quiescing' where id = %L $$, :'other')) \g /dev/null
select throws_ok(format($$ select community_deletion.freeze_inventory(%L, tests.lc_storage_summary(%L), tests.store_identity()) $$, :'rid2', :'other'),
  'DL2C1', null, 'a community that is no longer active is not inventoried');

select * from finish();
rollback;
