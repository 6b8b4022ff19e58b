-- Executor API: raises stale_lease (DL4L1) unless (owner, generation) is the
-- current live lease of the request at stage with a bound approval; once the
-- request carries a fence generation, also that its community is fenced (or
-- tombstoned) at exactly that generation. Drivers call it before every
-- irreversible external effect.
create or replace function community_deletion.verify_token(
  request_id uuid, executor_id text, lease_generation bigint, stage text)
  returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_stage alias for $4;
  v_request community_deletion.requests;
begin
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, p_stage);
  if v_request.fence_generation is not null then
    perform community_deletion._verify_lease_and_fence(
      p_request_id, p_owner, p_generation, p_stage, v_request.fence_generation);
  end if;
end;
$$;
