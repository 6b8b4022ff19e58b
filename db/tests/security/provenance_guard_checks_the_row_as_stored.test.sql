-- The provenance guard fires AFTER each inserted or updated row, so it checks
-- the row as stored: a BEFORE trigger the table's owner adds — which fires
-- after any BEFORE guard named before it — cannot set a provenance row's
-- community column to a tombstone (55000). Before, a row swapped in that
-- way named a tombstone and the absence proof failed for good. The catalog
-- check requires the timing.
-- Committed setup: the owner role owns a registered provenance table
-- (this database is a private clone; the role is dropped at the end).
select 'cd_prov_owner_' || substr(md5(current_database()), 1, 10) as owner_role \gset
\ir ../fixtures/owned_registered_tables.sql

begin;
\ir ../fixtures/fence.sql
select plan(7);

select tests.seed_community('prov-gone.example', 1) as gone \gset
select tests.seed_community('prov-alive.example', 1) as alive \gset
select tests.fx_force_state(:'gone', 'tombstone', 2);

select is((select (tgtype & 66) = 0 and (tgtype & 21) = 21 from pg_trigger
            where tgrelid = 'public.owned_notes'::regclass and tgname = '_020_provenance_guard'), true,
  'the provenance guard is an AFTER INSERT OR UPDATE row trigger');

set local role :"owner_role";
create function public.prov_swap() returns trigger language plpgsql as $f$
begin
  if new.body like 'swap:%' then new.community_id := substr(new.body, 6)::uuid; end if;
  return new;
end $f$;
create trigger _030_swap before insert or update on public.owned_notes for each row execute function public.prov_swap();
select throws_ok(format($$ insert into public.owned_notes (community_id, body) values (null, 'swap:%s') $$, :'gone'),
  '55000', null, 'a row the owner''s BEFORE trigger points at a tombstone is refused');
select throws_ok(format($$ insert into public.owned_notes (community_id, body) values (%L, 'direct') $$, :'gone'),
  '55000', null, 'as is a row naming it directly');
select lives_ok(format($$ insert into public.owned_notes (community_id, body) values (null, 'swap:%s') $$, :'alive'),
  'a row the trigger points at an active community is written');
select throws_ok(format($$ update public.owned_notes set body = 'swap:%s' where community_id = %L $$, :'gone', :'alive'),
  '55000', null, 'an update the trigger points at a tombstone is refused too');
reset role;
select is((select count(*)::int from public.owned_notes where community_id = :'gone'), 0, 'no row names the tombstone');

-- A BEFORE guard is drift (the DDL guard is off for this statement so the
-- catalog check can be asked).
alter event trigger _110_guard_registered_tables disable;
create or replace trigger _020_provenance_guard before insert or update on public.owned_notes for each row
  execute function community_deletion.tg_provenance_table__refuse_inactive_community('community_id');
alter event trigger _110_guard_registered_tables enable;
select is(community_deletion._provenance_guard_problems('public.owned_notes', 'community_id'),
  array['_020_provenance_guard does not fire after each inserted and updated row'],
  'a provenance guard firing BEFORE the row is reported');

select * from finish();
rollback;
reassign owned by :"owner_role" to current_user;
drop owned by :"owner_role";
drop role :"owner_role";
