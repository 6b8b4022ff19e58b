-- Observability of the hot serving-lease table: {"active": live leases,
-- "expired": rows awaiting the reaper, "dead_tuples": PostgreSQL's estimate}.
create or replace function community_deletion.serving_lease_stats()
  returns jsonb
  language sql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
  select pg_catalog.jsonb_build_object(
    'active', count(*) filter (where l.lease_until >= now()),
    'expired', count(*) filter (where l.lease_until < now()),
    'dead_tuples', coalesce((select s.n_dead_tup from pg_catalog.pg_stat_user_tables s
                              where s.relid = 'community_deletion.serving_write_leases'::pg_catalog.regclass), 0))
  from community_deletion.serving_write_leases l
$$;
