// Shared CLI plumbing: output mode (JSON when stdout is not a TTY or --json),
// logs on stderr, and the mapping from failures to documented exit codes.
import { EXIT, type ExitCode } from './exit-codes.js';
import { sqlStateInfo, sqlStateOf } from '../errors.js';
import { ConfigError, loadDatabaseUrl } from '../config.js';
import { TaxonomyError } from '../taxonomy.js';
import { ManifestError } from '../manifest.js';
import { checkConnection, connect } from '../db.js';
import { EngineClient, SchemaVersionError } from '../engine.js';

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly detail: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface Output {
  readonly json: boolean;
  /** The command's result: JSON on stdout, or a human line/table on a TTY. */
  result(value: unknown, human?: string): void;
  log(message: string): void;
}

export function makeOutput(): Output {
  const json = process.argv.includes('--json') || !process.stdout.isTTY;
  return {
    json,
    result(value, human) {
      if (json) process.stdout.write(`${JSON.stringify(value)}\n`);
      else process.stdout.write(`${human ?? JSON.stringify(value, null, 2)}\n`);
    },
    log(message) {
      process.stderr.write(`${new Date().toISOString()} ${message}\n`);
    },
  };
}

/** DATABASE_URL, validated by the one loader in config.ts (ConfigError → exit 5). */
export function requireDatabaseUrl(): string {
  return loadDatabaseUrl();
}

/**
 * Runs body with a typed engine client on one connection to DATABASE_URL,
 * after the schema-version gate: a database whose engine schema is not the
 * one this driver was built for is refused (SchemaVersionError, exit 5)
 * before anything is read or written.
 */
export async function withEngine<T>(applicationName: string, body: (engine: EngineClient) => Promise<T>): Promise<T> {
  const url = requireDatabaseUrl();
  const sql = connect(url, { max: 1, applicationName });
  try {
    // An unreachable, blackholed or missing database: exit 5, naming it.
    await checkConnection(sql, url);
    const engine = new EngineClient(sql);
    await engine.assertSchemaVersion();
    return await body(engine);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Exit code for a database error, by SQLSTATE. */
export function exitCodeForSqlState(code: string | undefined): ExitCode {
  const info = sqlStateInfo(code);
  if (!info) return code?.startsWith('08') || code?.startsWith('28') || code === '3D000' ? EXIT.config : EXIT.failureRecorded;
  switch (info.name) {
    case 'invalid_argument':
    case 'request_not_found':
    case 'community_not_found':
      return EXIT.usage;
    case 'request_terminal':
    case 'request_blocked':
    case 'request_not_blocked':
    case 'lease_held':
      return EXIT.notRunnable;
    default:
      return EXIT.safetyRefusal;
  }
}

/** Runs a command body and turns any failure into a message + exit code. */
export async function run(body: (out: Output) => Promise<void>): Promise<void> {
  const out = makeOutput();
  try {
    await body(out);
  } catch (error) {
    const code = sqlStateOf(error);
    const exitCode =
      error instanceof CliError ? error.exitCode
      : error instanceof ConfigError || error instanceof SchemaVersionError ? EXIT.config
      : error instanceof TaxonomyError || error instanceof ManifestError ? EXIT.safetyRefusal
      : code ? exitCodeForSqlState(code)
      : networkExit(error);
    const message = error instanceof Error ? error.message : String(error);
    const detail =
      error instanceof CliError ? error.detail
      : error instanceof ConfigError ? { variable: error.variable }
      : error instanceof SchemaVersionError ? { schema_version: error.found, driver_schema_version: error.expected }
      : {};
    if (out.json) process.stdout.write(`${JSON.stringify({ error: message, sqlstate: code ?? null, ...detail })}\n`);
    out.log(`error${code ? ` [${code}]` : ''}: ${message}`);
    process.exitCode = exitCode;
  }
}

function networkExit(error: unknown): ExitCode {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' ? EXIT.config : EXIT.failureRecorded;
}
