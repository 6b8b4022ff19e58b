-- Operators submit/approve/abort/unblock/inspect/list; executors claim and run
-- stages. Neither may do the other's job, nor write tables directly.
begin;
\ir ../fixtures/fence.sql
select plan(11);

select tests.seed_community('roles.example', 1) as c \gset

set local role community_deletion_operator;
select lives_ok($$ select community_deletion.submit('roles.example', 'alice', 'by operator') $$,
  'an operator submits');
select lives_ok($$ select * from community_deletion.list_requests(10) $$, 'an operator lists');
select ok((select count(*) from community_deletion.requests) = 1, 'an operator reads the control plane');
select throws_ok($$ select * from community_deletion.claim('op') $$, '42501', null, 'an operator cannot claim');
select throws_ok($$ delete from community_deletion.checkpoints $$, '42501', null,
  'an operator cannot write control-plane tables directly');
select throws_ok(format($$ update public.communities set name = 'x' where id = %L $$, :'c'), '42501', null,
  'an operator cannot write communities');
reset role;

set local role community_deletion_executor;
select lives_ok($$ select * from community_deletion.claim('exec') $$, 'an executor claims (nothing runnable here)');
select throws_ok($$ select community_deletion.submit('roles.example', 'mallory', 'by executor') $$, '42501', null,
  'an executor cannot submit');
select throws_ok($$ select tests.approve(gen_random_uuid(), 'mallory') $$, '42501', null,
  'an executor cannot approve');
select throws_ok($$ select count(*) from community_deletion.requests $$, '42501', null,
  'an executor has no direct table access');
select throws_ok(format($$ select community_deletion.acquire_serving_lease(%L, 'x', 'y') $$, :'c'), '42501', null,
  'an executor cannot acquire serving leases (application function)');
reset role;

select * from finish();
rollback;
