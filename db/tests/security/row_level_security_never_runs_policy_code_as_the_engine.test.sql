-- A row-level security policy's expressions run as the role whose statement
-- reads the table. On a managed server community_deletion_owner has no
-- BYPASSRLS, so whoever owns public.communities (the application's owner)
-- could enable row-level security there with a policy calling a function of
-- theirs, and that function would run as the engine owner inside every
-- engine function reading communities (plan, the serving leases, quiescing,
-- the provenance guard...). Two rules:
--   * every SECURITY DEFINER engine function sets row_security off: a
--     statement that row-level security would affect fails (42501) before any
--     policy expression runs, instead of running the policy;
--   * _invoker_code_problems reports row-level security that applies to the
--     engine owner, so validate_catalog names public.communities (DL7C1) and
--     _refuse_invoker_code refuses the tombstone under its lock.
-- Also here: a column's domain based on another domain is followed to the
-- constraint that calls an owner's function. Everything is rolled back.
begin;
\ir ../fixtures/destruction.sql
select plan(14);

select 'cd_rls_owner_' || substr(md5(current_database()), 1, 10) as owner_role \gset
create role :"owner_role" nologin;
grant create on schema public to :"owner_role";

select tests.seed_community('rls-victim.example', 2) as victim \gset
select tests.seed_community('rls-bystander.example', 2) as bystander \gset
select request_id, owner, generation, fence_generation from tests.dx_fence('rls-victim.example') \gset

create function pg_temp.err(p_sql text) returns text language plpgsql as $$
begin
  execute p_sql;
  return 'no error';
exception when others then
  return sqlstate || ': ' || sqlerrm;
end $$;

-- The owner's policy function counts its calls in a sequence (nextval is
-- not undone by the rollback of the statement that failed).
set local role :"owner_role";
create sequence public.policy_calls;
grant usage on sequence public.policy_calls to public;
create function public.policy_probe(uuid) returns boolean language plpgsql volatile as $$
begin
  perform nextval('public.policy_calls');
  return true;
end $$;
reset role;
create function pg_temp.policy_ran() returns boolean language sql as $$
  select is_called from public.policy_calls
$$;

-- A managed server's engine owner: no BYPASSRLS. Row-level security on
-- communities, a policy calling the owner's function.
alter role community_deletion_owner nobypassrls;
alter table public.communities enable row level security;
create policy communities_probe on public.communities using (public.policy_probe(id));
alter function public.policy_probe(uuid) owner to :"owner_role";

select is(community_deletion._invoker_code_problems('public.communities', 'update'),
  array['row-level security applies to community_deletion_owner (it has no BYPASSRLS and does not own the table)'],
  'row-level security on public.communities that applies to the engine owner is reported');
select matches(pg_temp.err('select community_deletion.validate_catalog()'),
  '^DL7C1: .*public\.communities: row-level security applies to community_deletion_owner',
  'validate_catalog refuses it (DL7C1), naming public.communities');

select matches(pg_temp.err($$ select community_deletion.plan('rls-bystander.example') $$),
  '^42501: query would be affected by row-level security policy for table "communities"',
  'plan (an operator read) fails with 42501 instead of running the policy');
select matches(pg_temp.err(format('select community_deletion.acquire_serving_lease(%L, %L, %L)', :'bystander', 'upload', 'web-1')),
  '^42501: ', 'acquire_serving_lease (the serving path) fails the same way');
select matches(pg_temp.err(format('select community_deletion.inspect(%L)', :'request_id')),
  '^42501: ', 'and so does inspect');
select matches(pg_temp.err(format($$ insert into public.product_feedback (community_id, body) values (%L, 'thanks') $$, :'bystander')),
  '^42501: ', 'a provenance write: the guard reads communities as the engine owner, so it fails closed too');
select matches(pg_temp.err(format('select community_deletion._tombstone_community(%L, %s)', :'victim', :fence_generation)),
  '^DL7C1: .*public\.communities.*row-level security applies to community_deletion_owner',
  'the tombstone is refused under its lock (DL7C1)');
select is(pg_temp.policy_ran(), false, 'the owner''s policy function never ran');
select is((select deletion_state from public.communities where id = :'victim'), 'fenced', 'the victim is still fenced');

-- With BYPASSRLS (a superuser's install) no policy applies to the engine owner.
alter role community_deletion_owner bypassrls;
select is(community_deletion._invoker_code_problems('public.communities', 'update'), '{}'::text[],
  'with BYPASSRLS nothing is reported');
select is((community_deletion.plan('rls-bystander.example') ->> 'host'), 'rls-bystander.example', 'and plan reads communities');
select is(pg_temp.policy_ran(), false, 'without running the policy');
drop policy communities_probe on public.communities;
alter table public.communities disable row level security;

-- A domain based on a domain whose constraint calls the owner's function.
set local role :"owner_role";
create function public.owner_text_check(text) returns boolean language sql immutable as $$ select true $$;
create domain public.checked_text as text check (public.owner_text_check(value));
create domain public.note_text as public.checked_text;
reset role;
-- (A column of a constrained domain rewrites the table, which
-- _111_guard_table_rewrite refuses while a deletion is in flight, as here:
-- off for these statements.)
alter event trigger _111_guard_table_rewrite disable;
alter table public.product_feedback add column note public.note_text;
select matches(array_to_string(community_deletion._invoker_code_problems('public.product_feedback', 'update'), ','),
  '^constraint checked_text_check calls public\.owner_text_check\(text\)$',
  'a provenance column whose domain is based on a domain with an owner''s CHECK is reported');
alter table public.product_feedback drop column note;
alter table public.product_feedback add column notes public.checked_text[];
alter event trigger _111_guard_table_rewrite enable;
select matches(array_to_string(community_deletion._invoker_code_problems('public.product_feedback', 'update'), ','),
  '^constraint checked_text_check calls public\.owner_text_check\(text\)$',
  'so is an array of that domain');

select * from finish();
rollback;
