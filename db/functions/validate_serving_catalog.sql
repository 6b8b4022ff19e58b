-- Serving readiness (docs/design.md#catalog): the asymmetric
-- counterpart of community_deletion.validate_catalog. A serving process may start when the
-- fence machinery is present and every REGISTERED scoped table carries the write
-- fence; unknown extra tables (a migration ahead of the registry) do not stop
-- serving — they only stop destruction. Checks: the communities lifecycle
-- columns with their exact types and nullability; the tables the serving path
-- uses; the functions (lock key, write decision (volatile), assertion, fence
-- trigger function, serving-lease API); the enabled lifecycle guard on
-- communities; no missing fence. Raises catalog_drift (DL7C1) listing what is
-- missing.
create or replace function community_deletion.validate_serving_catalog()
  returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
declare
  v_problems text[] := '{}';
  v_missing text[];
  v_fenced text[] := community_deletion._live_fenced_tables();
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
    from unnest(array['public.communities', 'community_deletion.requests', 'community_deletion.serving_write_leases',
                      'community_deletion.serving_write_grants', 'community_deletion.registered_tables']) t
   where pg_catalog.to_regclass(t) is null;
  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('tables missing: %s', array_to_string(v_missing, ', '));
  end if;

  select coalesce(array_agg(f order by f), '{}') into v_missing
    from unnest(array['community_deletion._community_lock_key(uuid)',
                      'community_deletion.community_write_allowed(uuid)',
                      'community_deletion.assert_community_write_allowed(uuid)',
                      'community_deletion.tg_scoped_table__enforce_write_fence()',
                      'community_deletion.tg_communities__protect_lifecycle()',
                      'community_deletion.acquire_serving_lease(uuid,text,text,integer)',
                      'community_deletion.renew_serving_lease(uuid,text,bigint,bigint,integer)',
                      'community_deletion.verify_serving_lease(uuid,text,bigint,bigint)',
                      'community_deletion.release_serving_lease(uuid,text,bigint,bigint)',
                      'community_deletion.guard_serving_write(uuid,text,bigint,bigint)']) f
   where pg_catalog.to_regprocedure(f) is null;
  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('functions missing: %s', array_to_string(v_missing, ', '));
  elsif (select p.provolatile from pg_catalog.pg_proc p
          where p.oid = pg_catalog.to_regprocedure('community_deletion.community_write_allowed(uuid)')) <> 'v' then
    v_problems := v_problems || 'community_write_allowed(uuid) must be volatile (it takes the community lock)'::text;
  end if;

  if not exists (
    select 1 from pg_catalog.pg_trigger t
     where t.tgrelid = pg_catalog.to_regclass('public.communities') and not t.tgisinternal
       and t.tgenabled in ('O', 'A')
       and t.tgfoid = pg_catalog.to_regprocedure('community_deletion.tg_communities__protect_lifecycle()')) then
    v_problems := v_problems || 'the lifecycle/tombstone guard trigger on communities is missing or disabled'::text;
  end if;

  select coalesce(array_agg(l.label order by l.label collate "C"), '{}') into v_missing
    from community_deletion.registered_tables r
    cross join lateral (select community_deletion._table_label(r.schema_name, r.table_name) as label) l
   where r.kind = 'scoped' and l.label <> all (v_fenced);
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
