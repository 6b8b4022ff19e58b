-- The storage summary fails closed (invalid_manifest, DL1M1) on every shape
-- error of docs/manifest-format.md, and its canonical form keeps only the
-- documented keys.
begin;
select plan(22);
\ir ../fixtures/lifecycle.sql

select tests.seed_community('shape.example', 1) as c \gset
select tests.seed_community('shape-other.example', 1) as other \gset
create temporary table good as select tests.lc_storage_summary(:'c') as s;

-- with(path, value): the good summary with one element replaced; refused(s): the call to test.
create function pg_temp.with(p_path text[], p_value jsonb) returns jsonb language sql
as $$ select jsonb_set((select s from good), p_path, p_value) $$;
create function pg_temp.refused(p_summary jsonb) returns text language sql
as $$ select format('select community_deletion._canonical_storage_summary(%L, %L::jsonb)',
                    (select id from public.communities where host = 'shape.example'), p_summary) $$;

select is(community_deletion._canonical_storage_summary(:'c', (select s from good)), (select s from good),
  'a valid summary is accepted unchanged');
select is(
  community_deletion._canonical_storage_summary(:'c', pg_temp.with('{prefixes,0,object_count}', '0.0')),
  (select s from good), 'integers are canonicalised');

select throws_ok(pg_temp.refused(null), 'DL1M1', null, 'a missing summary is refused');
select throws_ok(pg_temp.refused('[]'), 'DL1M1', null, 'a non-object summary is refused');
select throws_ok(pg_temp.refused(pg_temp.with('{version}', '2')), 'DL1M1', null, 'an unsupported version is refused');
select throws_ok(pg_temp.refused((select s - 'version' from good)), 'DL1M1', null, 'a missing version is refused');
select throws_ok(pg_temp.refused(pg_temp.with('{extra}', 'true')), 'DL1M1', null, 'an unknown top-level key is refused');
select throws_ok(pg_temp.refused(pg_temp.with('{chunk_size}', '0')), 'DL1M1', null, 'chunk_size 0 is refused');
select throws_ok(pg_temp.refused(pg_temp.with('{chunk_size}', '"10000"')), 'DL1M1', null, 'a textual chunk_size is refused');
select throws_ok(pg_temp.refused(pg_temp.with('{prefixes}', '[]')), 'DL1M1', null, 'an empty prefix list is refused');
select throws_ok(pg_temp.refused(pg_temp.with('{prefixes,0,prefix}', '""')), 'DL1M1', null,
  'an empty prefix (it would list the whole bucket) is refused');
select throws_ok(pg_temp.refused(jsonb_set((select s from good), '{prefixes}',
    jsonb_build_array((select s->'prefixes'->1 from good), (select s->'prefixes'->0 from good), (select s->'prefixes'->2 from good)))),
  'DL1M1', null, 'prefixes out of order are refused');
select throws_ok(pg_temp.refused(jsonb_set((select s from good), '{prefixes}',
    jsonb_build_array((select s->'prefixes'->0 from good), (select s->'prefixes'->0 from good),
                      (select s->'prefixes'->1 from good), (select s->'prefixes'->2 from good)))),
  'DL1M1', null, 'a duplicated prefix (not strictly sorted) is refused');
select throws_ok(pg_temp.refused(jsonb_set((select s from good), '{prefixes}',
    (select s->'prefixes' from good) - 2)), 'DL1M1', null, 'a missing owned prefix is refused');
select throws_ok(pg_temp.refused(pg_temp.with('{prefixes,0,prefix}', to_jsonb('_meta/' || :'other' || '/'))),
  'DL1M1', null, 'another community''s prefix is refused');
select throws_ok(pg_temp.refused(pg_temp.with('{prefixes,2,prefix}', to_jsonb('repos/' || :'c' || '/x/'))),
  'DL1M1', null, 'a prefix that is not an owned prefix is refused');
select throws_ok(pg_temp.refused(pg_temp.with('{prefixes,0,keys_digest}', to_jsonb(upper(encode(sha256(''::bytea), 'hex'))))),
  'DL1M1', null, 'an uppercase digest is refused');
select throws_ok(pg_temp.refused(pg_temp.with('{prefixes,0,keys_digest}', '"abc"')), 'DL1M1', null, 'a short digest is refused');
select throws_ok(pg_temp.refused(pg_temp.with('{prefixes,0,object_count}', '-1')), 'DL1M1', null, 'a negative count is refused');
select throws_ok(pg_temp.refused(pg_temp.with('{prefixes,0,total_bytes}', '1.5')), 'DL1M1', null, 'fractional bytes are refused');
select throws_ok(pg_temp.refused(pg_temp.with('{prefixes,0,owner}', '"me"')), 'DL1M1', null, 'an unknown prefix key is refused');
select throws_ok(pg_temp.refused(pg_temp.with('{prefixes,0,total_bytes}', '5')), 'DL1M1', null,
  'an empty prefix claiming bytes is refused');

select * from finish();
rollback;
