-- Whoever writes the row, a request's stage moves exactly one step forward,
-- or to aborted from approved/fenced only; never backwards, never skipping,
-- never out of a terminal stage.
begin;
select plan(8);
\ir ../fixtures/lifecycle.sql

select tests.lc_approved('forward.example') as rid \gset

select throws_ok(format($$ update community_deletion.requests set stage = 'inventoried' where id = %L $$, :'rid'),
  'DL2S1', null, 'approved -> inventoried (backwards) is refused');
select throws_ok(format($$ update community_deletion.requests set stage = 'drained', fence_generation = 1 where id = %L $$, :'rid'),
  'DL2S1', null, 'approved -> drained (skipping fenced) is refused');
select lives_ok(format($$ update community_deletion.requests set stage = 'fenced', fence_generation = 1 where id = %L $$, :'rid'),
  'approved -> fenced (the next stage) is allowed');
select lives_ok(format($$ update community_deletion.requests set stage = 'drained' where id = %L $$, :'rid'),
  'fenced -> drained is allowed');
select throws_ok(format($$ update community_deletion.requests
   set stage = 'aborted', aborted_by = 'x', abort_reason = 'y', aborted_at = now(), completed_at = now(),
       lease_owner = null, lease_until = null where id = %L $$, :'rid'),
  'DL2S1', null, 'drained -> aborted is refused: objects may already be gone');

select tests.lc_inventoried('forward-early.example') as rid2 \gset
select throws_ok(format($$ update community_deletion.requests set stage = 'submitted' where id = %L $$, :'rid2'),
  'DL2S1', null, 'inventoried -> submitted is refused');
select lives_ok(format($$ update community_deletion.requests
   set stage = 'aborted', aborted_by = 'x', abort_reason = 'y', aborted_at = now(), completed_at = now() where id = %L $$, :'rid2'),
  'inventoried -> aborted is allowed (a withdrawal: nothing ran yet)');

select tests.lc_approved('forward-terminal.example') as rid3 \gset
select 1 from community_deletion.abort(:'rid3', 'carol', 'cancel') \g /dev/null
select throws_ok(format($$ update community_deletion.requests set stage = 'approved', completed_at = null,
   aborted_at = null, aborted_by = null, abort_reason = null where id = %L $$, :'rid3'),
  'DL6F1', null, 'an aborted request never moves again');

select * from finish();
rollback;
