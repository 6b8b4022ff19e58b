-- The catalog check has no blind spots: every relation that holds
-- communities must be registered — in any schema, with a column named
-- community_id or a foreign key to communities under any name, partitioned
-- tables and their partitions, inheritance children, materialized views —
-- as scoped, provenance, or explicitly excluded with a reason. Each case is
-- one unregistered relation, reported by name; registering it (or dropping
-- it) clears the drift. Runs on both fence implementations.
begin;
select plan(15);

create function pg_temp.drift() returns text language plpgsql as $$
begin
  perform community_deletion.validate_catalog();
  return 'no drift';
exception when sqlstate 'DL7C1' then
  return sqlerrm;
end;
$$;
select is(pg_temp.drift(), 'no drift', 'the reference schema validates');

-- Another schema.
create schema tenant_extras;
create table tenant_extras.badges (community_id uuid not null references public.communities (id), name text);
create index on tenant_extras.badges (community_id);
select matches(pg_temp.drift(), 'unregistered tables holding communities: tenant_extras\.badges',
  'a table with community_id in another schema is found');
select community_deletion.register_scoped_table('tenant_extras.badges', 400);
select is(pg_temp.drift(), 'no drift', 'registered (and fenced), it validates');

-- A foreign key to communities under another column name.
create table public.cross_links (id bigint primary key, owner_community uuid references public.communities (id));
select matches(pg_temp.drift(), 'unregistered tables holding communities: cross_links',
  'a foreign key to communities under any column name is found');
create index on public.cross_links (owner_community);
select community_deletion.register_unscoped_table('public.cross_links', 'provenance', 'links remember their origin community');
select is((select community_column from community_deletion.registered_tables where table_name = 'cross_links'),
  'owner_community', 'as provenance it records the column the purge nulls');
select is(pg_temp.drift(), 'no drift', 'registered as provenance, it validates');

-- Partitioned tables and their partitions.
create table public.sharded_events (community_id uuid not null references public.communities (id), body text)
  partition by hash (community_id);
create table public.sharded_events_0 partition of public.sharded_events for values with (modulus 2, remainder 0);
create table public.sharded_events_1 partition of public.sharded_events for values with (modulus 2, remainder 1);
select matches(pg_temp.drift(), 'unregistered tables holding communities: sharded_events, sharded_events_0, sharded_events_1',
  'an unregistered partitioned table and each of its partitions are found');
select community_deletion.register_unscoped_table(t, 'excluded', 'archived shards, kept by contract')
  from unnest(array['public.sharded_events', 'public.sharded_events_0', 'public.sharded_events_1']::regclass[]) t;
select is(pg_temp.drift(), 'no drift', 'excluded with a reason, they validate');
select throws_ok($$ select community_deletion.register_unscoped_table('public.sharded_events_1', 'excluded', '  ') $$,
  'DL1I1', null, 'excluding a table needs a reason');

-- An inheritance child of a table that does not hold communities itself.
create table public.generic_log (at timestamptz default now());
create table public.tenant_log (community_id uuid not null references public.communities (id)) inherits (public.generic_log);
select matches(pg_temp.drift(), 'unregistered tables holding communities: tenant_log',
  'an inheritance child holding communities is found');
create index on public.tenant_log (community_id);
select throws_ok($$ select community_deletion.register_scoped_table('public.tenant_log', 401) $$, 'DL7C1', null,
  'and cannot be registered as scoped (the fence would not cover its parent''s statements)');
drop table public.tenant_log;

-- A materialized view copying tenant rows.
create materialized view public.member_stats as
  select community_id, count(*) as members from public.users group by community_id;
select matches(pg_temp.drift(), 'unregistered tables holding communities: member_stats',
  'a materialized view holding communities is found');
drop materialized view public.member_stats;

-- A registered table that changes shape is reported, by what is wrong.
alter table tenant_extras.badges add column awarded_by_community uuid references public.communities (id);
select matches(pg_temp.drift(),
  'registered tables out of shape: tenant_extras.badges: the columns holding a community are awarded_by_community, community_id',
  'a scoped table that grows a second community column is out of shape');
alter table tenant_extras.badges drop column awarded_by_community;
alter table public.cross_links alter column owner_community set not null;
select matches(pg_temp.drift(), 'cross_links: owner_community is NOT NULL \(the purge nulls it\)',
  'a provenance column that becomes NOT NULL is out of shape');
alter table public.cross_links alter column owner_community drop not null;

-- The engine's own schema is not the host's: its tables are never listed.
select ok(not ('requests' = any (community_deletion._live_community_tables())
               or 'community_deletion.requests' = any (community_deletion._live_community_tables())),
  'the control plane''s own community_id columns are not host tables');

select * from finish();
rollback;
