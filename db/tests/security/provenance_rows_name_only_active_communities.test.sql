-- A provenance row may name a community only while it is active: after the
-- purge nulled a tombstone's provenance rows, an application writing the
-- tombstone's id back would make the absence proof fail forever. Setting the
-- column to a quiescing, fenced or tombstoned community is refused (55000);
-- NULL is always allowed (what the purge writes); an unchanged column is not
-- re-checked. Runs on both fence implementations.
begin;
\ir ../fixtures/fence.sql
select plan(10);

select tests.seed_community('prov-active.example', 1) as active \gset
select tests.seed_community('prov-target.example', 1) as target \gset
select id as row_id from public.product_feedback where community_id = :'active' limit 1 \gset
select id as target_row from public.product_feedback where community_id = :'target' limit 1 \gset
set local role community_deletion_app;
select lives_ok(format($$ insert into public.product_feedback (community_id, submitted_by, body) values (%L, 'u', 'hi') $$, :'active'),
  'naming an active community is allowed');
reset role;

select tests.fx_force_state(:'target', 'quiescing', 0);
set local role community_deletion_app;
select throws_ok(format($$ insert into public.product_feedback (community_id, submitted_by, body) values (%L, 'u', 'hi') $$, :'target'),
  '55000', null, 'naming a quiescing community is refused');
reset role;
select tests.fx_force_state(:'target', 'fenced', 1);
set local role community_deletion_app;
select throws_ok(format($$ update public.rate_limit_violations set community_id = %L $$, :'target'),
  '55000', null, 'moving rows to a fenced community is refused');
reset role;
select tests.fx_force_state(:'target', 'tombstone', 1);
set local role community_deletion_app;
select throws_ok(format($$ update public.product_feedback set community_id = %L where id = %L $$, :'target', :'row_id'),
  '55000', null, 'pointing a row at a tombstone is refused');
select throws_like(format($$ insert into public.product_feedback (community_id, submitted_by, body) values (%L, 'u', 'hi') $$, :'target'),
  'community write refused: INSERT on public.product_feedback names community % (tombstone) in community_id',
  'the refusal names the table, the community, its state and the column');
select lives_ok(format($$ insert into public.product_feedback (community_id, submitted_by, body) values (null, 'u', 'anonymous') $$),
  'NULL is always allowed');
select lives_ok(format($$ update public.product_feedback set community_id = null where id = %L $$, :'target_row'),
  'nulling a row of a tombstone is allowed (it is what the purge does)');
select lives_ok(format($$ update public.product_feedback set body = 'edited' where id = %L $$, :'row_id'),
  'an update that leaves the community alone is not re-checked');
reset role;
select throws_ok(format($$ insert into public.product_feedback (community_id, submitted_by, body) values (%L, 'u', 'hi') $$, :'target'),
  '55000', null, 'a superuser session is refused too (the guard is a trigger)');
select is((select count(*)::int from public.product_feedback where community_id = :'target'), 0,
  'no provenance row names the tombstone');

select * from finish();
rollback;
