-- Raises community_write_fenced (55000, message "community write …") unless
-- community_write_allowed(community_id). Application code calls it at the start
-- of a write transaction to fail before doing work; the write-fence trigger
-- enforces the same decision on every row anyway.
create or replace function community_deletion.assert_community_write_allowed(community_id uuid)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_community alias for $1;
  v_state text;
  v_generation bigint;
begin
  if community_deletion.community_write_allowed(p_community) then
    return;
  end if;
  select c.deletion_state, c.deletion_fence_generation into v_state, v_generation
    from public.communities c where c.id = p_community;
  raise exception 'community write refused: community % is %', p_community,
    case when v_state is null then 'missing'
         else format('%s (fence generation %s)', v_state, v_generation) end
    using errcode = '55000',
          hint = case when v_state = 'quiescing'
                      then 'The community is being deleted; only writes under an admitted serving-write lease (community_deletion.guard_serving_write) may finish.'
                      else 'The community is being deleted or does not exist; writes are not accepted.' end;
end;
$$;
