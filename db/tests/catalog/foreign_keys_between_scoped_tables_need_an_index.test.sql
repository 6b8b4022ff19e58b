-- The catalog check requires, for every foreign key of a registered table
-- that references a registered scoped table, a valid non-partial index whose
-- leading columns are exactly the key's referencing columns (in any order):
-- the purge deletes parents after their children, and each deleted parent
-- row looks up its referencing rows through that index — without it the
-- purge is quadratic. The refusal (DL7C1) names the key, its columns and the
-- index it needs.
begin;
select plan(7);

create function pg_temp.error_of(p_sql text) returns text language plpgsql as $$
begin
  execute p_sql;
  return null;
exception when others then
  return sqlstate || ' ' || sqlerrm;
end;
$$;

select lives_ok($$ select community_deletion.validate_catalog() $$, 'the reference schema has an index for every such key');

savepoint s;
drop index public.delivery_log_event_idx;
select alike(pg_temp.error_of('select community_deletion.validate_catalog()'),
  'DL7C1 %delivery_log: foreign key delivery_log_event_fkey (community_id, event_id) references events but no index leads with (community_id, event_id)%',
  'a foreign key without its index is drift, named with the index it needs');
create index delivery_log_event_reversed_idx on public.delivery_log (event_id, community_id);
select lives_ok($$ select community_deletion.validate_catalog() $$, 'an index on the same columns in another order covers it');
rollback to savepoint s;

savepoint s;
drop index public.delivery_log_event_idx;
create index delivery_log_event_partial_idx on public.delivery_log (community_id, event_id) where event_id is not null;
select alike(pg_temp.error_of('select community_deletion.validate_catalog()'), 'DL7C1 %delivery_log_event_fkey%',
  'a partial index does not cover it');
rollback to savepoint s;

savepoint s;
drop index public.delivery_log_event_idx;
create index delivery_log_event_wide_idx on public.delivery_log (community_id, id, event_id);
select alike(pg_temp.error_of('select community_deletion.validate_catalog()'), 'DL7C1 %delivery_log_event_fkey%',
  'an index whose leading columns are not the key''s does not cover it');
rollback to savepoint s;

savepoint s;
drop index public.delivery_log_event_idx;
create index delivery_log_event_longer_idx on public.delivery_log (community_id, event_id, id);
select lives_ok($$ select community_deletion.validate_catalog() $$, 'a longer index led by the key''s columns covers it');
rollback to savepoint s;

select lives_ok($$ select community_deletion.validate_catalog() $$, 'and the reference schema validates again');

select * from finish();
rollback;
