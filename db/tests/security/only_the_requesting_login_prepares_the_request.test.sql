-- The approver must not produce what they approve: only the database login
-- that submitted a request continues it — `submit` resuming the submitted
-- request, `freeze_inventory` — and any other login is refused
-- (not_the_requester, DL3A3), whatever name it types, changing nothing. So
-- the inventory an approver reviews was frozen by the requester's login
-- (docs/security.md#two-person-rule).
\ir ../fixtures/lifecycle.sql
begin;
select plan(9);

-- p_sql run as the second test login (cd_test_approver); the enclosing
-- savepoint's rollback restores the session's login on an error.
create function pg_temp.as_approver(p_sql text) returns void language plpgsql as $$
begin
  set session authorization cd_test_approver;
  execute p_sql;
  reset session authorization;
end;
$$;

select tests.seed_community('prepare.example', 1) as cid \gset
select tests.lc_storage_summary(:'cid') as summary \gset
select r.id as rid from community_deletion.submit('prepare.example', 'alice', 'x') r \gset

select throws_ok(format($$ select pg_temp.as_approver(%L) $$,
                        $q$ select community_deletion.submit('prepare.example', 'alice', 'x') $q$),
  'DL3A3', format('deletion request %s was submitted by the database login %s; the login cd_test_approver cannot continue it, whatever name it types',
                  :'rid', session_user),
  'another login typing the requester''s name cannot resume the submitted request');
select throws_ok(format($$ select pg_temp.as_approver(%L) $$,
                        format($q$ select community_deletion.freeze_inventory(%L, %L, %s) $q$, :'rid', :'summary', quote_literal('{"s3_endpoint": "http://127.0.0.1:5055", "s3_bucket": "cd-tests", "redis_server": "127.0.0.1:6379"}'))),
  'DL3A3', format('deletion request %s was submitted by the database login %s; the login cd_test_approver cannot freeze its inventory',
                  :'rid', session_user),
  'another login cannot freeze the requester''s inventory');
select throws_ok(format($$ select pg_temp.as_approver(%L) $$,
                        $q$ select community_deletion.submit('prepare.example', 'bob', 'x') $q$),
  'DL2C2', null, 'another login under another name is refused as before: the community has an open request');
select is((select (stage, inventory_digest is null, requested_login)::text from community_deletion.requests where id = :'rid'),
  format('(submitted,t,%s)', session_user),
  'the refusals changed nothing: still submitted, no inventory, the requester''s login');

-- The requester's login continues it, and a second login approves.
select is((select r.id from community_deletion.submit('prepare.example', 'ALICE', 'x') r), :'rid'::uuid,
  'the requesting login resuming gets its request back');
select lives_ok(format($$ select community_deletion.freeze_inventory(%L, %L, tests.store_identity()) $$, :'rid', :'summary'),
  'the requesting login freezes the inventory');
select throws_ok(format($$ select pg_temp.as_approver(%L) $$,
                        format($q$ select community_deletion.freeze_inventory(%L, %L, %s) $q$, :'rid', :'summary', quote_literal('{"s3_endpoint": "http://127.0.0.1:5055", "s3_bucket": "cd-tests", "redis_server": "127.0.0.1:6379"}'))),
  'DL2S1', null, 'a frozen inventory is not frozen again, from any login');
select lives_ok(format($$ select tests.approve(%L, 'bob') $$, :'rid'), 'a second login approves what the requester froze');
select is((select stage from community_deletion.requests where id = :'rid'), 'approved', 'the request is approved');

select * from finish();
rollback;
