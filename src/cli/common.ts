// Shared CLI plumbing: output mode (JSON when stdout is not a TTY or --json),
// logs on stderr, and the mapping from failures to documented exit codes.
import { EXIT, type ExitCode } from './exit-codes.js';
import { sqlStateInfo, sqlStateOf } from '../errors.js';
import { ConfigError, loadDatabaseUrl, loadTimeouts } from '../config.js';
import { TaxonomyError } from '../taxonomy.js';
import { ManifestError } from '../manifest.js';
import { checkConnection, connect } from '../db.js';
import { EngineClient, SchemaVersionError } from '../engine.js';
import { StorageError, StorageScopeError } from '../s3-errors.js';
import { CacheError } from '../cache-errors.js';
import { PostgresStalledError, answerBoundMs, answeredWithin } from '../pg-stall.js';
import { escapeControl, normalizeJson, writeLogLine } from './format.js';

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
  /** The command's result: JSON on stdout (snake_case, ISO 8601 UTC), or a human line/table on a TTY. */
  result(value: unknown, human?: string): void;
  /** A log line on stderr (control characters escaped; above any progress bar). */
  log(message: string): void;
}

/** JSON output: with --json, or whenever stdout is not a terminal. */
export function jsonMode(argv: readonly string[] = process.argv): boolean {
  return argv.some((a) => a === '--json' || a === '--json=true') || !process.stdout.isTTY;
}

export function makeOutput(): Output {
  const json = jsonMode();
  return {
    json,
    result(value, human) {
      if (json) process.stdout.write(`${JSON.stringify(normalizeJson(value))}\n`);
      // Safety net: whatever a command composed, no control character but
      // the line breaks of its layout reaches the terminal unescaped.
      else process.stdout.write(`${(human ?? JSON.stringify(normalizeJson(value), null, 2)).split('\n').map(escapeControl).join('\n')}\n`);
    },
    log(message) {
      writeLogLine(`${new Date().toISOString()} ${escapeControl(message)}\n`);
    },
  };
}

/**
 * A usage error (exit 2): JSON on stdout in JSON mode ({"error", "exit_code": 2,
 * "flag"?, "usage": true}), and always the message on stderr.
 */
export function reportUsageError(message: string, options: { flag?: string } = {}): void {
  if (jsonMode()) {
    process.stdout.write(`${JSON.stringify({ error: message, exit_code: EXIT.usage, ...(options.flag ? { flag: options.flag } : {}), usage: true })}\n`);
  }
  // yargs' own messages span lines; every other control character is escaped.
  process.stderr.write(`${escapeControl(message).replace(/\\n/g, '\n')}\n`);
  process.exitCode = EXIT.usage;
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
  const timeouts = loadTimeouts();
  const sql = connect(url, { max: 1, applicationName, timeouts });
  // A database that stops answering after the connection is up (a frozen
  // server or pooler) cannot hang the command: each call is bounded by
  // statement_timeout + a margin on this side too (PostgresStalledError, exit 5).
  const bound = answerBoundMs(timeouts.pgStatementMs);
  try {
    // An unreachable, blackholed or missing database: exit 5, naming it.
    await answeredWithin(checkConnection(sql, url), 'the connection check', bound);
    const engine = boundedEngine(new EngineClient(sql), bound);
    await engine.assertSchemaVersion();
    return await body(engine);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * The engine client with every call answered within `ms` (else
 * PostgresStalledError); ms 0 returns it unchanged. Each EngineClient method
 * is one engine call, so the bound is per call, however long the command's
 * other work (an S3 listing between two calls) takes.
 */
export function boundedEngine(engine: EngineClient, ms: number): EngineClient {
  if (!(ms > 0)) return engine;
  return new Proxy(engine, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || property === 'constructor') return value;
      return (...args: unknown[]) => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        return result instanceof Promise ? answeredWithin(result, String(property), ms) : result;
      };
    },
  });
}

/** Exit code for a database error, by SQLSTATE. */
export function exitCodeForSqlState(code: string | undefined): ExitCode {
  const info = sqlStateInfo(code);
  if (!info) {
    if (code === undefined) return EXIT.internal;
    // Connection, authentication, missing database/schema, missing privileges,
    // resources and operator intervention: the environment, not the request.
    if (code === '42501' || code === '3D000' || code === '3F000' || ['08', '28', '53', '57', '58'].includes(code.slice(0, 2))) return EXIT.config;
    // Serialization failure / deadlock: nothing was recorded, try again.
    if (code.startsWith('40')) return EXIT.notRunnable;
    return EXIT.internal;
  }
  switch (info.name) {
    // Missing privileges, or row-level security that applies to the engine
    // owner (docs/sqlstates.md): the environment, not the request.
    case 'insufficient_privilege':
      return EXIT.config;
    case 'invalid_argument':
    case 'request_not_found':
    case 'community_not_found':
      return EXIT.usage;
    case 'request_terminal':
    case 'request_blocked':
    case 'request_not_blocked':
    case 'lease_held':
    case 'lock_not_available':
      return EXIT.notRunnable;
    default:
      return EXIT.safetyRefusal;
  }
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EPIPE', 'ECONNABORTED']);

/** An S3 service error (wrong credentials, missing bucket, access denied…) from the AWS SDK. */
export function isS3ServiceError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && '$metadata' in error;
}

/** The documented exit code for any failure (70 when nothing explains it: a bug). */
export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof ConfigError || error instanceof SchemaVersionError) return EXIT.config;
  if (error instanceof TaxonomyError || error instanceof ManifestError || error instanceof StorageScopeError) return EXIT.safetyRefusal;
  // S3 or Redis failing outside a recorded executor step: the environment.
  if (error instanceof StorageError || error instanceof CacheError) return EXIT.config;
  // The database stopped answering a call (src/pg-stall.ts): the environment.
  if (error instanceof PostgresStalledError) return EXIT.config;
  const code = sqlStateOf(error);
  if (code) return exitCodeForSqlState(code);
  if (isS3ServiceError(error)) return EXIT.config;
  const errno = (error as { code?: unknown } | null)?.code;
  if (typeof errno === 'string' && NETWORK_CODES.has(errno)) return EXIT.config;
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'MaxRetriesPerRequestError' || name === 'TimeoutError') return EXIT.config;
  return EXIT.internal;
}

/** Runs a command body and turns any failure into a message + exit code. */
export async function run(body: (out: Output) => Promise<void>): Promise<void> {
  const out = makeOutput();
  try {
    await body(out);
  } catch (error) {
    const code = sqlStateOf(error);
    const exitCode = exitCodeFor(error);
    let message = error instanceof Error ? error.message || error.name : String(error);
    if (exitCode === EXIT.internal) message = `internal error (a bug, please report it): ${message}`;
    const detail =
      error instanceof CliError ? error.detail
      : error instanceof ConfigError ? { variable: error.variable }
      : error instanceof SchemaVersionError ? { schema_version: error.found, driver_schema_version: error.expected }
      : {};
    if (out.json) process.stdout.write(`${JSON.stringify(normalizeJson({ error: message, sqlstate: code ?? null, exit_code: exitCode, ...detail }))}\n`);
    out.log(`error${code ? ` [${code}]` : ''}: ${message}`);
    if (exitCode === EXIT.internal && error instanceof Error && error.stack) process.stderr.write(`${escapeControl(error.stack).replace(/\\n/g, '\n')}\n`);
    process.exitCode = exitCode;
  }
}
