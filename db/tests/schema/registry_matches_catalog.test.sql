-- The registry is the engine's view of the tenant schema: it must equal the
-- live catalog, and every scoped table must have the shape the purge relies on.
begin;
select plan(9);

select is(
  (select count(*)::int from community_deletion.registered_tables where kind = 'scoped'), 28,
  'the reference schema registers 28 community-scoped tables');

select is(
  (select array_agg(table_name order by table_name) from community_deletion.registered_tables where kind = 'provenance'),
  array['product_feedback', 'rate_limit_violations'],
  'the two provenance-only tables are registered');

select is_empty($$
  select table_name from community_deletion.registered_tables r
  where r.kind = 'scoped' and to_regclass('public.' || quote_ident(r.table_name)) is null
$$, 'every registered scoped table exists');

select set_eq($$
  select c.relname::text from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  join pg_attribute a on a.attrelid = c.oid and a.attname = 'community_id' and not a.attisdropped
  where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
$$, $$ select table_name from community_deletion.registered_tables $$,
  'live public tables with community_id equal the registry (scoped + provenance + control plane)');

select is_empty($$
  select r.table_name from community_deletion.registered_tables r
  join pg_attribute a on a.attrelid = ('public.' || r.table_name)::regclass and a.attname = 'community_id'
  where r.kind = 'scoped' and (not a.attnotnull or a.atttypid <> 'uuid'::regtype)
$$, 'every scoped table has community_id uuid not null');

select is_empty($$
  select r.table_name from community_deletion.registered_tables r
  where r.kind in ('scoped', 'provenance') and not exists (
    select 1 from pg_constraint con
    join pg_attribute a on a.attrelid = con.conrelid and a.attnum = con.conkey[1]
    where con.conrelid = ('public.' || r.table_name)::regclass and con.contype = 'f'
      and con.confrelid = 'public.communities'::regclass
      and array_length(con.conkey, 1) = 1 and a.attname = 'community_id')
$$, 'every scoped and provenance table has a foreign key community_id -> communities');

select is_empty($$
  select r.table_name from community_deletion.registered_tables r
  where r.kind in ('scoped', 'provenance') and not exists (
    select 1 from pg_index i
    join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
    where i.indrelid = ('public.' || r.table_name)::regclass and a.attname = 'community_id'
      and i.indisvalid and i.indpred is null)
$$, 'every scoped and provenance table has a valid index leading with community_id');

select is_empty($$
  select r.table_name from community_deletion.registered_tables r
  where r.kind = 'provenance' and exists (
    select 1 from pg_attribute a where a.attrelid = ('public.' || r.table_name)::regclass
      and a.attname = 'community_id' and a.attnotnull)
$$, 'provenance-only community_id is nullable (the purge nulls it)');

select is(
  (select array_agg(split_part(prefix_template, '/', 1) order by prefix_template collate "C")
   from community_deletion.storage_taxonomy where scope = 'owned'),
  array['_meta', '_uploads', 'repos'],
  'the storage taxonomy owns exactly the three community prefixes');

select * from finish();
rollback;
