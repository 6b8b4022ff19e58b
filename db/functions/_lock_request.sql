-- Locks the request row FOR NO KEY UPDATE until the end of the transaction
-- (DL1N1 when there is none). Executor steps call it before they verify the
-- lease, so a verification stays true until they commit: a concurrent claim
-- (FOR UPDATE SKIP LOCKED) skips the row instead of taking the request over
-- between the check and the effect, and a claim that committed first fails
-- the verification (DL4L1). Lock order: after the community advisory lock,
-- if the step takes one (docs/design.md#ordering). Found by the protocol
-- model (model/README.md, F1): a stamp that verified with a plain read could
-- commit after a successor claimed the request.
create or replace function community_deletion._lock_request(p_request_id uuid)
  returns void
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  perform 1 from community_deletion.requests r where r.id = p_request_id for no key update;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
end;
$$;
