-- Read-state rows (kind 30078, d_tag read-state:…) can be hard-deleted only by
-- the engine (its owner role) with the transaction-local opt-in; the opt-in
-- alone — a setting any client can set — is not enough. Other events delete
-- normally.
begin;
select plan(7);

select tests.seed_community('read-state.example', 1) as c \gset

select throws_ok(
  format($$ delete from public.events where community_id = %L and kind = 30078 $$, :'c'),
  'DL8G1', null, 'a read-state row cannot be hard-deleted without the opt-in');

select is((select count(*)::int from public.events where community_id = :'c' and kind = 30078), 1,
  'the refused delete removed nothing');

select lives_ok(
  format($$ delete from public.events where community_id = %L and kind = 30078 and d_tag is distinct from 'read-state:general' $$, :'c'),
  'kind 30078 rows outside the read-state namespace are not guarded');

set local role community_deletion_app;
select throws_ok(format($$
  do $do$ begin
    perform set_config('community_deletion.read_state_hard_delete', 'on', true);
    delete from public.events where community_id = %L and kind = 30078;
  end $do$ $$, :'c'),
  'DL8G1', null, 'an ordinary writer that sets the opt-in is still refused');
reset role;

select throws_ok(format($$
  do $do$ begin
    set local role community_deletion_owner;
    delete from public.events where community_id = %L and kind = 30078;
  end $do$ $$, :'c'),
  'DL8G1', null, 'the engine role without the opt-in is refused');

select lives_ok(format($$
  do $do$ begin
    perform set_config('community_deletion.read_state_hard_delete', 'on', true);
    set local role community_deletion_owner;
    delete from public.events where community_id = %L and kind = 30078;
  end $do$ $$, :'c'), 'the engine role with the transaction-local opt-in deletes the read-state row');
reset role;

select is((select count(*)::int from public.events where community_id = :'c' and kind = 30078), 0,
  'the read-state row is gone');

select * from finish();
rollback;
