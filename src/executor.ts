// The executor: claim → (heartbeat in the background) → per stage: verify the
// token, do the stage's external step, report to SQL → ask SQL for the next
// stage. Which stage comes next, and whether a step may run, is decided by the
// SQL functions (src/engine.ts calls them); this file only maps a stage to its
// external side effect.
import type { EngineClient, LeaseToken, Stage } from './engine.js';
import { isStaleLease, sqlStateOf } from './errors.js';
import { classifyFailure } from './failures.js';
import { enumerateOwnedStorage, type VersionLister } from './inventory.js';
import type { ManifestEntry } from './manifest.js';
import type { Cache } from './redis.js';
import type { StoreIdentity } from './store-identity.js';
import type { DeleteOutcome } from './s3.js';
import { MAX_DELETE_BATCH, StorageError } from './s3-errors.js';
import type { Taxonomy } from './taxonomy.js';
import { PostgresStalledError } from './pg-stall.js';

export type ExecutorMode = 'run' | 'drain' | 'worker';

/** What the executor needs from object storage (S3Store; fakes in unit tests). */
export interface ObjectStore extends VersionLister {
  preflight(prefixes: readonly string[]): Promise<void>;
  deleteVersions(prefix: string, entries: readonly ManifestEntry[]): Promise<DeleteOutcome & { requests: number }>;
  assertPrefixEmpty(prefix: string): Promise<void>;
}

/** Time, injectable so control-flow tests run on a manual clock. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    // A pending heartbeat or deadline must not keep a finished process alive.
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** The engine functions the executor calls (EngineClient; fakes in control-flow unit tests). */
export type ExecutorEngine = Pick<
  EngineClient,
  | 'claim' | 'leaseState' | 'verifyToken' | 'verifyStoreIdentity' | 'release' | 'recordFailure' | 'block' | 'beginQuiescing' | 'fence'
  | 'clearKeyChunks' | 'appendKeyChunk' | 'freezeDestructiveManifest' | 'markDrained' | 'nextKeyChunk' | 'stampKeyChunk'
  | 'keyChunkProgress' | 'markBindingsRemoved' | 'purgePostgresBatch' | 'finishPostgresPurge' | 'markCachePurged' | 'verifyPostgresAbsence'
  | 'markLogicallyVerified' | 'markRetentionPending'
>;

export interface ExecutorDeps {
  engine: ExecutorEngine;
  /** A second pool for heartbeats, so a long step's transaction never delays them. */
  heartbeatEngine: Pick<EngineClient, 'heartbeat'>;
  store: ObjectStore;
  cache: Cache;
  /** The stores `store` and `cache` talk to; every step presents it to SQL (verify_store_identity). */
  storeIdentity: StoreIdentity;
  taxonomy: Taxonomy;
  executorId: string;
  mode: ExecutorMode;
  chunkSize: number;
  leaseSeconds: number;
  heartbeatSeconds: number;
  log: (message: string) => void;
  progress?: (label: string, done: number, total?: number) => void;
  /** Called after each named step boundary (e.g. "chunk_deleted:0"); crash tests install one. */
  onBoundary?: (boundary: string) => Promise<void> | void;
  clock?: Clock;
  /**
   * An external effect (one store call, or a listing) that makes no progress
   * for this long is abandoned and fails as a transient StepTimeoutError, so
   * a heartbeat never keeps a hung step alive (default 1 h).
   */
  stepTimeoutMs?: number;
  /**
   * The longest the executor waits for one SQL call's answer (the CLI:
   * answerBoundMs of src/pg-stall.ts, or the step timeout; unset: no client
   * bound). PostgreSQL ends a slow statement itself; this bounds a call whose
   * answer never comes — a stalled network or server — which no server-side
   * timeout can end. An unanswered call gives the lease up (the heartbeat
   * stops, the lease expires for a successor) and the run ends lease_lost.
   */
  sqlDeadlineMs?: number;
  /** Structured events for logs and metrics (src/cli/execute.ts). */
  events?: (event: ExecutorEvent) => void;
}

/** What happened, for logs and metrics; never a decision input. */
export type ExecutorEvent =
  | { event: 'claim'; requestId: string; stage: string; leaseGeneration: string }
  | { event: 'stage_done'; requestId: string; stage: string; ms: number }
  | { event: 'heartbeat'; requestId: string }
  | { event: 'completed'; requestId: string }
  | { event: 'failure'; requestId: string; stage: string; unitKey: string; transient: boolean; blocked: boolean; error: string }
  | { event: 'stopped'; requestId: string; stage: string }
  | { event: 'lease_lost'; requestId: string; stage: string; error: string };

export const DEFAULT_STEP_TIMEOUT_MS = 3_600_000;

/** An external effect made no progress within the step deadline (transient: retried with backoff). */
export class StepTimeoutError extends Error {
  override readonly name = 'StepTimeoutError';
  readonly code = 'step_timeout';
  readonly transient = true;

  constructor(unitKey: string, ms: number) {
    super(`${unitKey} made no progress for ${ms / 1000} s (DELETIONS_STEP_TIMEOUT_SECONDS); abandoned`);
  }
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

export class Executor {
  private readonly shutdown = new AbortController();
  private readonly clock: Clock;
  /** The external effect in flight: aborted when it is abandoned. */
  private effect: AbortController | undefined;
  /** Pushes the current effect's deadline back (progress was made). */
  private touchStep: () => void = () => {};

  constructor(private readonly d: ExecutorDeps) {
    this.clock = d.clock ?? systemClock;
  }

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

  /** The signal of the external effect in flight (S3Store sends every request with it). */
  get effectSignal(): AbortSignal | undefined {
    return this.effect?.signal;
  }

  private emit(event: ExecutorEvent): void {
    try {
      this.d.events?.(event);
    } catch {
      // Observability never changes what the executor does.
    }
  }

  /** Claim (a given request, or the oldest runnable one) and run it to the end or to a failure. */
  async runOnce(requestId?: string): Promise<RunOutcome> {
    const { engine, executorId, leaseSeconds } = this.d;
    // The server computes lease_until from its own now(), not earlier than
    // this moment: a local deadline measured from here never outlives it.
    const sentAt = this.clock.now();
    const claimed = await this.answered('claim', null, () => engine.claim({ executorId, requestId: requestId ?? null, leaseSeconds }));
    if (!claimed) return { kind: 'nothing_claimable' };
    this.d.log(`claimed ${claimed.requestId} at ${claimed.stage} (generation ${claimed.leaseGeneration})`);
    this.emit({ event: 'claim', requestId: claimed.requestId, stage: claimed.stage, leaseGeneration: String(claimed.leaseGeneration) });
    return this.drive(claimed, sentAt);
  }

  private async drive(token: LeaseToken, claimSentAt: number): Promise<RunOutcome> {
    const lease = new AbortController();
    const stopHeartbeat = this.startHeartbeat(token, lease, claimSentAt);
    const timings: StageTiming[] = [];
    let stage = 'unknown';
    try {
      for (;;) {
        const state = await this.answered('lease_state', lease.signal, () => this.d.engine.leaseState(token));
        stage = state.stage;
        if (stage === 'retention_pending') {
          this.d.log(`${token.requestId} is complete (retention_pending)`);
          this.emit({ event: 'completed', requestId: token.requestId });
          return { kind: 'completed', requestId: token.requestId, stages: timings };
        }
        this.checkCancelled(lease.signal);
        const started = Date.now();
        await this.step(token, state.stage, state.fenceGeneration, state.destructiveManifestFrozen, lease.signal);
        timings.push({ stage, ms: Date.now() - started });
        this.emit({ event: 'stage_done', requestId: token.requestId, stage, ms: Date.now() - started });
        await this.d.onBoundary?.(`after:${stage}`);
      }
    } catch (error) {
      return await this.handleFailure(token, stage, error, lease.signal);
    } finally {
      stopHeartbeat();
    }
  }

  /**
   * Renews the lease every heartbeatSeconds, one renewal at a time (the next
   * is scheduled only when the previous settled, so a hung query never piles
   * up renewals), and keeps a local deadline: the lease as of the last
   * renewal that got through, measured from when it was sent. A refused
   * renewal (DL4L1) or a passed deadline — no renewal got through before the
   * lease would expire on the server — loses the lease locally: every
   * external effect in flight is abandoned and none starts.
   */
  private startHeartbeat(token: LeaseToken, lease: AbortController, claimSentAt: number): () => void {
    const { heartbeatEngine, mode, leaseSeconds, heartbeatSeconds, log } = this.d;
    const leaseMs = leaseSeconds * 1000;
    let stopped = false;
    let beatTimer: unknown;
    let deadlineTimer: unknown;
    const lose = (message: string) => {
      if (!lease.signal.aborted) lease.abort(new Cancelled('lease_lost', message));
    };
    const armDeadline = (deadline: number) => {
      if (deadlineTimer !== undefined) this.clock.clearTimeout(deadlineTimer);
      deadlineTimer = this.clock.setTimeout(() => {
        if (!stopped) lose(`no heartbeat got through before the ${leaseSeconds} s lease on ${token.requestId} would have expired`);
      }, Math.max(0, deadline - this.clock.now()));
    };
    const beat = async () => {
      if (stopped || lease.signal.aborted) return;
      const sentAt = this.clock.now();
      try {
        await heartbeatEngine.heartbeat(token, { mode, leaseSeconds, draining: this.shuttingDown });
        if (!stopped) armDeadline(sentAt + leaseMs);
        this.emit({ event: 'heartbeat', requestId: token.requestId });
      } catch (error) {
        if (isStaleLease(error)) {
          log(`lease on ${token.requestId} lost: ${(error as Error).message}`);
          lose((error as Error).message);
        } else {
          // A missed beat is survivable until the deadline; the next beat retries.
          log(`heartbeat failed (will retry): ${(error as Error).message}`);
        }
      }
      if (!stopped && !lease.signal.aborted) beatTimer = this.clock.setTimeout(() => void beat(), heartbeatSeconds * 1000);
    };
    armDeadline(claimSentAt + leaseMs);
    beatTimer = this.clock.setTimeout(() => void beat(), heartbeatSeconds * 1000);
    return () => {
      stopped = true;
      if (beatTimer !== undefined) this.clock.clearTimeout(beatTimer);
      if (deadlineTimer !== undefined) this.clock.clearTimeout(deadlineTimer);
    };
  }

  private checkCancelled(lease: AbortSignal): void {
    if (lease.aborted) throw lease.reason instanceof Cancelled ? lease.reason : new Cancelled('lease_lost', 'lease lost');
    if (this.shutdown.signal.aborted) throw new Cancelled('shutdown', 'shutdown requested');
  }

  /**
   * Runs an external effect. A lost lease abandons it at once (another
   * executor may own the request now; nothing this one does can be
   * reported), and so does a shutdown (SIGTERM/SIGINT: the run stops within
   * a bounded time) and a step deadline (no progress for stepTimeoutMs: a
   * transient StepTimeoutError). Abandoning aborts the effect's S3 request
   * (effectSignal); a Redis command in flight ends by its own timeout. Every
   * effect is idempotent against the frozen manifest (explicit versions,
   * namespace UNLINK, PUBLISH), so one still reaching a store after the
   * lease is released changes nothing the next claim does not redo.
   */
  private async external<T>(lease: AbortSignal, unitKey: string, effect: () => Promise<T>): Promise<T> {
    this.checkCancelled(lease);
    const controller = new AbortController();
    this.effect = controller;
    const stepMs = this.d.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
    let cleanup = () => {};
    const abandoned = new Promise<never>((_, reject) => {
      let timer: unknown;
      const arm = () => {
        if (timer !== undefined) this.clock.clearTimeout(timer);
        timer = this.clock.setTimeout(() => reject(new StepError(unitKey, new StepTimeoutError(unitKey, stepMs))), stepMs);
      };
      const onLease = () => reject(lease.reason instanceof Cancelled ? lease.reason : new Cancelled('lease_lost', 'lease lost'));
      const onShutdown = () => reject(new Cancelled('shutdown', `shutdown requested during ${unitKey}`));
      lease.addEventListener('abort', onLease, { once: true });
      this.shutdown.signal.addEventListener('abort', onShutdown, { once: true });
      this.touchStep = arm;
      arm();
      cleanup = () => {
        if (timer !== undefined) this.clock.clearTimeout(timer);
        lease.removeEventListener('abort', onLease);
        this.shutdown.signal.removeEventListener('abort', onShutdown);
      };
    });
    try {
      return await Promise.race([effect(), abandoned]);
    } catch (error) {
      if (error instanceof Cancelled || error instanceof StepError) throw error;
      throw new StepError(unitKey, error);
    } finally {
      cleanup();
      this.touchStep = () => {};
      // Cuts off a request still in flight (a no-op once it has settled).
      controller.abort(new Error(`${unitKey} abandoned`));
      if (this.effect === controller) this.effect = undefined;
    }
  }

  /** A SQL report; SQL errors keep their SQLSTATE, wrapped with the unit they belong to. */
  private async report<T>(unitKey: string, lease: AbortSignal, query: () => Promise<T>): Promise<T> {
    this.checkCancelled(lease);
    try {
      return await this.answered(unitKey, lease, query);
    } catch (error) {
      if (error instanceof Cancelled || error instanceof PostgresStalledError) throw error;
      throw new StepError(unitKey, error);
    }
  }

  /**
   * Waits for one SQL call's answer, but not past a lost lease (the local
   * deadline passed: no heartbeat got through, so PostgreSQL is not answering
   * the heartbeat's connection either) nor past sqlDeadlineMs. The call is
   * then abandoned — its outcome unknown, which is safe: every engine call
   * verifies the lease in SQL, and a successor reads where things stand from
   * the rows — and the run ends lease_lost. A shutdown does not abandon SQL
   * calls (each is bounded by statement_timeout): the run stops after it.
   */
  private async answered<T>(unitKey: string, lease: AbortSignal | null, query: () => Promise<T>): Promise<T> {
    const pending = query();
    let timer: unknown;
    let detach = () => {};
    const given = new Promise<never>((_, reject) => {
      if (lease) {
        const onLease = () => reject(lease.reason instanceof Cancelled ? lease.reason : new Cancelled('lease_lost', 'lease lost'));
        if (lease.aborted) onLease();
        else {
          lease.addEventListener('abort', onLease, { once: true });
          detach = () => lease.removeEventListener('abort', onLease);
        }
      }
      const ms = this.d.sqlDeadlineMs;
      if (ms !== undefined && ms > 0) timer = this.clock.setTimeout(() => reject(new PostgresStalledError(unitKey, ms)), ms);
    });
    try {
      return await Promise.race([pending, given]);
    } finally {
      detach();
      if (timer !== undefined) this.clock.clearTimeout(timer);
      // An abandoned call may still settle (or fail) later: nobody waits for it.
      pending.catch(() => undefined);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.clock.setTimeout(resolve, ms));
  }

  /**
   * Waits ms on the clock between two units of work, cut short by a lost
   * lease or a shutdown request (then Cancelled, as at any boundary).
   */
  private async rest(lease: AbortSignal, ms: number): Promise<void> {
    this.checkCancelled(lease);
    let timer: unknown;
    let wake = () => {};
    await new Promise<void>((resolve) => {
      wake = () => resolve();
      timer = this.clock.setTimeout(wake, ms);
      lease.addEventListener('abort', wake, { once: true });
      this.shutdown.signal.addEventListener('abort', wake, { once: true });
    });
    this.clock.clearTimeout(timer);
    lease.removeEventListener('abort', wake);
    this.shutdown.signal.removeEventListener('abort', wake);
    this.checkCancelled(lease);
  }

  private async step(token: LeaseToken, stage: Stage, fenceGeneration: string | null, destructiveFrozen: boolean, lease: AbortSignal): Promise<void> {
    const { engine, store, cache, taxonomy } = this.d;
    const prefixes = taxonomy.ownedPrefixes(token.communityId);
    const fenced = (): string => {
      if (fenceGeneration === null) throw new StepError(`stage:${stage}`, new Error(`request ${token.requestId} at ${stage} has no fence generation`));
      return fenceGeneration;
    };
    await this.report('verify_token', lease, () => engine.verifyToken(token, stage));
    // Before any effect of the step (the first one right after the claim):
    // these must be the stores the request was inventoried against. Another
    // store is store_mismatch (DL4S1, permanent): the request is blocked
    // before anything irreversible — no object or key deleted, no tombstone.
    await this.report('verify_store_identity', lease, () => engine.verifyStoreIdentity(token, this.d.storeIdentity));
    switch (stage) {
      case 'approved': {
        await this.external(lease, 'storage_preflight', () => store.preflight(prefixes));
        await this.report('quiesce_serving_writes', lease, () => engine.beginQuiescing(token));
        // Admitted serving leases finish within their own lease (capped while
        // quiescing); wait for them here (retryable "not drained") rather than
        // burning retry attempts.
        const deadline = this.clock.now() + this.d.leaseSeconds * 1000;
        for (;;) {
          try {
            await this.answered('activate_fence', lease, () => engine.fence(token));
            break;
          } catch (error) {
            if (sqlStateOf(error) !== 'DL5D1' || this.clock.now() > deadline) throw new StepError('activate_fence', error);
            this.d.log(`waiting for serving writes to drain: ${(error as Error).message}`);
            await this.sleep(500);
            this.checkCancelled(lease);
          }
        }
        return;
      }
      case 'fenced': {
        const fg = fenced();
        await this.external(lease, 'disconnect_published', () => cache.publishDisconnect(token.communityId));
        if (!destructiveFrozen) {
          await this.report('clear_key_chunks', lease, () => engine.clearKeyChunks(token, fg));
          const summary = await this.external(lease, 'enumerate_storage', () =>
            enumerateOwnedStorage(store, taxonomy, token.communityId, {
              chunkSize: this.d.chunkSize,
              onEntry: (prefix, n) => {
                this.touchStep();
                this.d.progress?.(`enumerating ${prefix}`, n);
              },
              onChunk: async (chunk) => {
                this.checkCancelled(lease);
                await engine.appendKeyChunk(token, fg, { chunkNo: chunk.chunk_no, prefix: chunk.prefix, entries: chunk.entries });
              },
            }),
          );
          await this.report('freeze_destructive_manifest', lease, () => engine.freezeDestructiveManifest(token, fg, summary));
          await this.d.onBoundary?.('destructive_manifest_frozen');
        }
        await this.report('serving_writes_drained', lease, () => engine.markDrained(token, fg));
        return;
      }
      case 'drained': {
        const fg = fenced();
        let deleted = 0;
        let alreadyMissing = 0;
        let chunks = 0;
        for (;;) {
          const chunk = await this.report('next_key_chunk', lease, () => engine.nextKeyChunk(token, fg));
          if (!chunk) break;
          const unit = `chunk:${chunk.chunkNo}`;
          // One bulk request (≤1000 versions) at a time, each preceded by a
          // token check in SQL: an executor that lost its lease mid-chunk
          // stops before its next irreversible request, not at the chunk end.
          const outcome = { deleted: 0, alreadyMissing: 0, requests: 0 };
          for (let start = 0; start < chunk.entries.length; start += MAX_DELETE_BATCH) {
            const batch = chunk.entries.slice(start, start + MAX_DELETE_BATCH);
            await this.report(unit, lease, () => engine.verifyToken(token, stage));
            const part = await this.external(lease, unit, () => store.deleteVersions(chunk.prefix, batch));
            outcome.deleted += part.deleted;
            outcome.alreadyMissing += part.alreadyMissing;
            outcome.requests += part.requests;
          }
          await this.d.onBoundary?.(`chunk_deleted:${chunk.chunkNo}`);
          await this.report(unit, lease, () =>
            engine.stampKeyChunk(token, fg, chunk.chunkNo, { deleted: outcome.deleted, already_missing: outcome.alreadyMissing, requests: outcome.requests }));
          deleted += outcome.deleted;
          alreadyMissing += outcome.alreadyMissing;
          chunks += 1;
          const p = await this.answered(unit, lease, () => engine.keyChunkProgress(token.requestId));
          this.d.progress?.('deleting object versions', p.entriesDeleted, p.entriesTotal);
        }
        await this.report('remove_storage_bindings', lease, () =>
          engine.markBindingsRemoved(token, fg, { chunks_this_run: chunks, deleted, already_missing: alreadyMissing }));
        return;
      }
      case 'bindings_removed': {
        const fg = fenced();
        // Bounded batches, each its own transaction that verifies the token
        // and fence generation and checkpoints its tables' running totals: a
        // crash loses at most one batch, a migration waits for at most one,
        // and a lost lease or a shutdown stops between two.
        for (let batch = 0; ; batch++) {
          const result = await this.report('purge_postgres_batch', lease, () => engine.purgePostgresBatch(token, fg));
          this.d.progress?.('purging PostgreSQL rows', result.purgedRows, result.inventoriedRows);
          if (result.done) break;
          await this.d.onBoundary?.(`purge_batch:${batch}`);
          // The throttle (settings.purge_batch_rest_ratio): SQL says how long
          // to rest; nothing is held meanwhile but the lease, still renewed.
          if (result.restMs > 0) await this.rest(lease, result.restMs);
        }
        await this.report('finish_postgres_purge', lease, () => engine.finishPostgresPurge(token, fg));
        return;
      }
      case 'postgres_purged': {
        const fg = fenced();
        const unlinked = await this.external(lease, 'purge_cache_namespace', () => cache.purgeNamespace(token.communityId));
        await this.report('purge_cache_namespace', lease, () => engine.markCachePurged(token, fg, { unlinked }));
        return;
      }
      case 'cache_purged': {
        const fg = fenced();
        await this.report('verify_postgres_absence', lease, () => engine.verifyPostgresAbsence(token, fg));
        for (const prefix of prefixes) await this.external(lease, `verify_storage_absence:${prefix}`, () => store.assertPrefixEmpty(prefix));
        await this.external(lease, 'verify_cache_absence', () => cache.verifyAbsence(token.communityId));
        await this.report('verify_cross_store_absence', lease, () =>
          engine.markLogicallyVerified(token, fg, { postgres: 'absent', storage_prefixes_empty: prefixes, redis_scans_empty: 2 }));
        return;
      }
      case 'logically_verified': {
        const fg = fenced();
        await this.report('retention_physical_expiry_pending', lease, () =>
          engine.markRetentionPending(token, fg, { executor: token.executorId }));
        return;
      }
      default:
        // Not runnable (SQL would have refused the claim) or a stage this driver does not know.
        throw new StepError(`unknown_stage:${stage}`, new Error(`the driver has no step for stage ${stage}`));
    }
  }

  private async handleFailure(token: LeaseToken, stage: string, error: unknown, lease: AbortSignal): Promise<RunOutcome> {
    const { engine } = this.d;
    const cause = error instanceof StepError ? error.cause : error;
    const unitKey = error instanceof StepError ? error.unitKey : `stage:${stage}`;
    if (error instanceof Cancelled && error.reason === 'shutdown') {
      // Clean shutdown: give the lease back without recording a failure.
      await this.answered('release', null, () => engine.release(token)).catch(() => false);
      this.d.log(`released ${token.requestId} at ${stage} for shutdown`);
      this.emit({ event: 'stopped', requestId: token.requestId, stage });
      return { kind: 'stopped', requestId: token.requestId, stage };
    }
    if ((error instanceof Cancelled && error.reason === 'lease_lost') || isStaleLease(cause) || lease.aborted
        || cause instanceof PostgresStalledError) {
      const message = cause instanceof Error ? cause.message : String(cause);
      this.d.log(`lost the lease on ${token.requestId} at ${stage}; stopping without further effects: ${message}`);
      this.emit({ event: 'lease_lost', requestId: token.requestId, stage, error: message });
      return { kind: 'lease_lost', requestId: token.requestId, stage, error: message };
    }
    const message = describe(cause);
    const retryable = classifyFailure(cause).transient;
    try {
      if (retryable) {
        const result = await this.answered('record_failure', lease, () => engine.recordFailure(token, { stage: stage as Stage, unitKey, error: message }));
        this.d.log(`${token.requestId} ${stage}/${unitKey} failed (transient${result.blocked ? ', now blocked' : ''}): ${message}`);
        this.emit({ event: 'failure', requestId: token.requestId, stage, unitKey, transient: true, blocked: result.blocked, error: message });
        return {
          kind: 'failure_recorded', requestId: token.requestId, stage, blocked: result.blocked, error: message, retryable,
          ...(result.next_attempt_at === undefined ? {} : { nextAttemptAt: result.next_attempt_at }),
        };
      }
      await this.answered('block', lease, () => engine.block(token, { stage: stage as Stage, unitKey, error: message }));
      this.d.log(`${token.requestId} ${stage}/${unitKey} failed permanently, blocked: ${message}`);
      this.emit({ event: 'failure', requestId: token.requestId, stage, unitKey, transient: false, blocked: true, error: message });
      return { kind: 'failure_recorded', requestId: token.requestId, stage, blocked: true, error: message, retryable };
    } catch (reportError) {
      if (isStaleLease(reportError)) return { kind: 'lease_lost', requestId: token.requestId, stage, error: message };
      // PostgreSQL stopped answering (or the lease was lost) while the
      // failure was being recorded: nothing more can be said through it.
      if (reportError instanceof PostgresStalledError || reportError instanceof Cancelled) {
        this.d.log(`could not record the failure of ${token.requestId} at ${stage}; giving the lease up: ${reportError.message}`);
        return { kind: 'lease_lost', requestId: token.requestId, stage, error: `${message}; then ${reportError.message}` };
      }
      throw reportError;
    }
  }
}

function describe(error: unknown): string {
  const code = sqlStateOf(error);
  const storage = error instanceof StorageError ? error.code : undefined;
  const other = (error as { code?: unknown } | null)?.code;
  const base = error instanceof Error ? error.message : String(error);
  return code ? `[${code}] ${base}` : storage ? `[${storage}] ${base}` : typeof other === 'string' ? `[${other}] ${base}` : base;
}

/** Polls for work with capped exponential backoff until shutdown (worker/drain). */
export async function pollLoop(
  executor: Executor,
  options: { untilEmpty: boolean; idleMinMs?: number; idleMaxMs?: number; log: (m: string) => void; onIdle?: () => void },
): Promise<RunOutcome[]> {
  const outcomes: RunOutcome[] = [];
  let idle = options.idleMinMs ?? 1000;
  while (!executor.shuttingDown) {
    const outcome = await executor.runOnce();
    if (outcome.kind === 'nothing_claimable') {
      if (options.untilEmpty) break;
      options.onIdle?.();
      // Interrupted by SIGTERM/SIGINT: an idle worker stops at once.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, idle + Math.floor(Math.random() * 250));
        executor.shutdownSignal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        }, { once: true });
      });
      idle = Math.min(idle * 2, options.idleMaxMs ?? 30_000);
      continue;
    }
    idle = options.idleMinMs ?? 1000;
    outcomes.push(outcome);
  }
  return outcomes;
}
