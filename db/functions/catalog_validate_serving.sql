-- Serving readiness (SPEC §5.5, seeds' validate_serving_catalog): the asymmetric
-- counterpart of deletion_validate_catalog. A serving process may start when the
-- fence machinery is present and every REGISTERED scoped table carries the write
-- fence; unknown extra tables (a migration ahead of the registry) do not stop
-- serving — they only stop destruction. Checks: the communities lifecycle
-- columns with their exact types and nullability; the tables the serving path
-- uses; the functions (lock key, write decision (volatile), assertion, fence
-- trigger function, serving-lease API); the enabled lifecycle guard on
-- communities; no missing fence. Raises catalog_drift (DL7C1) listing what is
-- missing.
create or replace function public.deletion_validate_serving_catalog()
  returns void
  language plpgsql
  stable
  security definer
  set search_path = ''
as $$
declare
  v_problems text[] := '{}';
  v_missing text[];
  v_fenced text[] := public._deletion_live_fenced_tables();
begin
  select coalesce(array_agg(e.col order by e.col), '{}') into v_missing
    from (values ('deleted_at', 'timestamp with time zone', false),
                 ('deletion_fence_generation', 'bigint', true),
                 ('deletion_state', 'text', true)) as e(col, typ, not_null)
   where not exists (
     select 1 from pg_catalog.pg_attribute a
      where a.attrelid = pg_catalog.to_regclass('public.communities') and a.attname = e.col
        and not a.attisdropped and pg_catalog.format_type(a.atttypid, a.atttypmod) = e.typ
        and a.attnotnull = e.not_null);
  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('communities lifecycle columns missing or incompatible: %s', array_to_string(v_missing, ', '));
  end if;

  select coalesce(array_agg(t order by t), '{}') into v_missing
    from unnest(array['communities', 'community_deletion_requests', 'community_serving_write_leases',
                      'community_deletion_serving_write_grants', 'community_deletion_tables']) t
   where pg_catalog.to_regclass(format('public.%I', t)) is null;
  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('tables missing: %s', array_to_string(v_missing, ', '));
  end if;

  select coalesce(array_agg(f order by f), '{}') into v_missing
    from unnest(array['public._deletion_community_lock_key(uuid)',
                      'public.community_write_allowed(uuid)',
                      'public.assert_community_write_allowed(uuid)',
                      'public.tg_scoped_table__enforce_write_fence()',
                      'public.tg_communities__protect_lifecycle()',
                      'public.deletion_serving_lease_acquire(uuid,text,text,integer)',
                      'public.deletion_serving_lease_renew(uuid,text,bigint,bigint,integer)',
                      'public.deletion_serving_lease_verify(uuid,text,bigint,bigint)',
                      'public.deletion_serving_lease_release(uuid,text,bigint,bigint)',
                      'public.deletion_serving_lease_guard(uuid,text,bigint,bigint)']) f
   where pg_catalog.to_regprocedure(f) is null;
  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('functions missing: %s', array_to_string(v_missing, ', '));
  elsif (select p.provolatile from pg_catalog.pg_proc p
          where p.oid = pg_catalog.to_regprocedure('public.community_write_allowed(uuid)')) <> 'v' then
    v_problems := v_problems || 'community_write_allowed(uuid) must be volatile (it takes the community lock)'::text;
  end if;

  if not exists (
    select 1 from pg_catalog.pg_trigger t
     where t.tgrelid = pg_catalog.to_regclass('public.communities') and not t.tgisinternal
       and t.tgenabled in ('O', 'A')
       and t.tgfoid = pg_catalog.to_regprocedure('public.tg_communities__protect_lifecycle()')) then
    v_problems := v_problems || 'the lifecycle/tombstone guard trigger on communities is missing or disabled'::text;
  end if;

  select coalesce(array_agg(r.table_name order by r.table_name collate "C"), '{}') into v_missing
    from public.community_deletion_tables r
   where r.kind = 'scoped' and r.table_name <> all (v_fenced);
  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('registered scoped tables without the write fence: %s', array_to_string(v_missing, ', '));
  end if;

  if cardinality(v_problems) > 0 then
    raise exception 'community serving catalog not ready: %', array_to_string(v_problems, '; ')
      using errcode = 'DL7C1',
            hint = 'Apply the engine migrations (db/migrations) before serving traffic.';
  end if;
end;
$$;
