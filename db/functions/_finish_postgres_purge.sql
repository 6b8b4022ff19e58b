-- The last step of the PostgreSQL purge (finish_postgres_purge, and
-- purge_postgres after its single batch), inside the caller's transaction
-- after the same locks and verification as a batch: refuses while any purge
-- unit is not completed (purge_pending, DL6P1, retryable: run the batches
-- first); tombstones the community only if it is still fenced at exactly
-- p_fence_generation (DL4L1 otherwise); then proves, in the same transaction,
-- that no registered scoped or provenance table holds a row of it
-- (_prove_postgres_absence, DL9A1 naming the table) — so the tombstone
-- commits only when everything is gone; advances bindings_removed →
-- postgres_purged with a postgres_tombstone_committed checkpoint carrying the
-- totals. The transaction that tombstones waits for its WAL flush: a
-- synchronous_commit of off (purge_postgres_batch sets it for its own
-- transaction; a caller may run batches and this step in one transaction,
-- or a session may commit asynchronously) is raised to on for this
-- transaction only; any other value (local, remote_write, remote_apply) is
-- kept. Returns {"deleted": {table: rows}, "provenance_cleared": {table: rows}}.
create or replace function community_deletion._finish_postgres_purge(
  p_request community_deletion.requests, p_owner text, p_generation bigint, p_fence_generation bigint)
  returns jsonb
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_totals jsonb := community_deletion._purge_totals(p_request.id, 'bindings_removed');
  v_result jsonb;
begin
  if current_setting('synchronous_commit') = 'off' then
    perform set_config('synchronous_commit', 'on', true);
  end if;
  if jsonb_array_length(v_totals -> 'pending') > 0 then
    raise exception 'request %: the PostgreSQL purge is not finished; still to purge: %', p_request.id,
      (select string_agg(u, ', ') from jsonb_array_elements_text(v_totals -> 'pending') u)
      using errcode = 'DL6P1',
            hint = 'Run community_deletion.purge_postgres_batch until it returns "done": true.';
  end if;
  if not community_deletion._tombstone_community(p_request.community_id, p_fence_generation) then
    raise exception 'request %: community % is no longer fenced at generation %; nothing was tombstoned',
      p_request.id, p_request.community_id, p_fence_generation
      using errcode = 'DL4L1';
  end if;
  perform community_deletion._prove_postgres_absence(p_request.id, p_request.community_id, p_fence_generation);
  v_result := jsonb_build_object('deleted', v_totals -> 'deleted', 'provenance_cleared', v_totals -> 'provenance_cleared');
  perform community_deletion._advance(p_request.id, p_owner, p_generation, 'bindings_removed', 'postgres_purged', p_fence_generation);
  perform community_deletion._checkpoint(p_request.id, 'bindings_removed', 'postgres_tombstone_committed', 'completed',
    p_generation, v_result || jsonb_build_object('fence_generation', p_fence_generation));
  return v_result;
end;
$$;
