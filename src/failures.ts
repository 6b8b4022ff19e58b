// Whether a failed step may succeed on a later attempt, decided by the
// client's error types and codes — never by message text. One table per
// client; each adapter turns its client's errors into a typed error first
// (s3.ts: StorageError, redis.ts: CacheError), and this module combines them
// with PostgreSQL's (the SQLSTATE registry, src/errors.ts) and postgres.js's
// own connection errors. Transient failures go through the recorded retry and
// backoff path (record_failure) and become a durable block only after
// settings.max_consecutive_failures; permanent ones block at once. Anything
// unrecognised is permanent: fail closed, an operator looks.
import { isRetryableSqlState, sqlStateOf } from './errors.js';

/** Socket-level errno codes (Node): the network, not the request, failed. */
export const NETWORK_ERRNO = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'ESOCKETTIMEDOUT',
]);

/**
 * postgres.js's own errors (not from the server): the connection went away or
 * could not be made in time — transient; the rest are programming or
 * protocol errors — permanent.
 */
export const POSTGRES_JS_CODES: Readonly<Record<string, 'transient' | 'permanent'>> = {
  CONNECTION_CLOSED: 'transient',
  CONNECTION_ENDED: 'transient',
  CONNECTION_DESTROYED: 'transient',
  CONNECT_TIMEOUT: 'transient',
  MAX_PARAMETERS_EXCEEDED: 'permanent',
  SASL_SIGNATURE_MISMATCH: 'permanent',
  AUTH_TYPE_NOT_IMPLEMENTED: 'permanent',
  MESSAGE_NOT_SUPPORTED: 'permanent',
  NOT_TAGGED_CALL: 'permanent',
  UNDEFINED_VALUE: 'permanent',
};

export interface Classification {
  transient: boolean;
  /** Which table decided: sqlstate, postgres.js, storage, cache, errno, typed, unknown. */
  source: string;
  /** The code the decision was made on. */
  code: string;
}

/** A typed error of this project that says itself whether it is transient. */
interface SelfClassified {
  readonly transient: boolean;
  readonly code: string;
}

function isSelfClassified(error: unknown): error is SelfClassified {
  return typeof error === 'object' && error !== null && typeof (error as SelfClassified).transient === 'boolean'
    && typeof (error as SelfClassified).code === 'string';
}

export function classifyFailure(error: unknown): Classification {
  if (isSelfClassified(error)) return { transient: error.transient, source: 'typed', code: error.code };
  // Client-side codes first: a socket errno such as EPIPE is also five
  // capitals and would otherwise pass for an (unknown, permanent) SQLSTATE.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    const verdict = POSTGRES_JS_CODES[code];
    if (verdict !== undefined) return { transient: verdict === 'transient', source: 'postgres.js', code };
    if (NETWORK_ERRNO.has(code)) return { transient: true, source: 'errno', code };
  }
  const sqlstate = sqlStateOf(error);
  if (sqlstate !== undefined) return { transient: isRetryableSqlState(sqlstate), source: 'sqlstate', code: sqlstate };
  return { transient: false, source: 'unknown', code: typeof code === 'string' ? code : 'none' };
}

/** Transient by type or code; everything else is permanent (fail closed). */
export function isTransient(error: unknown): boolean {
  return classifyFailure(error).transient;
}
