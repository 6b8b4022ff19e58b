-- community_deletion.validate_catalog (docs/design.md#catalog): the live tables with community_id
-- equal the registry; the fenced tables equal the registered scoped tables
-- (detection rule: enabled ROW BEFORE INSERT+UPDATE+DELETE trigger executing
-- tg_scoped_table__enforce_write_fence()); every scoped table has community_id
-- uuid not null and an index leading with community_id. Any drift: DL7C1.
begin;
select plan(16);
-- These cases build drift a table owner can no longer create: the DDL guard
-- (event trigger _110_guard_registered_tables) refuses dropping or disabling
-- a fence trigger. A superuser can still disable the guard; the catalog
-- check is the second line of defence, and that is what is tested here.
alter event trigger _110_guard_registered_tables disable;

select lives_ok($$ select community_deletion.validate_catalog() $$, 'the reference schema validates');
select is(community_deletion._live_fenced_tables(),
  (select array_agg(table_name order by table_name collate "C") from community_deletion.registered_tables where kind = 'scoped'),
  'exactly the registered scoped tables are detected as fenced');

savepoint s;
create table public.drift_probe (community_id uuid not null references public.communities (id), payload text);
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null,
  'an unregistered table with community_id is drift');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence on public.pubkey_allowlist;
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null, 'a scoped table without its fence is drift');
rollback to savepoint s;

savepoint s;
alter table public.pubkey_allowlist disable trigger _010_community_write_fence;
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null, 'a disabled fence does not count');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence on public.pubkey_allowlist;
create trigger _010_community_write_fence before insert or update on public.pubkey_allowlist
  for each row execute function community_deletion.tg_scoped_table__enforce_write_fence();
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null, 'a fence that misses DELETE does not count');
rollback to savepoint s;

savepoint s;
drop trigger _010_community_write_fence on public.pubkey_allowlist;
create trigger _010_community_write_fence before insert or update or delete on public.pubkey_allowlist
  for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence();
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null, 'a statement-level fence does not count');
rollback to savepoint s;

savepoint s;
create function pg_temp.imposter() returns trigger language plpgsql as $$ begin return new; end $$;
drop trigger _010_community_write_fence on public.pubkey_allowlist;
create trigger _010_community_write_fence before insert or update or delete on public.pubkey_allowlist
  for each row execute function pg_temp.imposter();
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null,
  'a trigger of the same name running another function does not count');
rollback to savepoint s;

savepoint s;
create table public.drift_probe (community_id uuid references public.communities (id), payload text);
create index on public.drift_probe (community_id);
select community_deletion.register_unscoped_table('public.drift_probe', 'provenance', 'probe');
create trigger _010_community_write_fence before insert or update or delete on public.drift_probe
  for each row execute function community_deletion.tg_scoped_table__enforce_write_fence();
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null,
  'a write fence on a table not registered as scoped is drift (stale registry)');
rollback to savepoint s;

savepoint s;
create table public.drift_probe (community_id uuid not null references public.communities (id), payload text);
create index drift_probe_community_idx on public.drift_probe (community_id);
select community_deletion.register_scoped_table('public.drift_probe', 1000);
select lives_ok($$ select community_deletion.validate_catalog() $$, 'a registered, fenced, indexed table validates');
drop index public.drift_probe_community_idx;
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null,
  'a scoped table without an index leading with community_id is drift');
create index on public.drift_probe (payload, community_id);
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null,
  'an index with community_id in second place does not count');
create index on public.drift_probe (community_id) where payload is not null;
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null, 'a partial index does not count');
drop table public.drift_probe;
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null,
  'a registered table that no longer exists is drift');
rollback to savepoint s;

savepoint s;
create table public.drift_probe (community_id uuid not null references public.communities (id), payload text);
create index on public.drift_probe (community_id);
select community_deletion.register_scoped_table('public.drift_probe', 1000);
alter table public.drift_probe alter column community_id drop not null;
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null,
  'a scoped table whose community_id became nullable is drift');
rollback to savepoint s;

-- The message names the offending table so a blocked claim explains itself.
savepoint s;
create table public.explain_probe (community_id uuid not null, payload text);
create function pg_temp.drift_message() returns text language plpgsql as $$
begin
  perform community_deletion.validate_catalog();
  return null;
exception when sqlstate 'DL7C1' then
  return sqlerrm;
end $$;
select ok(pg_temp.drift_message() like '%explain_probe%', 'the drift message names the unknown table');
rollback to savepoint s;

select * from finish();
rollback;
