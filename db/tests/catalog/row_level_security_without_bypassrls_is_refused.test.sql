-- Managed servers (docs/managed.md): only a superuser may give
-- community_deletion_owner BYPASSRLS, so a non-superuser's install has an
-- engine owner that row-level security applies to, and a policy could hide
-- rows from the purge and the absence proof. Without BYPASSRLS, a table whose
-- row-level security would apply to the owner is refused at registration
-- (scoped and provenance) and reported by validate_catalog; the table's own
-- owner is exempt unless the table FORCEs row-level security. With BYPASSRLS
-- (a superuser's install) row-level security is no problem. The role change
-- is rolled back with the test.
begin;
select plan(13);

create function pg_temp.drift() returns text language plpgsql as $$
begin
  perform community_deletion.validate_catalog();
  return 'no drift';
exception when sqlstate 'DL7C1' then
  return sqlerrm;
end;
$$;

select is(community_deletion.installation_report() ->> 'rls_exemption', 'bypassrls',
  'installed by a superuser: the engine owner has BYPASSRLS');
alter role community_deletion_owner nobypassrls;
select is(community_deletion.installation_report() ->> 'rls_exemption', 'registration_check',
  'without BYPASSRLS the report says registration_check');
select ok(community_deletion.installation_report() -> 'degraded' @> '[{"what": "RLS exemption"}]',
  'and lists the RLS exemption as degraded');

create table public.guarded_notes (community_id uuid not null references public.communities (id), body text);
create index on public.guarded_notes (community_id);
alter table public.guarded_notes enable row level security;
select throws_ok($$ select community_deletion.register_scoped_table('public.guarded_notes', 900) $$, 'DL7C1',
  'cannot register public.guarded_notes as community-scoped: row-level security applies to community_deletion_owner (it has no BYPASSRLS and does not own the table)',
  'a scoped table with row-level security is refused');

alter table public.guarded_notes owner to community_deletion_owner;
alter table public.guarded_notes force row level security;
select throws_ok($$ select community_deletion.register_scoped_table('public.guarded_notes', 900) $$, 'DL7C1',
  'cannot register public.guarded_notes as community-scoped: row-level security applies to community_deletion_owner (it has no BYPASSRLS and the table FORCEs row-level security)',
  'owned by the engine owner but FORCEd: refused');
alter table public.guarded_notes no force row level security;
select lives_ok($$ select community_deletion.register_scoped_table('public.guarded_notes', 900) $$,
  'owned by the engine owner without FORCE: the owner is exempt, registered');
select is(pg_temp.drift(), 'no drift', 'and it validates');

create table public.guarded_origins (origin_community_id uuid references public.communities (id), note text);
create index on public.guarded_origins (origin_community_id);
alter table public.guarded_origins enable row level security;
select throws_ok($$ select community_deletion.register_unscoped_table('public.guarded_origins', 'provenance', 'remembers an origin') $$,
  'DL7C1', null, 'a provenance table with row-level security is refused');
alter table public.guarded_origins disable row level security;
select lives_ok($$ select community_deletion.register_unscoped_table('public.guarded_origins', 'provenance', 'remembers an origin') $$,
  'without row-level security it registers');

-- Row-level security turned on later on registered tables is drift.
alter table public.pubkey_allowlist enable row level security;
alter table public.guarded_origins enable row level security;
select matches(pg_temp.drift(),
  'registered tables out of shape: guarded_origins: row-level security applies to community_deletion_owner.*; pubkey_allowlist: row-level security applies to community_deletion_owner',
  'validate_catalog reports registered scoped and provenance tables whose row-level security applies to the owner');
select throws_ok($$ select community_deletion.validate_catalog() $$, 'DL7C1', null, 'with DL7C1');

-- With BYPASSRLS, the same tables are no problem.
alter role community_deletion_owner bypassrls;
select is(pg_temp.drift(), 'no drift', 'with BYPASSRLS row-level security cannot hide rows: no drift');
select is(community_deletion._row_security_problem('public.pubkey_allowlist'), null, 'no problem reported');

select * from finish();
rollback;
