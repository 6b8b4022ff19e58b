-- Moves a leased request one stage forward. Callers verify the lease first and
-- do their stage's work in the same transaction; this is the final guarded
-- write. Refuses anything but the next stage (wrong_stage, DL2S1) and treats a
-- guarded UPDATE that matches no row as lost ownership (stale_lease, DL4L1).
-- A successful advance clears the retry streak (progress resets it, docs/design.md#failure-handling).
-- Entering retention_pending also completes the request and releases the lease
-- (the terminal constraints require both).
create or replace function community_deletion._advance(
  p_request_id uuid, p_owner text, p_generation bigint, p_from text, p_to text,
  p_fence_generation bigint default null)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_terminal boolean := p_to = 'retention_pending';
begin
  if p_to is null or p_to is distinct from community_deletion._next_stage(p_from) then
    raise exception 'illegal deletion transition % -> % for request %', p_from, p_to, p_request_id
      using errcode = 'DL2S1';
  end if;
  update community_deletion.requests r
     set stage = p_to,
         fence_generation = coalesce(p_fence_generation, r.fence_generation),
         retry_count = 0,
         retry_stage = null,
         last_error = null,
         last_error_at = null,
         completed_at = case when v_terminal then now() else r.completed_at end,
         lease_owner = case when v_terminal then null else r.lease_owner end,
         lease_until = case when v_terminal then null else r.lease_until end,
         updated_at = now()
   where r.id = p_request_id
     and r.stage = p_from
     and r.lease_owner = p_owner
     and r.lease_generation = p_generation
     and r.lease_until >= now()
     and r.blocked_at is null
     and exists (select 1 from community_deletion.approvals a
                  where a.request_id = r.id and a.community_id = r.community_id
                    and a.inventory_digest = r.inventory_digest);
  if not found then
    raise exception 'stale deletion lease for request % (owner %, generation %): cannot advance % -> %',
      p_request_id, p_owner, p_generation, p_from, p_to
      using errcode = 'DL4L1',
            hint = 'Ownership was lost: stop work on this request.';
  end if;
end;
$$;
