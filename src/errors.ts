// The project's SQLSTATE registry, mirrored from docs/sqlstates.md (a test
// keeps the two equal and checks every code raised in db/functions is here).
// Classification is by code only — never by message text.

export type Retry = 'retryable' | 'permanent';

export interface SqlStateInfo {
  readonly name: string;
  readonly code: string;
  readonly retry: Retry;
}

export const SQLSTATES = [
  { name: 'request_not_found', code: 'DL1N1', retry: 'permanent' },
  { name: 'community_not_found', code: 'DL1N2', retry: 'permanent' },
  { name: 'invalid_argument', code: 'DL1I1', retry: 'permanent' },
  { name: 'invalid_manifest', code: 'DL1M1', retry: 'permanent' },
  { name: 'wrong_stage', code: 'DL2S1', retry: 'permanent' },
  { name: 'request_blocked', code: 'DL2B1', retry: 'permanent' },
  { name: 'request_not_blocked', code: 'DL2B2', retry: 'permanent' },
  { name: 'request_terminal', code: 'DL2T1', retry: 'permanent' },
  { name: 'community_not_eligible', code: 'DL2C1', retry: 'permanent' },
  { name: 'request_exists', code: 'DL2C2', retry: 'permanent' },
  { name: 'self_approval', code: 'DL3A1', retry: 'permanent' },
  { name: 'digest_mismatch', code: 'DL3A2', retry: 'permanent' },
  { name: 'not_the_requester', code: 'DL3A3', retry: 'permanent' },
  { name: 'stale_lease', code: 'DL4L1', retry: 'permanent' },
  { name: 'lease_held', code: 'DL4L2', retry: 'retryable' },
  { name: 'store_mismatch', code: 'DL4S1', retry: 'permanent' },
  { name: 'serving_not_drained', code: 'DL5D1', retry: 'retryable' },
  { name: 'serving_lease_denied', code: 'DL5S1', retry: 'permanent' },
  { name: 'frozen_row', code: 'DL6F1', retry: 'permanent' },
  { name: 'manifest_mismatch', code: 'DL6K1', retry: 'permanent' },
  { name: 'chunks_pending', code: 'DL6K2', retry: 'retryable' },
  { name: 'purge_pending', code: 'DL6P1', retry: 'retryable' },
  { name: 'catalog_drift', code: 'DL7C1', retry: 'permanent' },
  { name: 'protected_table_ddl', code: 'DL7C2', retry: 'permanent' },
  { name: 'tombstone_protected', code: 'DL8T1', retry: 'permanent' },
  { name: 'host_reserved', code: 'DL8T2', retry: 'permanent' },
  { name: 'read_state_guard', code: 'DL8G1', retry: 'permanent' },
  { name: 'absence_not_proven', code: 'DL9A1', retry: 'permanent' },
  { name: 'community_write_fenced', code: '55000', retry: 'permanent' },
  { name: 'isolation_not_supported', code: '25000', retry: 'permanent' },
  { name: 'lock_not_available', code: '55P03', retry: 'retryable' },
  { name: 'insufficient_privilege', code: '42501', retry: 'permanent' },
  { name: 'check_violation', code: '23514', retry: 'permanent' },
] as const satisfies readonly SqlStateInfo[];

export type SqlStateName = (typeof SQLSTATES)[number]['name'];

const byCode = new Map<string, SqlStateInfo>(SQLSTATES.map((s) => [s.code, s]));

/**
 * Standard SQLSTATEs (or classes) that are worth retrying with backoff:
 * serialization/deadlock, lock_not_available, the server shutting down or
 * starting, and the timeouts the CLI sets on its sessions (src/db.ts):
 * statement_timeout (57014 query_canceled), idle_in_transaction_session_timeout
 * (25P03) and idle_session_timeout (57P05).
 */
const RETRYABLE_STANDARD = new Set(['40001', '40P01', '55P03', '57P01', '57P02', '57P03', '57014', '25P03', '57P05']);
const RETRYABLE_CLASSES = new Set(['08', '53']);

export function sqlStateInfo(code: string | undefined): SqlStateInfo | undefined {
  return code === undefined ? undefined : byCode.get(code);
}

/** Whether a failure with this SQLSTATE may succeed on a later attempt. */
export function isRetryableSqlState(code: string | undefined): boolean {
  if (code === undefined) return false;
  const info = byCode.get(code);
  if (info) return info.retry === 'retryable';
  return RETRYABLE_STANDARD.has(code) || RETRYABLE_CLASSES.has(code.slice(0, 2));
}

/** The SQLSTATE of a postgres.js error (or undefined for anything else). */
export function sqlStateOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/** Whether the error means the caller's deletion lease is no longer current. */
export function isStaleLease(error: unknown): boolean {
  return sqlStateOf(error) === 'DL4L1';
}
