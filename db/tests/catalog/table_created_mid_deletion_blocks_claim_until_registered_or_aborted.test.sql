-- Review finding (a)/(b): a migration that adds a table with community_id
-- while a deletion is in flight must not strand the tenant. The next claim
-- blocks the request durably with a reason naming the table; after the table
-- is registered (and so fenced) and the request unblocked, the deletion
-- proceeds; or the operator aborts and the community is live again.
begin;
\ir ../fixtures/fence.sql
select plan(12);

select * from tests.fx_claimed('midflight.example', 'executor-1') \gset
select community_deletion.begin_quiescing(:'request_id', 'executor-1', :generation);
select community_deletion.fence(:'request_id', 'executor-1', :generation);
select community_deletion.release(:'request_id', 'executor-1', :generation);

-- An ordinary migration ships meanwhile.
create table public.mid_flight_notes (
  community_id uuid not null references public.communities (id),
  id bigint generated always as identity,
  note text,
  constraint mid_flight_notes_pkey primary key (community_id, id));

select is((select count(*)::int from community_deletion.claim('executor-2', :'request_id')), 0,
  'the next claim grants no lease');
select is((select blocked_at is not null from community_deletion.requests where id = :'request_id'), true,
  'the request is blocked durably');
select ok((select blocked_reason like '%mid_flight_notes%' from community_deletion.requests where id = :'request_id'),
  'the block reason names the unknown table');
select is((select status from community_deletion.checkpoints
            where request_id = :'request_id' and unit_key = 'claim:catalog_validation'), 'failed',
  'a failed claim:catalog_validation checkpoint explains it');
select is((select (stage, fence_generation)::text from community_deletion.requests where id = :'request_id'),
  '(fenced,1)', 'stage and fence generation are kept');
select is((select deletion_state from public.communities where id = :'community_id'), 'fenced',
  'the tenant stays fenced meanwhile (no write escapes through the new table either way)');

savepoint before_remedy;
-- Remedy 1: register (and thereby fence) the table, unblock, resume.
select community_deletion.register_scoped_table('public.mid_flight_notes', 5);
select throws_ok(format($$ insert into public.mid_flight_notes (community_id, note) values (%L, 'x') $$, :'community_id'),
  '55000', null, 'the registered table is fenced for the tenant');
select community_deletion.unblock(:'request_id', 'carol', 'registered mid_flight_notes');
select is((select (stage, fence_generation)::text from community_deletion.claim('executor-2', :'request_id')),
  '(fenced,1)', 'after registration and unblock the deletion is claimed again at fenced, same fence generation');
rollback to savepoint before_remedy;

-- Remedy 2: abort; the tenant is live again.
select is((select stage from community_deletion.abort(:'request_id', 'carol', 'migration landed mid-deletion')), 'aborted',
  'the operator aborts the blocked fenced request');
select is((select (deletion_state, deletion_fence_generation)::text from public.communities where id = :'community_id'),
  '(active,2)', 'the community is active again at a bumped fence generation');
set local role community_deletion_app;
select lives_ok(format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'back') $$, :'community_id'),
  'the application writes the rescued community again');
reset role;
select throws_ok(format($$ select community_deletion.verify_token(%L, 'executor-1', %s, 'fenced') $$, :'request_id', :generation),
  'DL4L1', null, 'the old executor token is dead');

select * from finish();
rollback;
