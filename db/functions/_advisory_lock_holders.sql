-- Who holds the advisory lock p_key right now, for an explanation: "pid 123
-- (role mallory, application psql)" per holder, or 'nobody' (the holder
-- finished in the meantime). Reads pg_locks and pg_stat_activity, which show
-- every session's pid, role and application name.
create or replace function community_deletion._advisory_lock_holders(p_key bigint)
  returns text
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select coalesce(pg_catalog.string_agg(
           pg_catalog.format('pid %s (role %s, application %s)', l.pid, coalesce(a.usename::text, '?'),
                             coalesce(nullif(a.application_name, ''), '?')), ', ' order by l.pid), 'nobody')
    from pg_catalog.pg_locks l
    left join pg_catalog.pg_stat_activity a on a.pid = l.pid
   where l.locktype = 'advisory' and l.granted and l.objsubid = 1
     and l.classid::bigint = ((p_key >> 32) & 4294967295)
     and l.objid::bigint = (p_key & 4294967295)
     and l.pid <> pg_catalog.pg_backend_pid()
$$;
