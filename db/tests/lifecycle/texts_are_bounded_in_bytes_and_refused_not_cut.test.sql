-- Stored texts are bounded in UTF-8 bytes: an executor's error of 4,096
-- multibyte characters is stored cut to at most 4,096 bytes on a character
-- boundary; an operator's reason or note over 4,096 bytes is refused with
-- the limit named (never cut silently), and so are control characters in
-- it (tabs and line breaks are allowed).
begin;
\ir ../fixtures/fence.sql
select plan(8);

select * from tests.fx_claimed('bytes.example', 'executor-1') \gset
select community_deletion.record_failure(:'request_id', 'executor-1', :generation, 'approved', 'probe', repeat('ü', 4096)) \g /dev/null
select cmp_ok((select octet_length(error) from community_deletion.checkpoints where request_id = :'request_id' and unit_key = 'probe'),
  '<=', 4096, 'a 4,096-character error of 2-byte characters is stored within 4,096 bytes');
select is((select error from community_deletion.checkpoints where request_id = :'request_id' and unit_key = 'probe'),
  repeat('ü', 2048), 'cut on a character boundary');
select cmp_ok((select octet_length(last_error) from community_deletion.requests where id = :'request_id'),
  '<=', 4096, 'the request''s last error too');

select tests.lc_inventoried('reason-limits.example') as rid \gset
select throws_like(format($$ select community_deletion.abort(%L, 'carol', %L) $$, :'rid', repeat('ü', 2049)),
  '%reason is longer than 4096 bytes%', 'a reason over 4,096 bytes is refused with the limit named');
select throws_ok(format($$ select tests.approve(%L, 'bob', %L) $$, :'rid', repeat('x', 4097)), 'DL1I1', null,
  'so is a note over 4,096 bytes');
select throws_ok(format($$ select community_deletion.abort(%L, 'carol', E'\u001b[2Jgone') $$, :'rid'), 'DL1I1', null,
  'a reason with an escape sequence is refused');
select lives_ok(format($$ select tests.approve(%L, 'bob', E'checked:\n\t* rows\n\t* objects') $$, :'rid'),
  'tabs and line breaks are fine in a note');
select is((select note from community_deletion.approvals where request_id = :'rid'), E'checked:\n\t* rows\n\t* objects',
  'and kept exactly');

select * from finish();
rollback;
