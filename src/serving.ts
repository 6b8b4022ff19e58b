// Serving-side library for the host application (docs/design.md#serving-path): hold a heartbeated
// serving-write lease around an external side effect (S3 upload, git push, push
// notification…), cancel the effect when the lease is lost, verify before an
// irreversible call, guard the final database write, release when done.
//
// Every rule lives in the serving-lease SQL functions (src/engine.ts calls
// them); this module only sequences them and turns their SQLSTATEs into typed
// errors. Lease style as in
// River/graphile-worker: renew only the exact token we hold (id, owner,
// generation, fence generation); a refusal means "lease lost, stop now".
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type postgres from 'postgres';
import type { Sql } from './db.js';
import { EngineClient, type ServingLeaseRef, type ServingLeaseRow } from './engine.js';
import { isRetryableSqlState, sqlStateOf } from './errors.js';

/** SQLSTATE serving_lease_denied (docs/sqlstates.md). */
const SERVING_LEASE_DENIED = 'DL5S1';
/** SQLSTATE community_write_fenced (docs/sqlstates.md). */
const COMMUNITY_WRITE_FENCED = '55000';

export type TransactionSql = postgres.TransactionSql;

/** Why a lease stopped protecting its holder. */
export type ServingLeaseLostReason =
  /** PostgreSQL refused the exact lease (DL5S1): expired, released, reaped, or the community moved on. */
  | 'refused'
  /** No renewal succeeded before the lease's expiry (database unreachable or stalled). */
  | 'expired'
  /** A renewal failed with an error that cannot succeed on retry. */
  | 'renewal_failed'
  /** The holder released it (finish / dispose). */
  | 'released';

/** The community does not admit a new serving-write lease (DL5S1 at acquisition). */
export class ServingLeaseDeniedError extends Error {
  readonly code = SERVING_LEASE_DENIED;

  constructor(
    readonly communityId: string,
    readonly operation: string,
    options: { cause: unknown },
  ) {
    super(`serving-write lease for ${operation} on community ${communityId} was refused: ${messageOf(options.cause)}`, options);
    this.name = 'ServingLeaseDeniedError';
  }
}

/**
 * The lease no longer protects the holder: stop the effect, do not perform the
 * irreversible call, do not commit the write. Carries code DL5S1 so
 * `sqlStateOf` classifies it like the database refusal it stands for.
 */
export class ServingLeaseLostError extends Error {
  readonly code = SERVING_LEASE_DENIED;

  constructor(
    readonly leaseId: string,
    readonly reason: ServingLeaseLostReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`serving-write lease ${leaseId} lost (${reason}): ${message}`, options);
    this.name = 'ServingLeaseLostError';
  }
}

/** Whether the error is a write refused by the write fence (55000), by code. */
export function isCommunityWriteRefused(error: unknown): boolean {
  return sqlStateOf(error) === COMMUNITY_WRITE_FENCED;
}

export interface AcquireServingLeaseOptions {
  communityId: string;
  /** What the effect is (e.g. "media_upload"); shown to operators while the fence waits. */
  operation: string;
  /** Holder identity; defaults to host:pid:random. */
  owner?: string;
  /** Server-side lease length (integer seconds, 1..3600). Default 60. */
  leaseSeconds?: number;
  /** Heartbeat period; must be shorter than the lease. Default 10. */
  renewEverySeconds?: number;
  /**
   * Pool for the heartbeat (defaults to `sql`). A separate pool keeps renewals
   * flowing while the host's own pool is saturated by long transactions.
   */
  heartbeatSql?: Sql;
}

/**
 * Acquires a serving-write lease on an active community and starts renewing it
 * in the background. Throws ServingLeaseDeniedError when the community is
 * quiescing, fenced or tombstoned; other SQL errors (e.g. DL1N2 unknown
 * community, DL1I1 bad arguments) are rethrown unchanged.
 */
export async function acquireServingLease(sql: Sql, options: AcquireServingLeaseOptions): Promise<ServingLease> {
  const leaseSeconds = options.leaseSeconds ?? 60;
  const renewEverySeconds = options.renewEverySeconds ?? 10;
  if (!Number.isInteger(leaseSeconds)) throw new RangeError(`leaseSeconds must be an integer, got ${leaseSeconds}`);
  if (!(renewEverySeconds > 0 && renewEverySeconds < leaseSeconds)) {
    throw new RangeError(`renewEverySeconds must be > 0 and < leaseSeconds (${leaseSeconds}), got ${renewEverySeconds}`);
  }
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  // The server computes lease_until from its own now(), which is not earlier
  // than this moment: a local deadline measured from here never outlives it.
  const sentAt = performance.now();
  let row: ServingLeaseRow;
  try {
    row = await readCommitted(sql, (tx) =>
      new EngineClient(tx).acquireServingLease({ communityId: options.communityId, operation: options.operation, owner, leaseSeconds }));
  } catch (error) {
    if (sqlStateOf(error) === SERVING_LEASE_DENIED) {
      throw new ServingLeaseDeniedError(options.communityId, options.operation, { cause: error });
    }
    throw error;
  }
  return new ServingLease(sql, options.heartbeatSql ?? sql, row, leaseSeconds, renewEverySeconds, sentAt);
}

/**
 * A write transaction for ordinary writes (no lease): READ COMMITTED, and
 * assert_community_write_allowed first so a write to a quiescing/fenced/
 * tombstoned community fails (55000) before any work. The write-fence trigger
 * enforces the same decision on every row regardless.
 */
export async function guardedWrite<T>(sql: Sql, communityId: string, fn: (tx: TransactionSql) => Promise<T>): Promise<T> {
  return readCommitted(sql, async (tx) => {
    await new EngineClient(tx).assertCommunityWriteAllowed(communityId);
    return fn(tx);
  });
}

export class ServingLease implements AsyncDisposable {
  readonly id: string;
  readonly communityId: string;
  readonly operation: string;
  readonly owner: string;
  /** Lease generation (int8 as text, as postgres.js returns it). */
  readonly generation: string;
  /** The community fence generation the lease was admitted at (int8 as text). */
  readonly fenceGeneration: string;

  private readonly controller = new AbortController();
  private readonly leaseMs: number;
  private readonly renewEveryMs: number;
  private state: 'held' | 'lost' | 'released' = 'held';
  private lostError: ServingLeaseLostError | undefined;
  private until: Date;
  /** performance.now() by which the server-side lease has certainly expired unless renewed. */
  private deadline: number;
  private renewTimer: NodeJS.Timeout | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  private finishing: Promise<boolean> | undefined;

  /** Use acquireServingLease. */
  constructor(
    private readonly sql: Sql,
    private readonly heartbeatSql: Sql,
    row: ServingLeaseRow,
    leaseSeconds: number,
    renewEverySeconds: number,
    acquiredAt: number,
  ) {
    this.id = row.id;
    this.communityId = row.community_id;
    this.operation = row.operation;
    this.owner = row.owner;
    this.generation = String(row.generation);
    this.fenceGeneration = String(row.fence_generation);
    this.until = row.lease_until;
    this.leaseMs = leaseSeconds * 1000;
    this.renewEveryMs = renewEverySeconds * 1000;
    this.deadline = acquiredAt + this.leaseMs;
    this.armExpiry();
    this.scheduleRenewal(this.renewEveryMs);
  }

  /** Aborts (with a ServingLeaseLostError as reason) when the lease is lost or released. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** 'held' while the lease protects the holder; 'lost' or 'released' afterwards. */
  get status(): 'held' | 'lost' | 'released' {
    return this.state;
  }

  /** Server-side expiry as of the last successful acquisition/renewal. */
  get leaseUntil(): Date {
    return this.until;
  }

  /**
   * Checks with PostgreSQL that this exact lease is still honoured; call right
   * before an irreversible external call. Throws ServingLeaseLostError (and
   * marks the lease lost) when it is not.
   */
  async verify(): Promise<void> {
    this.throwIfNotHeld();
    try {
      await readCommitted(this.sql, (tx) => new EngineClient(tx).verifyServingLease(this.ref));
    } catch (error) {
      throw this.refusedBy(error);
    }
    this.throwIfNotHeld();
  }

  /**
   * Runs an external effect under the lease. The effect receives a signal that
   * aborts when the lease is lost; the returned promise rejects with
   * ServingLeaseLostError as soon as that happens, whether or not the effect
   * honours the signal. The lease is verified before the effect starts and
   * again after it resolves (an effect that completed after the lease lapsed
   * was not protected, so it is reported as lost).
   */
  async protect<T>(effect: (signal: AbortSignal) => Promise<T>): Promise<T> {
    await this.verify();
    const signal = this.controller.signal;
    if (signal.aborted) throw this.currentLostError();
    let onAbort: (() => void) | undefined;
    const lost = new Promise<never>((_, reject) => {
      onAbort = () => reject(this.currentLostError());
      signal.addEventListener('abort', onAbort, { once: true });
    });
    let value: T;
    try {
      // The race settles on loss even if the effect never looks at its signal.
      value = await Promise.race([(async () => effect(signal))(), lost]);
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
    await this.verify();
    return value;
  }

  /**
   * A write transaction authorised by the lease: READ COMMITTED,
   * community_deletion.guard_serving_write first (so the write is admitted while the
   * community is quiescing), then fn(tx). A stale lease throws
   * ServingLeaseLostError and nothing is written.
   */
  async writeTransaction<T>(fn: (tx: TransactionSql) => Promise<T>): Promise<T> {
    this.throwIfNotHeld();
    return readCommitted(this.sql, async (tx) => {
      try {
        await new EngineClient(tx).guardServingWrite(this.ref);
      } catch (error) {
        throw this.refusedBy(error);
      }
      return fn(tx);
    });
  }

  /**
   * Stops renewing and releases the lease so the fence need not wait for its
   * expiry. Idempotent: later calls return the first call's result. Resolves
   * true when this released a lease row still held, false when the lease was
   * already gone (lost, expired, reaped). A database error rejects and leaves
   * the release retryable (the lease expires on its own anyway).
   */
  finish(): Promise<boolean> {
    if (!this.finishing) {
      this.stopTimers();
      if (this.state === 'held') {
        this.state = 'released';
        this.lostError = new ServingLeaseLostError(this.id, 'released', 'the holder released the lease');
        this.controller.abort(this.lostError);
      } else {
        this.state = 'released';
      }
      this.finishing = this.release().catch((error: unknown) => {
        this.finishing = undefined;
        throw error;
      });
    }
    return this.finishing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.finish();
  }

  private async release(): Promise<boolean> {
    return new EngineClient(this.sql).releaseServingLease(this.ref);
  }

  /** The exact lease this holder presents to every serving-lease function. */
  private get ref(): ServingLeaseRef {
    return { id: this.id, owner: this.owner, generation: this.generation, fenceGeneration: this.fenceGeneration };
  }

  private scheduleRenewal(delayMs: number): void {
    this.renewTimer = setTimeout(() => void this.renew(), delayMs);
    // An abandoned lease must not keep the process alive; it simply expires.
    this.renewTimer.unref();
  }

  private armExpiry(): void {
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    const remaining = Math.max(0, this.deadline - performance.now());
    this.expiryTimer = setTimeout(() => {
      if (this.state !== 'held') return;
      if (performance.now() >= this.deadline) {
        this.markLost('expired', `no renewal succeeded within the ${this.leaseMs / 1000} s lease`);
      } else {
        // Timers may fire a little before performance.now() reaches the
        // deadline; re-arm rather than silently keeping a dead lease.
        this.armExpiry();
      }
    }, remaining);
    this.expiryTimer.unref();
  }

  private async renew(): Promise<void> {
    this.renewTimer = undefined;
    if (this.state !== 'held') return;
    const sentAt = performance.now();
    try {
      const until = await readCommitted(this.heartbeatSql, (tx) => new EngineClient(tx).renewServingLease(this.ref, this.leaseMs / 1000));
      if (this.state !== 'held') return;
      if (until) this.until = until;
      this.deadline = sentAt + this.leaseMs;
      this.armExpiry();
      this.scheduleRenewal(this.renewEveryMs);
    } catch (error) {
      if (this.state !== 'held') return;
      const code = sqlStateOf(error);
      if (code === SERVING_LEASE_DENIED) {
        this.markLost('refused', 'PostgreSQL refused the renewal', error);
      } else if (code !== undefined && !isRetryableSqlState(code)) {
        this.markLost('renewal_failed', `renewal failed with SQLSTATE ${code}`, error);
      } else if (performance.now() >= this.deadline) {
        this.markLost('expired', `renewal failed past the lease expiry: ${messageOf(error)}`, error);
      } else {
        // Transient (connection, serialization…): retry while the lease still
        // stands; the expiry timer ends it if no retry gets through.
        this.scheduleRenewal(Math.min(this.renewEveryMs, 1000));
      }
    }
  }

  /** Maps a refusal (DL5S1) to ServingLeaseLostError and marks the lease lost; other errors pass through. */
  private refusedBy(error: unknown): unknown {
    if (error instanceof ServingLeaseLostError) return error;
    if (sqlStateOf(error) !== SERVING_LEASE_DENIED) return error;
    if (this.state === 'held') this.markLost('refused', 'PostgreSQL no longer honours the lease', error);
    return this.currentLostError();
  }

  private markLost(reason: ServingLeaseLostReason, message: string, cause?: unknown): void {
    if (this.state !== 'held') return;
    this.state = 'lost';
    this.stopTimers();
    this.lostError = new ServingLeaseLostError(this.id, reason, message, cause === undefined ? undefined : { cause });
    // Deliberately no release here: the effect may still be running remotely;
    // the row expires on its own and finish() releases once the holder is done.
    this.controller.abort(this.lostError);
  }

  private currentLostError(): ServingLeaseLostError {
    return this.lostError ?? new ServingLeaseLostError(this.id, 'released', 'the lease is not held');
  }

  private throwIfNotHeld(): void {
    if (this.state !== 'held') throw this.currentLostError();
  }

  private stopTimers(): void {
    if (this.renewTimer) clearTimeout(this.renewTimer);
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.renewTimer = undefined;
    this.expiryTimer = undefined;
  }
}

/** Runs fn in a READ COMMITTED transaction (the serving functions refuse other levels with 25000). */
async function readCommitted<T>(sql: Sql, fn: (tx: TransactionSql) => Promise<T>): Promise<T> {
  return (await sql.begin('isolation level read committed', fn)) as T;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
