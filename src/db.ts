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
    // Every engine transaction runs READ COMMITTED (the fence and the purge
    // refuse anything else, 25000): a startup parameter overrides a database-
    // or role-wide default_transaction_isolation.
    connection: {
      application_name: options.applicationName ?? 'community-deletion',
      default_transaction_isolation: 'read committed',
    },
    transform: { undefined: null },
  });
}
