-- community_deletion.register_scoped_table is how a migration adds a tenant table: it
-- records the purge order and attaches the write fence, and refuses tables the
-- purge could not handle safely (DL7C1).
begin;
\ir ../fixtures/fence.sql
select plan(10);

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
create table elsewhere.things (community_id uuid not null, body text);
create index on elsewhere.things (community_id);
select throws_ok($$ select community_deletion.register_scoped_table('elsewhere.things', 9) $$, 'DL7C1', null,
  'a table outside schema public is refused');

select * from finish();
rollback;
