-- The catalog check checks each rule for every registered table in one
-- query (the set helpers, _<helper>_of) and joins the answers back to the
-- tables: with drift of every kind in several tables at once, each problem
-- is reported on its own table and on no other, in the per-table order
-- (shape, fence triggers or provenance guard, foreign-key indexes, invoker
-- code), and each set helper answers exactly as its per-table helper does
-- for every registered table.
begin;
select plan(9);

-- The DDL guard would refuse most of this drift; a superuser can disable it.
alter event trigger _110_guard_registered_tables disable;
create role cd_tests_attribution_owner nologin;

create function pg_temp.shape() returns jsonb language plpgsql as $$
begin
  perform community_deletion.validate_catalog();
  return '{}';
exception when sqlstate 'DL7C1' then
  declare v_detail text;
  begin
    get stacked diagnostics v_detail = pg_exception_detail;
    return (select coalesce(jsonb_object_agg(split_part(x, ': ', 1), substr(x, length(split_part(x, ': ', 1)) + 3)), '{}')
              from jsonb_array_elements_text(v_detail::jsonb -> 'shape') x);
  end;
end $$;

select is(pg_temp.shape(), '{}'::jsonb, 'the reference schema has no shape problem');

-- Drift in six scoped tables and two provenance tables at once.
create table public.attribution_probe (community_id uuid not null references public.communities (id), id integer);
create index attribution_probe_community_idx on public.attribution_probe (community_id);
select community_deletion.register_scoped_table('public.attribution_probe', 9999);
alter table public.attribution_probe alter column community_id drop not null;
alter table public.rate_limit_violations alter column community_id set not null;
alter table public.pubkey_allowlist disable trigger _010_community_write_fence;
drop trigger _010_community_write_fence_early on public.api_tokens;
drop index public.delivery_log_event_idx;
create function public.attribution_trigger() returns trigger language plpgsql as $$ begin return old; end $$;
alter function public.attribution_trigger() owner to cd_tests_attribution_owner;
create trigger attribution_delete before delete on public.audit_log for each row execute function public.attribution_trigger();
alter table public.community_bans add column also_community uuid references public.communities (id);
alter table public.product_feedback disable trigger _020_provenance_guard;

select is(pg_temp.shape(),
          jsonb_build_object(
            'pubkey_allowlist', '_010_community_write_fence disabled',
            'api_tokens', '_010_community_write_fence_early missing',
            'delivery_log', 'foreign key delivery_log_event_fkey (community_id, event_id) references events but no index leads with (community_id, event_id)',
            'audit_log', 'trigger attribution_delete runs public.attribution_trigger()',
            'community_bans', 'the columns holding a community are also_community, community_id, registered: community_id',
            'product_feedback', '_020_provenance_guard does not fire for ordinary sessions',
            'attribution_probe', 'community_id is not uuid not null',
            'rate_limit_violations', 'community_id is NOT NULL (the purge nulls it)'),
          'each problem is reported on its own table, and no table without one is named');

-- Several problems on one table keep the per-table order: shape, fence
-- triggers, foreign-key indexes, invoker code.
create trigger attribution_delete before delete on public.delivery_log for each row execute function public.attribution_trigger();
alter table public.delivery_log disable trigger _010_community_write_fence_delete;
select is(pg_temp.shape() ->> 'delivery_log',
          '_010_community_write_fence_delete disabled, '
          'foreign key delivery_log_event_fkey (community_id, event_id) references events but no index leads with (community_id, event_id), '
          'trigger attribution_delete runs public.attribution_trigger()',
          'problems of one table come in the per-table order');

-- The set helpers answer as the per-table helpers do, table by table.
create temp table reg as
  select community_deletion._registered_relation(r.schema_name, r.table_name) as rel, r.kind, r.community_column
    from community_deletion.registered_tables r
   where r.kind in ('scoped', 'provenance');

select is((select count(*) from reg r
            left join community_deletion._fence_trigger_problems_of(array(select rel from reg where kind = 'scoped')) s on s.rel = r.rel
           where r.kind = 'scoped' and s.problems is distinct from community_deletion._fence_trigger_problems(r.rel)),
          0::bigint, '_fence_trigger_problems_of = _fence_trigger_problems for every scoped table');
select is((select count(*) from reg r
            left join community_deletion._foreign_key_index_problems_of(array(select rel from reg)) s on s.rel = r.rel
           where coalesce(s.problems, '{}') is distinct from community_deletion._foreign_key_index_problems(r.rel)),
          0::bigint, '_foreign_key_index_problems_of = _foreign_key_index_problems for every table');
select is((select count(*) from reg r
            left join community_deletion._invoker_code_problems_of(array(select rel from reg where kind = 'scoped'), 'delete') s on s.rel = r.rel
           where r.kind = 'scoped' and coalesce(s.problems, '{}') is distinct from community_deletion._invoker_code_problems(r.rel, 'delete')),
          0::bigint, '_invoker_code_problems_of = _invoker_code_problems for every scoped table (delete)');
select is((select count(*) from reg r
            left join community_deletion._community_columns_of(array(select rel from reg)) s on s.rel = r.rel
           where s.columns is distinct from community_deletion._community_columns(r.rel)),
          0::bigint, '_community_columns_of = _community_columns for every table');
select is((select count(*) from reg r
            left join community_deletion._has_leading_index_of(array(select rel from reg), array(select community_column from reg)) s
              on s.rel = r.rel and s.column_name = r.community_column
           where s.has_index is distinct from community_deletion._has_leading_index(r.rel, r.community_column)),
          0::bigint, '_has_leading_index_of = _has_leading_index for every table');

-- A table no longer registered is not reported on (stale answers are not
-- attributed to whatever table comes next).
delete from community_deletion.registered_tables where table_name = 'pubkey_allowlist';
select ok(not (pg_temp.shape() ? 'pubkey_allowlist') and pg_temp.shape() ? 'api_tokens',
          'a table dropped from the registry has no shape entry; the others keep theirs');

select * from finish();
rollback;
