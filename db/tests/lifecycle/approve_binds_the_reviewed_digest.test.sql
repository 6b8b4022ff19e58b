-- approve(digest => …) binds what the approver reviewed: the frozen
-- inventory's digest must start with it (at least 8 hex digits,
-- case-insensitive), else digest_mismatch (DL3A2) and nothing is approved; a
-- malformed digest is invalid_argument (DL1I1); without it nothing is checked.
begin;
select plan(10);
\ir ../fixtures/lifecycle.sql

create or replace function tests.approve_digest(p_request uuid, p_digest text)
  returns text language plpgsql volatile
as $$
declare
  v_stage text;
begin
  set session authorization cd_test_approver;
  select r.stage into v_stage from community_deletion.approve(request_id => p_request, approved_by => 'bob', digest => p_digest) r;
  reset session authorization;
  return v_stage;
end;
$$;

select tests.lc_inventoried('digest.example') as rid \gset
select inventory_digest as digest from community_deletion.requests where id = :'rid' \gset
select left(:'digest', 8) as d8, left(:'digest', 7) as d7,
       (case when left(:'digest', 1) = '0' then '1' else '0' end) || substr(:'digest', 2, 11) as wrong \gset

select throws_ok(format($$ select tests.approve_digest(%L, %L) $$, :'rid', :'wrong'), 'DL3A2', null,
  'a digest prefix that is not the frozen inventory''s is refused');
select throws_matching(format($$ select tests.approve_digest(%L, %L) $$, :'rid', :'wrong'), :'digest',
  'the refusal names the frozen digest');
select throws_ok(format($$ select tests.approve_digest(%L, %L) $$, :'rid', :'d7'), 'DL1I1', null,
  'fewer than 8 hex digits are refused');
select throws_ok(format($$ select tests.approve_digest(%L, %L) $$, :'rid', 'zzzzzzzzzz'), 'DL1I1', null,
  'a digest that is not hex is refused');
select throws_ok(format($$ select tests.approve_digest(%L, %L) $$, :'rid', :'digest' || '00'), 'DL1I1', null,
  'more than 64 hex digits are refused');
select is((select stage from community_deletion.requests where id = :'rid'), 'inventoried', 'nothing was approved');
select is(tests.approve_digest(:'rid', upper(:'d8')), 'approved', 'the first 8 hex digits, in any case, approve');
select is((select inventory_digest from community_deletion.approvals where request_id = :'rid'), :'digest',
  'the approval is bound to the full digest');

select tests.lc_inventoried('digest-full.example') as rid2 \gset
select is(tests.approve_digest(:'rid2', (select inventory_digest from community_deletion.requests where id = :'rid2')), 'approved',
  'the full digest approves');
select tests.lc_inventoried('digest-none.example') as rid3 \gset
select is(tests.approve_digest(:'rid3', null), 'approved', 'without a digest nothing is checked (as before)');

select * from finish();
rollback;
