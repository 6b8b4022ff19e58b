// PostgreSQL access: one postgres.js pool per process. Every engine call is a
// `select deletion_…(…)`; this module never writes control-plane tables.
import postgres from 'postgres';
import { ConfigError, loadTimeouts, type Timeouts } from './config.js';
import { NETWORK_ERRNO, POSTGRES_JS_CODES } from './failures.js';

export type Sql = postgres.Sql;

export interface ConnectOptions {
  /** Pool size; the executor needs 2 (work + heartbeat). */
  max?: number;
  /** application_name shown in pg_stat_activity. */
  applicationName?: string;
  /** Absent: from the environment (loadTimeouts). */
  timeouts?: Pick<Timeouts, 'pgConnectMs' | 'pgStatementMs' | 'pgIdleInTransactionMs'>;
}

export function connect(databaseUrl: string, options: ConnectOptions = {}): Sql {
  const timeouts = options.timeouts ?? loadTimeouts();
  // statement_timeout bounds a statement that runs or waits too long (a
  // blackholed peer, a lock held without bound); engine steps that wait on
  // locks bound themselves first with settings.lock_timeout (5 s default),
  // far below it. idle_in_transaction_session_timeout ends a session that
  // left a transaction open. 0 leaves the server's own setting.
  const bounded: Record<string, string> = {};
  if (timeouts.pgStatementMs > 0) bounded.statement_timeout = String(timeouts.pgStatementMs);
  if (timeouts.pgIdleInTransactionMs > 0) bounded.idle_in_transaction_session_timeout = String(timeouts.pgIdleInTransactionMs);
  return postgres(databaseUrl, {
    max: options.max ?? 4,
    onnotice: () => {},
    // A server that accepts the TCP connection but never answers fails the
    // connect (CONNECT_TIMEOUT, transient) instead of hanging.
    connect_timeout: timeouts.pgConnectMs / 1000,
    // Every engine transaction runs READ COMMITTED (the fence and the purge
    // refuse anything else, 25000): a startup parameter overrides a database-
    // or role-wide default_transaction_isolation.
    connection: {
      application_name: options.applicationName ?? 'community-deletion',
      default_transaction_isolation: 'read committed',
      ...bounded,
    },
    transform: { undefined: null },
    types: { date: PG_TIME },
  });
}

/**
 * date, timestamp and timestamptz values as Dates — except one a Date cannot
 * hold (`infinity`, `-infinity`, a BC date, a year beyond ±275760), kept as
 * PostgreSQL's own text: postgres.js's default parser would make it an
 * Invalid Date, on which every formatter's toISOString() throws. Parameters
 * are serialised as postgres.js's default does, except a string no Date can
 * hold ('infinity'), passed to PostgreSQL as it is instead of throwing.
 */
export const PG_TIME = {
  to: 1184,
  from: [1082, 1114, 1184],
  serialize: (x: Date | string | number): string => {
    if (typeof x === 'string' && Number.isNaN(new Date(x).getTime())) return x;
    return (x instanceof Date ? x : new Date(x)).toISOString();
  },
  parse: parsePgTime,
};

export function parsePgTime(text: string): Date | string {
  // The era suffix is never read as such: a BC date stays text whatever new Date() makes of it.
  if (/BC$/i.test(text)) return text;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date;
}

/** Where DATABASE_URL points, without its credentials: "db on host:port". */
export function describeDatabase(databaseUrl: string): string {
  try {
    const u = new URL(databaseUrl);
    const name = decodeURIComponent(u.pathname.replace(/^\//, '')) || u.username || 'postgres';
    return `database ${JSON.stringify(name)} on ${u.hostname || 'localhost'}:${u.port || '5432'}`;
  } catch {
    return 'the database named by DATABASE_URL';
  }
}

/** PostgreSQL could not be reached or refused the session: an environment problem (exit 5). */
export class DatabaseUnreachableError extends ConfigError {
  readonly code: string;
  /** A connection problem may go away (src/failures.ts). */
  readonly transient: boolean;

  constructor(databaseUrl: string, code: string, transient: boolean, detail: string, options?: { cause?: unknown }) {
    super('DATABASE_URL', `cannot use the ${describeDatabase(databaseUrl)} (DATABASE_URL): ${detail}`);
    this.code = code;
    this.transient = transient;
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/**
 * Whether an error means the session could not be established: a postgres.js
 * connection error, a socket errno, or a server refusal of the session
 * (class 08, 28 authentication, 3D000 no such database, 57P03 starting up).
 */
export function connectionFailure(error: unknown): { code: string; transient: boolean } | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (POSTGRES_JS_CODES[code] === 'transient' || NETWORK_ERRNO.has(code)) return { code, transient: true };
  if (code.startsWith('08') || code === '57P03') return { code, transient: true };
  if (code.startsWith('28') || code === '3D000') return { code, transient: false };
  return undefined;
}

/**
 * One round trip, so an unreachable or missing database is reported as such
 * (naming it, exit 5) before any command starts its work.
 */
export async function checkConnection(sql: Sql, databaseUrl: string): Promise<void> {
  try {
    await sql`select 1`;
  } catch (error) {
    const failure = connectionFailure(error);
    if (failure === undefined) throw error;
    const detail =
      failure.code === 'CONNECT_TIMEOUT' ? `no answer within ${sql.options.connect_timeout} s (DELETIONS_PG_CONNECT_TIMEOUT_SECONDS)`
      : failure.code === '3D000' ? 'the database does not exist'
      : `${failure.code}: ${(error as Error).message}`;
    throw new DatabaseUnreachableError(databaseUrl, failure.code, failure.transient, detail, { cause: error });
  }
}
