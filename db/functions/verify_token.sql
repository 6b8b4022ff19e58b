-- Executor API: raises stale_lease (DL4L1) unless (owner, generation) is the
-- current live lease of the request at p_stage with a bound approval; once the
-- request carries a fence generation, also that its community is fenced (or
-- tombstoned) at exactly that generation. Drivers call it before every
-- irreversible external effect.
create or replace function public.deletion_verify_token(
  p_request_id uuid, p_owner text, p_generation bigint, p_stage text)
  returns void
  language plpgsql
  stable
  security definer
  set search_path = ''
as $$
declare
  v_request public.community_deletion_requests;
begin
  v_request := public._deletion_verify_lease(p_request_id, p_owner, p_generation, p_stage);
  if v_request.fence_generation is not null then
    perform public._deletion_verify_lease_and_fence(
      p_request_id, p_owner, p_generation, p_stage, v_request.fence_generation);
  end if;
end;
$$;
