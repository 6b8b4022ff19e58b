-- Operator API: the queue at a glance, computed in one query over every
-- request (never a capped list): one row per state (_request_state) with the
-- number of requests, the oldest one's creation time, and whether that state
-- needs an operator (blocked; waiting_for_approval; waiting_for_inventory,
-- i.e. submitted and never frozen). States with no request are left out.
create or replace function community_deletion.queue_status()
  returns table (state text, requests bigint, oldest_created_at timestamptz, needs_operator boolean)
  language sql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
  select s.state, count(*) as requests, min(r.created_at) as oldest_created_at,
         s.state in ('blocked', 'waiting_for_approval', 'waiting_for_inventory') as needs_operator
    from community_deletion.requests r
    left join community_deletion.approvals a on a.request_id = r.id
    cross join lateral community_deletion._request_state(r, a) s
   group by s.state
   order by s.state
$$;
