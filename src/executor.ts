// The executor: claim → (heartbeat in the background) → per stage: verify the
// token, do the stage's external step, report to SQL → ask SQL for the next
// stage. Which stage comes next, and whether a step may run, is decided by the
// SQL functions; this file only maps a stage to its external side effect.
import { setTimeout as sleep } from 'node:timers/promises';
import type postgres from 'postgres';
import type { Sql } from './db.js';
import { isRetryableSqlState, isStaleLease, sqlStateOf } from './errors.js';
import { enumerateOwnedStorage } from './inventory.js';
import { ManifestError, type ManifestEntry } from './manifest.js';
import { RedisNotEmptyError, RedisScopeError, type RedisCache } from './redis.js';
import { MAX_DELETE_BATCH, PermanentStorageError, StorageError, TransientStorageError, type S3Store } from './s3.js';
import { TaxonomyError, type Taxonomy } from './taxonomy.js';

export type ExecutorMode = 'run' | 'drain' | 'worker';

export interface ExecutorDeps {
  sql: Sql;
  /** A second pool for heartbeats, so a long step's transaction never delays them. */
  heartbeatSql: Sql;
  s3: S3Store;
  redis: RedisCache;
  taxonomy: Taxonomy;
  executorId: string;
  mode: ExecutorMode;
  chunkSize: number;
  leaseSeconds: number;
  heartbeatSeconds: number;
  log: (message: string) => void;
  progress?: (label: string, done: number, total?: number) => void;
  /** Test hook: called after each named step boundary (e.g. "chunk_deleted:0"). */
  onBoundary?: (boundary: string) => Promise<void> | void;
}

export interface LeaseToken {
  requestId: string;
  communityId: string;
  owner: string;
  generation: string; // bigint as text: postgres.js returns int8 as string
}

export type RunOutcome =
  | { kind: 'completed'; requestId: string; stages: StageTiming[] }
  | { kind: 'nothing_claimable' }
  | { kind: 'failure_recorded'; requestId: string; stage: string; blocked: boolean; error: string; retryable: boolean; nextAttemptAt?: string }
  | { kind: 'lease_lost'; requestId: string; stage: string; error: string }
  | { kind: 'stopped'; requestId: string; stage: string };

export interface StageTiming {
  stage: string;
  ms: number;
}

/** Raised inside a step when the lease was lost or shutdown was requested. */
class Cancelled extends Error {
  constructor(readonly reason: 'lease_lost' | 'shutdown', message: string) {
    super(message);
    this.name = 'Cancelled';
  }
}

/** A step failure that names the unit it happened in (for the checkpoint). */
class StepError extends Error {
  constructor(
    readonly unitKey: string,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'StepError';
  }
}

/** Transient by type or SQLSTATE; everything else is permanent (fail closed). */
export function isTransient(error: unknown): boolean {
  if (error instanceof TransientStorageError) return true;
  if (error instanceof PermanentStorageError || error instanceof StorageError) return false;
  if (error instanceof RedisNotEmptyError) return true;
  if (error instanceof TaxonomyError || error instanceof ManifestError || error instanceof RedisScopeError) return false;
  const code = sqlStateOf(error);
  if (code !== undefined) return isRetryableSqlState(code);
  const errno = (error as { code?: unknown } | null)?.code;
  // Network-level failures of Redis/S3/PostgreSQL clients.
  return typeof errno === 'string' && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN)$/.test(errno);
}

export class Executor {
  private readonly shutdown = new AbortController();

  constructor(private readonly d: ExecutorDeps) {}

  /** Ask a running claim to stop at the next boundary and release its lease. */
  requestShutdown(): void {
    this.shutdown.abort();
  }

  get shuttingDown(): boolean {
    return this.shutdown.signal.aborted;
  }

  /** Aborted once shutdown is requested (SIGTERM/SIGINT). */
  get shutdownSignal(): AbortSignal {
    return this.shutdown.signal;
  }

  /** Claim (a given request, or the oldest runnable one) and run it to the end or to a failure. */
  async runOnce(requestId?: string): Promise<RunOutcome> {
    const { sql, executorId, leaseSeconds } = this.d;
    const rows = await sql<{ request_id: string; community_id: string; stage: string; lease_generation: string }[]>`
      select request_id, community_id, stage, lease_generation
      from community_deletion.claim(${executorId}, ${requestId ?? null}::uuid, ${leaseSeconds}::integer)`;
    const claim = rows[0];
    if (!claim) return { kind: 'nothing_claimable' };
    const token: LeaseToken = {
      requestId: claim.request_id,
      communityId: claim.community_id,
      owner: executorId,
      generation: String(claim.lease_generation),
    };
    this.d.log(`claimed ${token.requestId} at ${claim.stage} (generation ${token.generation})`);
    return this.drive(token);
  }

  private async drive(token: LeaseToken): Promise<RunOutcome> {
    const lease = new AbortController();
    const beat = this.startHeartbeat(token, lease);
    const timings: StageTiming[] = [];
    let stage = 'unknown';
    try {
      for (;;) {
        const state = await this.leaseState(token);
        stage = state.stage;
        if (stage === 'retention_pending') {
          this.d.log(`${token.requestId} is complete (retention_pending)`);
          return { kind: 'completed', requestId: token.requestId, stages: timings };
        }
        this.checkCancelled(lease.signal);
        const started = Date.now();
        await this.step(token, stage, state.fenceGeneration, state.destructiveFrozen, lease.signal);
        timings.push({ stage, ms: Date.now() - started });
        await this.d.onBoundary?.(`after:${stage}`);
      }
    } catch (error) {
      return await this.handleFailure(token, stage, error, lease.signal);
    } finally {
      clearInterval(beat);
    }
  }

  private async leaseState(token: LeaseToken) {
    const [row] = await this.d.sql<{ stage: string; fence_generation: string | null; destructive_manifest_frozen: boolean }[]>`
      select stage, fence_generation, destructive_manifest_frozen
      from community_deletion.lease_state(${token.requestId}::uuid, ${token.owner}, ${token.generation}::bigint)`;
    if (!row) throw new Error(`no lease state for ${token.requestId}`);
    return { stage: row.stage, fenceGeneration: row.fence_generation === null ? null : String(row.fence_generation), destructiveFrozen: row.destructive_manifest_frozen };
  }

  private startHeartbeat(token: LeaseToken, lease: AbortController): NodeJS.Timeout {
    const { heartbeatSql, mode, leaseSeconds, heartbeatSeconds } = this.d;
    const timer = setInterval(() => {
      heartbeatSql`
        select community_deletion.heartbeat(${token.requestId}::uuid, ${token.owner}, ${token.generation}::bigint,
          ${mode}, ${leaseSeconds}::integer, ${this.shuttingDown})`.catch((error: unknown) => {
        if (isStaleLease(error)) {
          this.d.log(`lease on ${token.requestId} lost: ${(error as Error).message}`);
          lease.abort(new Cancelled('lease_lost', (error as Error).message));
        } else {
          // A missed beat is survivable until the lease expires; the next beat retries.
          this.d.log(`heartbeat failed (will retry): ${(error as Error).message}`);
        }
      });
    }, heartbeatSeconds * 1000);
    timer.unref();
    return timer;
  }

  private checkCancelled(lease: AbortSignal): void {
    if (lease.aborted) throw lease.reason instanceof Cancelled ? lease.reason : new Cancelled('lease_lost', 'lease lost');
    if (this.shutdown.signal.aborted) throw new Cancelled('shutdown', 'shutdown requested');
  }

  /**
   * Runs an external effect. A lost lease abandons it at once (another
   * executor may own the request now; nothing this one does can be
   * reported). Shutdown does not: the in-flight request (at most one bulk
   * delete, one listing page, one Redis pass) finishes, and the executor
   * stops at the next cancellation check, so after it releases the lease no
   * effect of its own is still running.
   */
  private async external<T>(lease: AbortSignal, unitKey: string, effect: () => Promise<T>): Promise<T> {
    this.checkCancelled(lease);
    let onAbort: (() => void) | undefined;
    const lost = new Promise<never>((_, reject) => {
      onAbort = () => reject(lease.reason instanceof Cancelled ? lease.reason : new Cancelled('lease_lost', 'lease lost'));
      lease.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([effect(), lost]);
    } catch (error) {
      if (error instanceof Cancelled) throw error;
      throw new StepError(unitKey, error);
    } finally {
      if (onAbort) lease.removeEventListener('abort', onAbort);
    }
  }

  /** A SQL report; SQL errors keep their SQLSTATE, wrapped with the unit they belong to. */
  private async report<T>(unitKey: string, query: () => Promise<T>): Promise<T> {
    try {
      return await query();
    } catch (error) {
      throw new StepError(unitKey, error);
    }
  }

  private async step(token: LeaseToken, stage: string, fenceGeneration: string | null, destructiveFrozen: boolean, lease: AbortSignal): Promise<void> {
    const { sql, s3, redis, taxonomy } = this.d;
    const id = token.requestId;
    const t = [id, token.owner, token.generation] as const;
    const fg = fenceGeneration;
    const prefixes = taxonomy.ownedPrefixes(token.communityId);
    await this.report('verify_token', () => sql`select community_deletion.verify_token(${id}::uuid, ${t[1]}, ${t[2]}::bigint, ${stage})`);
    switch (stage) {
      case 'approved': {
        await this.external(lease, 'storage_preflight', () => s3.preflight(prefixes));
        await this.report('quiesce_serving_writes', () => sql`select community_deletion.begin_quiescing(${id}::uuid, ${t[1]}, ${t[2]}::bigint)`);
        // Admitted serving leases finish within their own lease; wait for them
        // here (retryable "not drained") rather than burning retry attempts.
        const deadline = Date.now() + this.d.leaseSeconds * 1000;
        for (;;) {
          try {
            await sql`select community_deletion.fence(${id}::uuid, ${t[1]}, ${t[2]}::bigint)`;
            break;
          } catch (error) {
            if (sqlStateOf(error) !== 'DL5D1' || Date.now() > deadline) throw new StepError('activate_fence', error);
            this.d.log(`waiting for serving writes to drain: ${(error as Error).message}`);
            await sleep(500);
            this.checkCancelled(lease);
          }
        }
        return;
      }
      case 'fenced': {
        await this.external(lease, 'disconnect_published', () => redis.publishDisconnect(token.communityId));
        if (!destructiveFrozen) {
          await this.report('clear_key_chunks', () => sql`select community_deletion.clear_key_chunks(${id}::uuid, ${t[1]}, ${t[2]}::bigint, ${fg}::bigint)`);
          const summary = await this.external(lease, 'enumerate_storage', () =>
            enumerateOwnedStorage(s3, taxonomy, token.communityId, {
              chunkSize: this.d.chunkSize,
              onEntry: (prefix, n) => this.d.progress?.(`enumerating ${prefix}`, n),
              onChunk: async (chunk) => {
                this.checkCancelled(lease);
                await sql`select community_deletion.append_key_chunk(${id}::uuid, ${t[1]}, ${t[2]}::bigint, ${fg}::bigint,
                  ${chunk.chunk_no}::integer, ${chunk.prefix}, ${sql.json(chunk.entries as unknown as postgres.JSONValue)})`;
              },
            }),
          );
          await this.report('freeze_destructive_manifest', () =>
            sql`select community_deletion.freeze_destructive_manifest(${id}::uuid, ${t[1]}, ${t[2]}::bigint, ${fg}::bigint,
              ${sql.json(summary as unknown as postgres.JSONValue)})`);
          await this.d.onBoundary?.('destructive_manifest_frozen');
        }
        await this.report('serving_writes_drained', () => sql`select community_deletion.mark_drained(${id}::uuid, ${t[1]}, ${t[2]}::bigint, ${fg}::bigint)`);
        return;
      }
      case 'drained': {
        let deleted = 0;
        let alreadyMissing = 0;
        let chunks = 0;
        for (;;) {
          const [chunk] = await this.report('next_key_chunk', () =>
            sql<{ chunk_no: number; prefix: string; entries: ManifestEntry[] }[]>`
              select chunk_no, prefix, entries from community_deletion.next_key_chunk(${id}::uuid, ${t[1]}, ${t[2]}::bigint, ${fg}::bigint)`);
          if (!chunk) break;
          const unit = `chunk:${chunk.chunk_no}`;
          // One bulk request (≤1000 versions) at a time, each preceded by a
          // token check in SQL: an executor that lost its lease mid-chunk
          // stops before its next irreversible request, not at the chunk end.
          const outcome = { deleted: 0, alreadyMissing: 0, requests: 0 };
          for (let start = 0; start < chunk.entries.length; start += MAX_DELETE_BATCH) {
            const batch = chunk.entries.slice(start, start + MAX_DELETE_BATCH);
            this.checkCancelled(lease);
            await this.report(unit, () => sql`select community_deletion.verify_token(${id}::uuid, ${t[1]}, ${t[2]}::bigint, ${stage})`);
            const part = await this.external(lease, unit, () => s3.deleteVersions(chunk.prefix, batch));
            outcome.deleted += part.deleted;
            outcome.alreadyMissing += part.alreadyMissing;
            outcome.requests += part.requests;
          }
          await this.d.onBoundary?.(`chunk_deleted:${chunk.chunk_no}`);
          this.checkCancelled(lease);
          await this.report(unit, () =>
            sql`select community_deletion.stamp_key_chunk(${id}::uuid, ${t[1]}, ${t[2]}::bigint, ${fg}::bigint, ${chunk.chunk_no}::integer,
              ${sql.json({ deleted: outcome.deleted, already_missing: outcome.alreadyMissing, requests: outcome.requests })})`);
          deleted += outcome.deleted;
          alreadyMissing += outcome.alreadyMissing;
          chunks += 1;
          const [p] = await sql<{ total: number; deleted: number }[]>`select total, deleted from community_deletion.key_chunk_progress(${id}::uuid)`;
          if (p) this.d.progress?.('deleting object chunks', p.deleted, p.total);
        }
        await this.report('remove_storage_bindings', () =>
          sql`select community_deletion.mark_bindings_removed(${id}::uuid, ${t[1]}, ${t[2]}::bigint, ${fg}::bigint,
            ${sql.json({ chunks_this_run: chunks, deleted, already_missing: alreadyMissing })})`);
        return;
      }
      case 'bindings_removed': {
        await this.report('purge_postgres', () => sql`select community_deletion.purge_postgres(${id}::uuid, ${t[1]}, ${t[2]}::bigint, ${fg}::bigint)`);
        return;
      }
      case 'postgres_purged': {
        const unlinked = await this.external(lease, 'purge_cache_namespace', () => redis.purgeNamespace(token.communityId));
        await this.report('purge_cache_namespace', () =>
          sql`select community_deletion.mark_cache_purged(${id}::uuid, ${t[1]}, ${t[2]}::bigint, ${fg}::bigint, ${sql.json({ unlinked })})`);
        return;
      }
      case 'cache_purged': {
        await this.report('verify_postgres_absence', () => sql`select community_deletion.verify_postgres_absence(${id}::uuid, ${t[1]}, ${t[2]}::bigint, ${fg}::bigint)`);
        for (const prefix of prefixes) await this.external(lease, `verify_storage_absence:${prefix}`, () => s3.assertPrefixEmpty(prefix));
        await this.external(lease, 'verify_cache_absence', () => redis.verifyAbsence(token.communityId));
        await this.report('verify_cross_store_absence', () =>
          sql`select community_deletion.mark_logically_verified(${id}::uuid, ${t[1]}, ${t[2]}::bigint, ${fg}::bigint,
            ${sql.json({ postgres: 'absent', storage_prefixes_empty: prefixes, redis_scans_empty: 2 })})`);
        return;
      }
      case 'logically_verified': {
        await this.report('retention_physical_expiry_pending', () =>
          sql`select community_deletion.mark_retention_pending(${id}::uuid, ${t[1]}, ${t[2]}::bigint, ${fg}::bigint, ${sql.json({ executor: token.owner })})`);
        return;
      }
      default:
        // Not runnable (SQL would have refused the claim) or a stage this driver does not know.
        throw new StepError(`unknown_stage:${stage}`, new Error(`the driver has no step for stage ${stage}`));
    }
  }

  private async handleFailure(token: LeaseToken, stage: string, error: unknown, lease: AbortSignal): Promise<RunOutcome> {
    const { sql } = this.d;
    const cause = error instanceof StepError ? error.cause : error;
    const unitKey = error instanceof StepError ? error.unitKey : `stage:${stage}`;
    if (error instanceof Cancelled && error.reason === 'shutdown') {
      // Clean shutdown: give the lease back without recording a failure.
      await sql`select community_deletion.release(${token.requestId}::uuid, ${token.owner}, ${token.generation}::bigint)`.catch(() => {});
      this.d.log(`released ${token.requestId} at ${stage} for shutdown`);
      return { kind: 'stopped', requestId: token.requestId, stage };
    }
    if ((error instanceof Cancelled && error.reason === 'lease_lost') || isStaleLease(cause) || lease.aborted) {
      const message = cause instanceof Error ? cause.message : String(cause);
      this.d.log(`lost the lease on ${token.requestId} at ${stage}; stopping without further effects: ${message}`);
      return { kind: 'lease_lost', requestId: token.requestId, stage, error: message };
    }
    const message = describe(cause);
    const retryable = isTransient(cause);
    try {
      if (retryable) {
        const [{ result }] = (await sql`
          select community_deletion.record_failure(${token.requestId}::uuid, ${token.owner}, ${token.generation}::bigint,
            ${stage}, ${unitKey}, ${message}) as result`) as unknown as [{ result: { blocked: boolean; next_attempt_at?: string } }];
        this.d.log(`${token.requestId} ${stage}/${unitKey} failed (transient${result.blocked ? ', now blocked' : ''}): ${message}`);
        return { kind: 'failure_recorded', requestId: token.requestId, stage, blocked: result.blocked, error: message, retryable, nextAttemptAt: result.next_attempt_at };
      }
      await sql`select community_deletion.block(${token.requestId}::uuid, ${token.owner}, ${token.generation}::bigint, ${stage}, ${unitKey}, ${message})`;
      this.d.log(`${token.requestId} ${stage}/${unitKey} failed permanently, blocked: ${message}`);
      return { kind: 'failure_recorded', requestId: token.requestId, stage, blocked: true, error: message, retryable };
    } catch (reportError) {
      if (isStaleLease(reportError)) return { kind: 'lease_lost', requestId: token.requestId, stage, error: message };
      throw reportError;
    }
  }
}

function describe(error: unknown): string {
  const code = sqlStateOf(error);
  const storage = error instanceof StorageError ? error.code : undefined;
  const base = error instanceof Error ? error.message : String(error);
  return code ? `[${code}] ${base}` : storage ? `[${storage}] ${base}` : base;
}

/** Polls for work with capped exponential backoff until shutdown (worker/drain). */
export async function pollLoop(
  executor: Executor,
  options: { untilEmpty: boolean; idleMinMs?: number; idleMaxMs?: number; log: (m: string) => void },
): Promise<RunOutcome[]> {
  const outcomes: RunOutcome[] = [];
  let idle = options.idleMinMs ?? 1000;
  while (!executor.shuttingDown) {
    const outcome = await executor.runOnce();
    if (outcome.kind === 'nothing_claimable') {
      if (options.untilEmpty) break;
      // Interrupted by SIGTERM/SIGINT: an idle worker stops at once.
      await sleep(idle + Math.floor(Math.random() * 250), undefined, { signal: executor.shutdownSignal }).catch(() => {});
      idle = Math.min(idle * 2, options.idleMaxMs ?? 30_000);
      continue;
    }
    idle = options.idleMinMs ?? 1000;
    outcomes.push(outcome);
  }
  return outcomes;
}
