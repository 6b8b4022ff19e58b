// PostgreSQL access: one postgres.js pool per process. Every engine call is a
// `select deletion_…(…)`; this module never writes control-plane tables.
import postgres from 'postgres';

export type Sql = postgres.Sql;

export interface ConnectOptions {
  /** Pool size; the executor needs 2 (work + heartbeat). */
  max?: number;
  /** application_name shown in pg_stat_activity. */
  applicationName?: string;
}

export function connect(databaseUrl: string, options: ConnectOptions = {}): Sql {
  return postgres(databaseUrl, {
    max: options.max ?? 4,
    onnotice: () => {},
    connection: { application_name: options.applicationName ?? 'community-deletion' },
    // Writers must be READ COMMITTED (the write fence refuses others); make the
    // default explicit so a server-wide default cannot change it.
    transform: { undefined: null },
  });
}
