-- bindings_removed → postgres_purged (executor API): the PostgreSQL purge.
--
-- One transaction:
--   1. the shared schema-destruction lock (migrations hold it exclusively for
--      their whole run, so none can commit a new scoped table before this
--      transaction ends) and the exact catalog re-validated inside it;
--   2. lease owner + generation + fence generation verified;
--   3. provenance-only tables: community_id set to NULL (rows kept);
--   4. every registered scoped table: DELETE … WHERE community_id = target, in
--      registry purge order (child before parent), one checkpoint per table
--      with its row count; read-state rows go through the sanctioned opt-in
--      (community_deletion.read_state_hard_delete, transaction-local, reset
--      before returning);
--   5. the community tombstoned, only if still fenced at the same generation;
--   6. advance, with a postgres_tombstone_committed checkpoint.
-- Returns {"deleted": {table: rows}, "provenance_cleared": {table: rows}}.
-- A replay with the same token finds the request at postgres_purged: DL4L1.
--
-- Why one transaction, and what a 10-million-row tenant costs. The single
-- transaction makes "rows gone" and "tombstone present" one atomic fact: no
-- reader ever sees a half-purged community that is not yet a tombstone, a
-- crash leaves everything exactly as before, and the checkpoints are evidence
-- rather than resume points. The price for a very large tenant is one long
-- transaction: WAL volume proportional to the rows (unavoidable either way),
-- row locks on every deleted row until commit (harmless: the fence already
-- rejects every write to them), the shared schema-destruction lock held for
-- the duration (migrations wait; they must not be running against this
-- tenant's tables anyway) and dead tuples that vacuum reclaims only after
-- commit; the executor keeps heartbeating from its other connection because
-- this transaction takes no lock on the request row until the final advance.
-- Every DELETE uses the community_id-leading index the catalog check demands,
-- so the cost is proportional to the tenant, never the fleet.
--
-- A batched variant (if lock duration or replication lag ever matters) stays
-- safe because of the fence, not because of the transaction: the community is
-- fenced, so no writer can add rows between batches; each batch would run as
-- its own transaction with steps 1–2 (lock, catalog, lease + fence
-- generation), delete at most N rows of the current table in purge order and
-- upsert that table's checkpoint with a running total, so a successor resumes
-- from the checkpoints; step 5 (tombstone) and step 6 (advance) would commit
-- in the same transaction as the last batch, after a final check that every
-- registered table is empty for the target. A crash between batches leaves a
-- fenced, partially purged community that only a later batch can touch (abort
-- is refused from drained onwards). That variant is not built: the single
-- transaction is simpler and correct, and the fence makes batching a pure
-- operational change.
create or replace function community_deletion.purge_postgres(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint)
  returns jsonb
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  v_request community_deletion.requests;
  v_table record;
  v_rows bigint;
  v_deleted jsonb := '{}'::jsonb;
  v_cleared jsonb := '{}'::jsonb;
begin
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'bindings_removed', p_fence_generation);

  for v_table in
    select community_deletion._table_label(t.schema_name, t.table_name) as label, t.schema_name, t.table_name, t.community_column
      from community_deletion.registered_tables t where t.kind = 'provenance' order by 1
  loop
    execute format('update %I.%I set %I = null where %I = $1', v_table.schema_name, v_table.table_name,
                   v_table.community_column, v_table.community_column)
      using v_request.community_id;
    get diagnostics v_rows = row_count;
    v_cleared := v_cleared || jsonb_build_object(v_table.label, v_rows);
    perform community_deletion._checkpoint(p_request_id, 'bindings_removed', 'clear_provenance:' || v_table.label,
      'completed', p_generation, jsonb_build_object('rows', v_rows));
  end loop;

  perform set_config('community_deletion.read_state_hard_delete', 'on', true);
  for v_table in
    select community_deletion._table_label(t.schema_name, t.table_name) as label, t.schema_name, t.table_name
      from community_deletion.registered_tables t where t.kind = 'scoped' order by t.purge_order
  loop
    execute format('delete from %I.%I where community_id = $1', v_table.schema_name, v_table.table_name)
      using v_request.community_id;
    get diagnostics v_rows = row_count;
    v_deleted := v_deleted || jsonb_build_object(v_table.label, v_rows);
    perform community_deletion._checkpoint(p_request_id, 'bindings_removed', 'purge:' || v_table.label,
      'completed', p_generation, jsonb_build_object('rows', v_rows));
  end loop;
  perform set_config('community_deletion.read_state_hard_delete', 'off', true);

  if not community_deletion._tombstone_community(v_request.community_id, p_fence_generation) then
    raise exception 'request %: community % is no longer fenced at generation %; nothing was purged',
      p_request_id, v_request.community_id, p_fence_generation
      using errcode = 'DL4L1';
  end if;

  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'bindings_removed', 'postgres_purged', p_fence_generation);
  perform community_deletion._checkpoint(p_request_id, 'bindings_removed', 'postgres_tombstone_committed', 'completed',
    p_generation, jsonb_build_object('deleted', v_deleted, 'provenance_cleared', v_cleared,
                                     'fence_generation', p_fence_generation));
  return jsonb_build_object('deleted', v_deleted, 'provenance_cleared', v_cleared);
end;
$$;
