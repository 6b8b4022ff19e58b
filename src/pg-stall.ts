// A client-side bound on waiting for PostgreSQL's answer. statement_timeout
// ends a statement that runs or waits too long, on the server; nothing on the
// server can end a call whose answer never comes back — a frozen server or
// pooler, a network path that swallows traffic while the socket stays open
// (TCP keepalives are still answered). Used by the executor (each SQL call of
// a run) and by every other command's engine client (src/cli/common.ts).

/** What is added to statement_timeout for the client-side bound on one call. */
export const PG_ANSWER_MARGIN_MS = 10_000;

/**
 * PostgreSQL did not answer one call within the client-side bound: the server
 * or the network stalled (a server that is merely slow ends the statement
 * itself, with statement_timeout). Transient, classified by type.
 */
export class PostgresStalledError extends Error {
  override readonly name = 'PostgresStalledError';
  readonly code = 'pg_no_answer';
  readonly transient = true;

  constructor(what: string, ms: number) {
    super(`PostgreSQL did not answer ${what} within ${ms / 1000} s (statement_timeout + margin): the server or the network stalled`);
  }
}

/** The client-side bound for sessions with this statement_timeout (0: the server's own; no bound). */
export function answerBoundMs(statementTimeoutMs: number): number {
  return statementTimeoutMs > 0 ? statementTimeoutMs + PG_ANSWER_MARGIN_MS : 0;
}

/** `pending`, or PostgresStalledError once `ms` passed without its answer (no bound when ms is 0). The abandoned call is left to settle unobserved. */
export async function answeredWithin<T>(pending: Promise<T>, what: string, ms: number): Promise<T> {
  if (!(ms > 0)) return pending;
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PostgresStalledError(what, ms)), ms);
  });
  try {
    return await Promise.race([pending, stalled]);
  } finally {
    clearTimeout(timer);
    pending.catch(() => undefined);
  }
}
