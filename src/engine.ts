// The TypeScript mirror of the SQL API (docs/sql-api.md): one typed method per
// community_deletion function, named arguments, typed results. Every SQL call
// of the driver — executor, CLI, serving library — goes through this module;
// nothing else writes SQL against the engine. It decides nothing: which stage
// comes next and whether a step may run is the SQL functions' business.
import type postgres from 'postgres';
import type { ManifestEntry, StorageSummary } from './manifest.js';
import type { StoreIdentity } from './store-identity.js';
import type { TaxonomyRow } from './taxonomy.js';

/**
 * The engine schema this driver was built for (community_deletion.schema_version()).
 * A database at another version is refused (SchemaVersionError).
 */
export const SCHEMA_VERSION = 39;

/** community_deletion.installation_report() (docs/managed.md). */
export interface InstallationReport {
  write_fence: 'native' | 'plpgsql';
  ddl_lock: 'event_trigger' | 'explicit';
  ddl_guard: 'event_trigger' | 'catalog_validation';
  rls_exemption: 'bypassrls' | 'registration_check';
  superuser_install: boolean;
  degraded: { what: string; state: string; why: string }[];
}

/** A pool or a transaction: anything postgres.js can run a tagged query on. */
export type Queryable = postgres.Sql | postgres.TransactionSql;

type Json = postgres.JSONValue;
const json = (sql: Queryable, value: unknown): postgres.Parameter =>
  // postgres.js serialises through JSON.stringify; the round trip drops
  // undefined fields and class instances exactly as the database would.
  sql.json(JSON.parse(JSON.stringify(value)) as Json);

export type Stage =
  | 'submitted' | 'inventoried' | 'approved' | 'fenced' | 'drained' | 'bindings_removed'
  | 'postgres_purged' | 'cache_purged' | 'logically_verified' | 'retention_pending' | 'aborted';

/** community_deletion.requests, as the operator functions return it. */
export interface RequestRow {
  id: string;
  community_id: string;
  community_host: string;
  stage: Stage;
  requested_by: string;
  requested_login: string | null;
  reason: string | null;
  inventory_digest: string | null;
  inventory_frozen_at: Date | null;
  schema_manifest: Json | null;
  storage_manifest: Json | null;
  destructive_storage_manifest: Json | null;
  /** The stores the inventory was taken from (canonical), or null before it is recorded. */
  store_identity: StoreIdentity | null;
  store_identity_recorded_at: Date | null;
  /** What appeared or vanished between the approved inventory and the destructive manifest (set at the fenced stage). */
  destructive_difference: InventoryDifference | null;
  fence_generation: string | null;
  lease_owner: string | null;
  lease_generation: string;
  lease_until: Date | null;
  attempts: number;
  retry_stage: string | null;
  retry_count: number;
  last_error: string | null;
  next_attempt_at: Date;
  blocked_at: Date | null;
  blocked_reason: string | null;
  aborted_by: string | null;
  abort_reason: string | null;
  aborted_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** requests.destructive_difference (community_deletion._inventory_difference). */
export interface InventoryDifference {
  changed: boolean;
  tables: { table: string; approved_rows: number; fenced_rows: number | null; appeared: number; vanished: number }[];
  prefixes: {
    prefix: string; approved_versions: number; fenced_versions: number; appeared: number; vanished: number;
    /** null: the two enumerations used different chunk sizes, digests not comparable. */
    content_changed: boolean | null;
  }[];
}

/** What inspect() returns (jsonb: timestamps as text). */
export interface Inspection {
  request: Record<string, Json> & { id: string; stage: Stage };
  community: Record<string, Json> | null;
  approval: Record<string, Json> | null;
  checkpoints: Record<string, Json>[];
  state: string;
  explanation: string;
}

export interface RequestListRow {
  request_id: string;
  community_id: string;
  community_host: string;
  stage: Stage;
  state: string;
  requested_by: string;
  approved_by: string | null;
  not_before: Date | null;
  lease_owner: string | null;
  lease_until: Date | null;
  next_attempt_at: Date;
  retry_count: number;
  blocked_reason: string | null;
  created_at: Date;
  updated_at: Date;
  explanation: string;
}

export interface QueueStatusRow {
  state: string;
  requests: number;
  oldest_created_at: Date;
  needs_operator: boolean;
}

/** community_deletion.plan(host) (jsonb). */
export interface PostgresPlan {
  community_id: string;
  host: string;
  deletion_state: string;
  archived_at: string | null;
  open_request: { id: string; stage: Stage; requested_by: string } | null;
  tables: { table: string; kind: 'scoped' | 'provenance'; action: 'delete' | 'null_community_column'; purge_order: number | null; rows: number }[];
  rows_to_delete: number;
  rows_to_unlink: number;
  excluded_tables: { table: string; reason: string }[];
}

/** The roles the migrations create (db/engine/roles.sql). */
export const ENGINE_ROLES = ['community_deletion_app', 'community_deletion_executor', 'community_deletion_operator', 'community_deletion_owner'] as const;
/** The event triggers the migrations create (db/engine/triggers.sql): the schema-destruction lock, the DDL guard and the table-rewrite guard. */
export const ENGINE_EVENT_TRIGGERS = [
  '_100_lock_schema_destruction', '_101_lock_schema_destruction_created', '_102_lock_schema_destruction_dropped', '_110_guard_registered_tables',
  '_111_guard_table_rewrite',
] as const;

/** The lease token every executor call presents (claim's result). */
export interface LeaseToken {
  requestId: string;
  communityId: string;
  executorId: string;
  /** bigint as text: postgres.js returns int8 as a string. */
  leaseGeneration: string;
}

export interface Claimed extends LeaseToken {
  stage: Stage;
}

export interface LeaseState {
  stage: Stage;
  communityId: string;
  /** Set from the fence on; every later step presents it. */
  fenceGeneration: string | null;
  leaseUntil: Date;
  destructiveManifestFrozen: boolean;
}

export interface KeyChunk {
  chunkNo: number;
  prefix: string;
  entries: ManifestEntry[];
}

/** One batch of the PostgreSQL purge (purge_postgres_batch). */
export interface PurgeBatch {
  /** Rows deleted (or provenance rows nulled) by this batch. */
  rows: number;
  /** Every table of the purge is finished: call finishPostgresPurge. */
  done: boolean;
  /** Rows deleted so far over every batch of the request. */
  purgedRows: number;
  /** Rows the frozen inventory counted (what the approver saw). */
  inventoriedRows: number;
  /**
   * Milliseconds to rest before the next batch (settings.purge_batch_rest_ratio
   * times this batch's duration; 0 once done or when the ratio is 0).
   */
  restMs: number;
}

/** Rows per table over every batch (finish_postgres_purge). */
export interface PurgeTotals {
  deleted: Record<string, number>;
  provenance_cleared: Record<string, number>;
}

export interface FailureRecorded {
  blocked: boolean;
  retry_count?: number;
  next_attempt_at?: string;
}

export interface ServingLeaseRow {
  id: string;
  community_id: string;
  operation: string;
  owner: string;
  generation: string;
  fence_generation: string;
  lease_until: Date;
}

export interface TaxonomySweepRow {
  id: string;
  started_at: Date;
  completed_at: Date;
  listed_objects: string;
  unknown_object_count: string;
  unknown_key_sample: Json;
  object_cap: string;
  truncated: boolean;
}

/** The database's engine schema is not the one this driver was built for. */
export class SchemaVersionError extends Error {
  override readonly name = 'SchemaVersionError';
  constructor(
    /** null: the database predates schema versions (before migration 000010). */
    readonly found: number | null,
    readonly expected: number,
  ) {
    super(
      found === null || found < expected
        ? `the database's community-deletion schema is older (${found ?? 'before version 10'}) than this driver (${expected}): run \`deletions migrate\``
        : `the database's community-deletion schema (${found}) is newer than this driver (${expected}): this driver is too old; upgrade it`,
    );
  }
}

/** SQLSTATE undefined_function / invalid_schema_name: the function does not exist. */
function isMissingFunction(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '42883' || code === '3F000';
}

export class EngineClient {
  constructor(readonly sql: Queryable) {}

  /** The same client on a transaction (e.g. the serving library's guarded write). */
  in(tx: Queryable): EngineClient {
    return new EngineClient(tx);
  }

  // ---- version ------------------------------------------------------------

  /** community_deletion.schema_version(), or null when the database predates it. */
  async schemaVersion(): Promise<number | null> {
    try {
      const [row] = await this.sql<{ version: number }[]>`select community_deletion.schema_version() as version`;
      return row!.version;
    } catch (error) {
      if (isMissingFunction(error)) return null;
      throw error;
    }
  }

  /** Refuses (SchemaVersionError) a database at another engine schema version. */
  async assertSchemaVersion(expected = SCHEMA_VERSION): Promise<number> {
    const found = await this.schemaVersion();
    if (found !== expected) throw new SchemaVersionError(found, expected);
    return found;
  }

  async writeFenceImplementation(): Promise<string> {
    const [row] = await this.sql<{ impl: string }[]>`select community_deletion.write_fence_implementation() as impl`;
    return row!.impl;
  }

  // ---- plan and doctor (read-only) ------------------------------------------

  /** community_deletion.plan(host): per-table rows a deletion would remove, in purge order; writes nothing. */
  async plan(host: string): Promise<PostgresPlan> {
    const [row] = await this.sql<{ plan: PostgresPlan }[]>`select community_deletion.plan(host => ${host}) as plan`;
    return row!.plan;
  }

  /** community_deletion.validate_catalog(): raises DL7C1 listing every difference between the live catalog and the registry. */
  async validateCatalog(): Promise<void> {
    await this.sql`select community_deletion.validate_catalog()`;
  }

  /** Engine roles (ENGINE_ROLES) missing from the cluster. */
  async missingEngineRoles(): Promise<string[]> {
    const rows = await this.sql<{ name: string }[]>`
      select r.name from unnest(${[...ENGINE_ROLES]}::text[]) r(name)
       where not exists (select 1 from pg_catalog.pg_roles p where p.rolname = r.name) order by 1`;
    return rows.map((r) => r.name);
  }

  /** The engine's event triggers (ENGINE_EVENT_TRIGGERS) and whether each is present and enabled. */
  async engineEventTriggers(): Promise<{ name: string; enabled: boolean | null }[]> {
    return this.sql<{ name: string; enabled: boolean | null }[]>`
      select t.name, (select e.evtenabled <> 'D' from pg_catalog.pg_event_trigger e where e.evtname = t.name) as enabled
        from unnest(${[...ENGINE_EVENT_TRIGGERS]}::text[]) t(name) order by 1`;
  }

  /** What protects this installation and what is degraded (docs/managed.md). */
  async installationReport(): Promise<InstallationReport> {
    const [row] = await this.sql<{ report: InstallationReport }[]>`
      select community_deletion.installation_report() as report`;
    return row!.report;
  }

  // ---- operators ----------------------------------------------------------

  async submit(a: { host: string; requestedBy: string; reason?: string | null }): Promise<RequestRow> {
    const [row] = await this.sql<RequestRow[]>`
      select r.* from community_deletion.submit(host => ${a.host}, requested_by => ${a.requestedBy}, reason => ${a.reason ?? null}) r`;
    return row!;
  }

  /** storeIdentity: the stores the summary was enumerated from (recorded on the request). */
  async freezeInventory(a: { requestId: string; storageSummary: StorageSummary; storeIdentity?: StoreIdentity | null }): Promise<RequestRow> {
    const identity = a.storeIdentity ? json(this.sql, a.storeIdentity) : null;
    const [row] = await this.sql<RequestRow[]>`
      select r.* from community_deletion.freeze_inventory(
        request_id => ${a.requestId}::uuid, storage_summary => ${json(this.sql, a.storageSummary)},
        store_identity => ${identity}::jsonb) r`;
    return row!;
  }

  /**
   * delay: a PostgreSQL interval literal ('30 minutes', '7 days'). digest: the
   * inventory digest (or a prefix of at least 8 hex digits) the approver
   * reviewed; refused (DL3A2) unless the frozen digest starts with it.
   */
  async approve(a: {
    requestId: string; approvedBy: string; note?: string | null; notBefore?: Date | null; delay?: string | null; digest?: string | null;
  }): Promise<RequestRow> {
    const [row] = await this.sql<RequestRow[]>`
      select r.* from community_deletion.approve(
        request_id => ${a.requestId}::uuid, approved_by => ${a.approvedBy}, note => ${a.note ?? null},
        not_before => ${a.notBefore ?? null}::timestamptz, delay => ${a.delay ?? null}::interval,
        digest => ${a.digest ?? null}::text) r`;
    return row!;
  }

  async abort(a: { requestId: string; abortedBy: string; reason: string }): Promise<RequestRow> {
    const [row] = await this.sql<RequestRow[]>`
      select r.* from community_deletion.abort(request_id => ${a.requestId}::uuid, aborted_by => ${a.abortedBy}, reason => ${a.reason}) r`;
    return row!;
  }

  async unblock(a: { requestId: string; unblockedBy: string; reason: string }): Promise<RequestRow> {
    const [row] = await this.sql<RequestRow[]>`
      select r.* from community_deletion.unblock(request_id => ${a.requestId}::uuid, unblocked_by => ${a.unblockedBy}, reason => ${a.reason}) r`;
    return row!;
  }

  async inspect(requestId: string): Promise<Inspection> {
    const [row] = await this.sql<{ inspection: Inspection }[]>`
      select community_deletion.inspect(request_id => ${requestId}::uuid) as inspection`;
    return row!.inspection;
  }

  /** Newest first; optional filters by state word and host, and paging with before (a request id). */
  listRequests(maxRows: number, filter: { state?: string | null; host?: string | null; before?: string | null } = {}): Promise<RequestListRow[]> {
    return this.sql<RequestListRow[]>`
      select * from community_deletion.list_requests(max_rows => ${maxRows}::integer, in_state => ${filter.state ?? null}::text,
                                                     host => ${filter.host ?? null}::text, before => ${filter.before ?? null}::uuid)`;
  }

  async queueStatus(): Promise<QueueStatusRow[]> {
    const rows = await this.sql<(Omit<QueueStatusRow, 'requests'> & { requests: string })[]>`
      select * from community_deletion.queue_status()`;
    return rows.map((r) => ({ ...r, requests: Number(r.requests) }));
  }

  storageTaxonomyRules(): Promise<TaxonomyRow[]> {
    return this.sql<TaxonomyRow[]>`
      select name, scope, prefix_template, key_pattern, writer from community_deletion.storage_taxonomy_rules()`;
  }

  async recordTaxonomySweep(a: {
    startedAt: Date; listedObjects: number; unknownObjectCount: number; unknownKeySample: string[]; objectCap: number; truncated: boolean;
  }): Promise<TaxonomySweepRow> {
    const [row] = await this.sql<TaxonomySweepRow[]>`
      select s.* from community_deletion.record_taxonomy_sweep(
        started_at => ${a.startedAt}::timestamptz, listed_objects => ${a.listedObjects}::bigint,
        unknown_object_count => ${a.unknownObjectCount}::bigint, unknown_key_sample => ${json(this.sql, a.unknownKeySample)},
        object_cap => ${a.objectCap}::bigint, truncated => ${a.truncated}) s`;
    return row!;
  }

  // ---- executors ----------------------------------------------------------

  async claim(a: { executorId: string; requestId?: string | null; leaseSeconds: number }): Promise<Claimed | null> {
    const [row] = await this.sql<{ request_id: string; community_id: string; stage: Stage; lease_generation: string }[]>`
      select request_id, community_id, stage, lease_generation
        from community_deletion.claim(executor_id => ${a.executorId}, request_id => ${a.requestId ?? null}::uuid,
                                      lease_seconds => ${a.leaseSeconds}::integer)`;
    if (!row) return null;
    return {
      requestId: row.request_id, communityId: row.community_id, executorId: a.executorId,
      leaseGeneration: String(row.lease_generation), stage: row.stage,
    };
  }

  async leaseState(t: LeaseToken): Promise<LeaseState> {
    const [row] = await this.sql<{ stage: Stage; community_id: string; fence_generation: string | null; lease_until: Date; destructive_manifest_frozen: boolean }[]>`
      select stage, community_id, fence_generation, lease_until, destructive_manifest_frozen
        from community_deletion.lease_state(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
                                            lease_generation => ${t.leaseGeneration}::bigint)`;
    if (!row) throw new Error(`no lease state for ${t.requestId}`);
    return {
      stage: row.stage, communityId: row.community_id,
      fenceGeneration: row.fence_generation === null ? null : String(row.fence_generation),
      leaseUntil: row.lease_until, destructiveManifestFrozen: row.destructive_manifest_frozen,
    };
  }

  async verifyToken(t: LeaseToken, stage: Stage): Promise<void> {
    await this.sql`select community_deletion.verify_token(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
      lease_generation => ${t.leaseGeneration}::bigint, stage => ${stage})`;
  }

  /**
   * Refuses (store_mismatch, DL4S1) unless these are the stores the request
   * was inventoried against; records them for a request frozen without.
   * Returns the recorded canonical identity.
   */
  async verifyStoreIdentity(t: LeaseToken, identity: StoreIdentity): Promise<StoreIdentity> {
    const [row] = await this.sql<{ identity: StoreIdentity }[]>`
      select community_deletion.verify_store_identity(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
        lease_generation => ${t.leaseGeneration}::bigint, store_identity => ${json(this.sql, identity)}) as identity`;
    return row!.identity;
  }

  async heartbeat(t: LeaseToken, a: { mode: 'run' | 'drain' | 'worker'; leaseSeconds: number; draining: boolean }): Promise<Date> {
    const [row] = await this.sql<{ until: Date }[]>`
      select community_deletion.heartbeat(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
        lease_generation => ${t.leaseGeneration}::bigint, mode => ${a.mode}, lease_seconds => ${a.leaseSeconds}::integer,
        draining => ${a.draining}) as until`;
    return row!.until;
  }

  async release(t: LeaseToken): Promise<boolean> {
    const [row] = await this.sql<{ released: boolean }[]>`
      select community_deletion.release(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
        lease_generation => ${t.leaseGeneration}::bigint) as released`;
    return row!.released;
  }

  async executorStopped(executorId: string): Promise<void> {
    await this.sql`select community_deletion.executor_stopped(executor_id => ${executorId})`;
  }

  async recordFailure(t: LeaseToken, a: { stage: Stage; unitKey: string; error: string }): Promise<FailureRecorded> {
    const [row] = await this.sql<{ result: FailureRecorded }[]>`
      select community_deletion.record_failure(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
        lease_generation => ${t.leaseGeneration}::bigint, stage => ${a.stage}, unit_key => ${a.unitKey}, error => ${a.error}) as result`;
    return row!.result;
  }

  async block(t: LeaseToken, a: { stage: Stage; unitKey: string; error: string }): Promise<void> {
    await this.sql`select community_deletion.block(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
      lease_generation => ${t.leaseGeneration}::bigint, stage => ${a.stage}, unit_key => ${a.unitKey}, error => ${a.error})`;
  }

  async blockPreclaim(a: { requestId: string; unitKey: string; error: string }): Promise<void> {
    await this.sql`select 1 from community_deletion.block_preclaim(request_id => ${a.requestId}::uuid, unit_key => ${a.unitKey},
      error => ${a.error})`;
  }

  async beginQuiescing(t: LeaseToken): Promise<void> {
    await this.sql`select community_deletion.begin_quiescing(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
      lease_generation => ${t.leaseGeneration}::bigint)`;
  }

  /** Closes the fence; returns the new fence generation. */
  async fence(t: LeaseToken): Promise<string> {
    const [row] = await this.sql<{ generation: string }[]>`
      select community_deletion.fence(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
        lease_generation => ${t.leaseGeneration}::bigint) as generation`;
    return String(row!.generation);
  }

  async clearKeyChunks(t: LeaseToken, fenceGeneration: string): Promise<number> {
    const [row] = await this.sql<{ removed: number }[]>`
      select community_deletion.clear_key_chunks(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
        lease_generation => ${t.leaseGeneration}::bigint, fence_generation => ${fenceGeneration}::bigint) as removed`;
    return row!.removed;
  }

  async appendKeyChunk(t: LeaseToken, fenceGeneration: string, chunk: { chunkNo: number; prefix: string; entries: readonly ManifestEntry[] }): Promise<void> {
    await this.sql`select community_deletion.append_key_chunk(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
      lease_generation => ${t.leaseGeneration}::bigint, fence_generation => ${fenceGeneration}::bigint,
      chunk_no => ${chunk.chunkNo}::integer, prefix => ${chunk.prefix}, entries => ${json(this.sql, chunk.entries)})`;
  }

  async freezeDestructiveManifest(t: LeaseToken, fenceGeneration: string, manifest: StorageSummary): Promise<void> {
    await this.sql`select community_deletion.freeze_destructive_manifest(request_id => ${t.requestId}::uuid,
      executor_id => ${t.executorId}, lease_generation => ${t.leaseGeneration}::bigint,
      fence_generation => ${fenceGeneration}::bigint, manifest => ${json(this.sql, manifest)})`;
  }

  async markDrained(t: LeaseToken, fenceGeneration: string): Promise<void> {
    await this.sql`select community_deletion.mark_drained(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
      lease_generation => ${t.leaseGeneration}::bigint, fence_generation => ${fenceGeneration}::bigint)`;
  }

  async nextKeyChunk(t: LeaseToken, fenceGeneration: string): Promise<KeyChunk | null> {
    const [row] = await this.sql<{ chunk_no: number; prefix: string; entries: ManifestEntry[] }[]>`
      select chunk_no, prefix, entries from community_deletion.next_key_chunk(request_id => ${t.requestId}::uuid,
        executor_id => ${t.executorId}, lease_generation => ${t.leaseGeneration}::bigint, fence_generation => ${fenceGeneration}::bigint)`;
    return row ? { chunkNo: row.chunk_no, prefix: row.prefix, entries: row.entries } : null;
  }

  async stampKeyChunk(t: LeaseToken, fenceGeneration: string, chunkNo: number, detail: Record<string, number>): Promise<void> {
    await this.sql`select community_deletion.stamp_key_chunk(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
      lease_generation => ${t.leaseGeneration}::bigint, fence_generation => ${fenceGeneration}::bigint,
      chunk_no => ${chunkNo}::integer, detail => ${json(this.sql, detail)})`;
  }

  /** Key chunks (total, deleted) and the object versions they hold (entriesTotal, entriesDeleted). */
  async keyChunkProgress(requestId: string): Promise<{ total: number; deleted: number; entriesTotal: number; entriesDeleted: number }> {
    const [row] = await this.sql<{ total: number; deleted: number; entries_total: string; entries_deleted: string }[]>`
      select total, deleted, entries_total, entries_deleted from community_deletion.key_chunk_progress(request_id => ${requestId}::uuid)`;
    if (!row) return { total: 0, deleted: 0, entriesTotal: 0, entriesDeleted: 0 };
    return { total: row.total, deleted: row.deleted, entriesTotal: Number(row.entries_total), entriesDeleted: Number(row.entries_deleted) };
  }

  async markBindingsRemoved(t: LeaseToken, fenceGeneration: string, detail: Record<string, number>): Promise<void> {
    await this.sql`select community_deletion.mark_bindings_removed(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
      lease_generation => ${t.leaseGeneration}::bigint, fence_generation => ${fenceGeneration}::bigint, detail => ${json(this.sql, detail)})`;
  }

  /**
   * One bounded batch of the PostgreSQL purge, in its own transaction (at most
   * settings.purge_batch_rows of cost: a row weighs 1 + the foreign keys
   * referencing its table; sized by each table's measured pace to take about
   * settings.purge_batch_target); call until done, resting restMs between
   * two, then finishPostgresPurge.
   */
  async purgePostgresBatch(t: LeaseToken, fenceGeneration: string): Promise<PurgeBatch> {
    const [row] = await this.sql<{ result: { rows: number; done: boolean; purged_rows: number; inventoried_rows: number; rest_ms: number } }[]>`
      select community_deletion.purge_postgres_batch(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
        lease_generation => ${t.leaseGeneration}::bigint, fence_generation => ${fenceGeneration}::bigint) as result`;
    const r = row!.result;
    return { rows: Number(r.rows), done: r.done, purgedRows: Number(r.purged_rows), inventoriedRows: Number(r.inventoried_rows), restMs: Number(r.rest_ms) };
  }

  /** After the last batch: every table proven empty, the tombstone, bindings_removed → postgres_purged. */
  async finishPostgresPurge(t: LeaseToken, fenceGeneration: string): Promise<PurgeTotals> {
    const [row] = await this.sql<{ result: PurgeTotals }[]>`
      select community_deletion.finish_postgres_purge(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
        lease_generation => ${t.leaseGeneration}::bigint, fence_generation => ${fenceGeneration}::bigint) as result`;
    return row!.result;
  }

  /** The whole purge and the tombstone in one transaction (DBAs, small tenants; grows with the tenant). */
  async purgePostgres(t: LeaseToken, fenceGeneration: string): Promise<Json> {
    const [row] = await this.sql<{ result: Json }[]>`
      select community_deletion.purge_postgres(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
        lease_generation => ${t.leaseGeneration}::bigint, fence_generation => ${fenceGeneration}::bigint) as result`;
    return row!.result;
  }

  async markCachePurged(t: LeaseToken, fenceGeneration: string, detail: Record<string, number>): Promise<void> {
    await this.sql`select community_deletion.mark_cache_purged(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
      lease_generation => ${t.leaseGeneration}::bigint, fence_generation => ${fenceGeneration}::bigint, detail => ${json(this.sql, detail)})`;
  }

  async verifyPostgresAbsence(t: LeaseToken, fenceGeneration: string): Promise<void> {
    await this.sql`select community_deletion.verify_postgres_absence(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
      lease_generation => ${t.leaseGeneration}::bigint, fence_generation => ${fenceGeneration}::bigint)`;
  }

  async markLogicallyVerified(t: LeaseToken, fenceGeneration: string, detail: Record<string, unknown>): Promise<void> {
    await this.sql`select community_deletion.mark_logically_verified(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
      lease_generation => ${t.leaseGeneration}::bigint, fence_generation => ${fenceGeneration}::bigint, detail => ${json(this.sql, detail)})`;
  }

  async markRetentionPending(t: LeaseToken, fenceGeneration: string, detail: Record<string, unknown>): Promise<void> {
    await this.sql`select community_deletion.mark_retention_pending(request_id => ${t.requestId}::uuid, executor_id => ${t.executorId},
      lease_generation => ${t.leaseGeneration}::bigint, fence_generation => ${fenceGeneration}::bigint, detail => ${json(this.sql, detail)})`;
  }

  // ---- the host application (serving path) --------------------------------

  async acquireServingLease(a: { communityId: string; operation: string; owner: string; leaseSeconds: number }): Promise<ServingLeaseRow> {
    const [row] = await this.sql<ServingLeaseRow[]>`
      select l.id, l.community_id, l.operation, l.owner, l.generation, l.fence_generation, l.lease_until
        from community_deletion.acquire_serving_lease(community_id => ${a.communityId}::uuid, operation => ${a.operation},
                                                      owner => ${a.owner}, lease_seconds => ${a.leaseSeconds}::integer) l`;
    if (!row) throw new Error('community_deletion.acquire_serving_lease returned no row');
    return row;
  }

  async renewServingLease(l: ServingLeaseRef, leaseSeconds: number): Promise<Date> {
    const [row] = await this.sql<{ until: Date }[]>`
      select community_deletion.renew_serving_lease(lease_id => ${l.id}::uuid, owner => ${l.owner},
        lease_generation => ${l.generation}::bigint, fence_generation => ${l.fenceGeneration}::bigint,
        lease_seconds => ${leaseSeconds}::integer) as until`;
    return row!.until;
  }

  async verifyServingLease(l: ServingLeaseRef): Promise<void> {
    await this.sql`select community_deletion.verify_serving_lease(lease_id => ${l.id}::uuid, owner => ${l.owner},
      lease_generation => ${l.generation}::bigint, fence_generation => ${l.fenceGeneration}::bigint)`;
  }

  async guardServingWrite(l: ServingLeaseRef): Promise<void> {
    await this.sql`select community_deletion.guard_serving_write(lease_id => ${l.id}::uuid, owner => ${l.owner},
      lease_generation => ${l.generation}::bigint, fence_generation => ${l.fenceGeneration}::bigint)`;
  }

  async releaseServingLease(l: ServingLeaseRef): Promise<boolean> {
    const [row] = await this.sql<{ released: boolean }[]>`
      select community_deletion.release_serving_lease(lease_id => ${l.id}::uuid, owner => ${l.owner},
        lease_generation => ${l.generation}::bigint, fence_generation => ${l.fenceGeneration}::bigint) as released`;
    return row!.released;
  }

  async assertCommunityWriteAllowed(communityId: string): Promise<void> {
    await this.sql`select community_deletion.assert_community_write_allowed(community_id => ${communityId}::uuid)`;
  }
}

/** The exact serving lease a holder presents. */
export interface ServingLeaseRef {
  id: string;
  owner: string;
  generation: string;
  fenceGeneration: string;
}
