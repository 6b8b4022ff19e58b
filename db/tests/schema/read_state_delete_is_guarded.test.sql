-- Read-state rows (kind 30078, d_tag read-state:…) cannot be hard-deleted
-- without the transaction-local opt-in; other events delete normally.
begin;
select plan(5);

select tests.seed_community('read-state.example', 1) as c \gset

select throws_ok(
  format($$ delete from public.events where community_id = %L and kind = 30078 $$, :'c'),
  'DL8G1', null, 'a read-state row cannot be hard-deleted without the opt-in');

select is((select count(*)::int from public.events where community_id = :'c' and kind = 30078), 1,
  'the refused delete removed nothing');

select lives_ok(
  format($$ delete from public.events where community_id = %L and kind = 30078 and d_tag is distinct from 'read-state:general' $$, :'c'),
  'kind 30078 rows outside the read-state namespace are not guarded');

select lives_ok(format($$
  do $do$ begin
    perform set_config('community_deletion.read_state_hard_delete', 'on', true);
    delete from public.events where community_id = %L and kind = 30078;
  end $do$ $$, :'c'), 'with the transaction-local opt-in the read-state row is deleted');

select is((select count(*)::int from public.events where community_id = :'c' and kind = 30078), 0,
  'the read-state row is gone');

select * from finish();
rollback;
