-- community_deletion.register_scoped_table is how a migration adds a tenant table: it
-- records the purge order and attaches the write fence, and refuses tables the
-- purge could not handle safely (DL7C1).
begin;
\ir ../fixtures/fence.sql
select plan(19);

create table public.new_tenant_things (
  community_id uuid not null references public.communities (id),
  id bigint generated always as identity,
  body text,
  constraint new_tenant_things_pkey primary key (community_id, id));
select lives_ok($$ select community_deletion.register_scoped_table('public.new_tenant_things', 5) $$,
  'a table with community_id uuid not null and a leading index registers');
select is((select (kind, purge_order)::text from community_deletion.registered_tables where table_name = 'new_tenant_things'),
  '(scoped,5)', 'the registry records it as scoped with its purge order');
select trigger_is('public', 'new_tenant_things', '_010_community_write_fence', 'community_deletion', 'tg_scoped_table__enforce_write_fence',
  'the write fence is attached');
select set_eq($$ select tgname::text from pg_trigger where tgrelid = 'public.new_tenant_things'::regclass and not tgisinternal $$,
  array['_010_community_write_fence', '_010_community_write_fence_update', '_010_community_write_fence_delete',
        '_010_community_write_fence_early', '_010_community_write_fence_early_delete', '_010_community_write_fence_truncate'],
  'six triggers: three statement-level fences, two early refusals, the TRUNCATE guard');
select ok(has_table_privilege('community_deletion_owner', 'public.new_tenant_things', 'select, delete'),
  'the engine owner may count and purge the new table');
select lives_ok($$ select community_deletion.register_scoped_table('public.new_tenant_things', 5) $$, 'registering again is harmless');
select lives_ok($$ select community_deletion.validate_catalog() $$, 'the catalog validates with the new table');

select tests.seed_community('n.example', 1) as c \gset
select tests.fx_force_state(:'c', 'fenced', 1);
select throws_ok(format($$ insert into public.new_tenant_things (community_id, body) values (%L, 'x') $$, :'c'),
  '55000', null, 'the new table is fenced like the others');

create table public.no_index_things (community_id uuid not null references public.communities (id), body text);
select throws_ok($$ select community_deletion.register_scoped_table('public.no_index_things', 6) $$, 'DL7C1', null,
  'a table without an index leading with community_id is refused');
create table public.nullable_things (community_id uuid references public.communities (id), body text);
create index on public.nullable_things (community_id);
select throws_ok($$ select community_deletion.register_scoped_table('public.nullable_things', 7) $$, 'DL7C1', null,
  'a nullable community_id is refused for a scoped table');
select throws_ok($$ select community_deletion.register_scoped_table('public.product_feedback', 8) $$, 'DL7C1', null,
  'a provenance table cannot be re-registered as scoped');
create schema elsewhere;
create table elsewhere.things (community_id uuid not null references public.communities (id), body text);
create index on elsewhere.things (community_id);
select lives_ok($$ select community_deletion.register_scoped_table('elsewhere.things', 9) $$,
  'a table in another schema registers');
select is((select (schema_name, table_name, kind)::text from community_deletion.registered_tables where schema_name = 'elsewhere'),
  '(elsewhere,things,scoped)', 'the registry names it by schema and table');
select throws_ok($$ select community_deletion.register_scoped_table('community_deletion.requests', 10) $$, 'DL7C1', null,
  'the engine''s own tables cannot be registered');

-- Partitions and inheritance: the fence cannot cover them.
create table public.partitioned_things (community_id uuid not null references public.communities (id), body text)
  partition by hash (community_id);
create table public.partitioned_things_0 partition of public.partitioned_things for values with (modulus 1, remainder 0);
create index on public.partitioned_things (community_id);
select throws_ok($$ select community_deletion.register_scoped_table('public.partitioned_things', 11) $$, 'DL7C1', null,
  'a partitioned table is refused');
select throws_ok($$ select community_deletion.register_scoped_table('public.partitioned_things_0', 12) $$, 'DL7C1', null,
  'a partition is refused');
create table public.parent_things (community_id uuid not null references public.communities (id), body text);
create index on public.parent_things (community_id);
create table public.child_things () inherits (public.parent_things);
create index on public.child_things (community_id);
select throws_ok($$ select community_deletion.register_scoped_table('public.parent_things', 13) $$, 'DL7C1', null,
  'an inheritance parent is refused');
select throws_ok($$ select community_deletion.register_scoped_table('public.child_things', 14) $$, 'DL7C1', null,
  'an inheritance child is refused');
create table public.two_community_things (community_id uuid not null references public.communities (id),
  origin uuid references public.communities (id), body text);
create index on public.two_community_things (community_id);
select throws_ok($$ select community_deletion.register_scoped_table('public.two_community_things', 15) $$, 'DL7C1',
  'cannot register public.two_community_things as community-scoped: besides community_id, these columns hold communities: origin',
  'a table with a second column holding a community is refused, naming it');

select * from finish();
rollback;
