// Configuration from the environment. Each loader reads only what its
// service needs, so a command that never touches S3 does not demand S3
// settings. Values are trimmed; a blank value counts as unset.

export type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** The environment variable that is missing or invalid. */
  readonly variable: string;

  constructor(variable: string, message: string) {
    super(message);
    this.variable = variable;
  }
}

export type AddressingStyle = 'path' | 'virtual';

export interface S3Config {
  endpoint: string;
  bucket: string;
  region: string;
  addressingStyle: AddressingStyle;
  /** Absent: use the SDK's default credential chain (instance role, profile, …). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Absent: DEFAULT_TIMEOUTS. */
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
}

export interface RedisConfig {
  url: string;
  /** Absent: DEFAULT_TIMEOUTS. */
  connectTimeoutMs?: number;
  commandTimeoutMs?: number;
}

export interface Tuning {
  chunkSize: number;
  sweepCap: number;
  leaseSeconds: number;
  heartbeatSeconds: number;
}

/**
 * Every call to a store is bounded, so no hung server can hold a lease
 * forever (a timeout is a transient failure on the normal retry path).
 * Milliseconds; 0 disables the PostgreSQL statement/idle-in-transaction
 * timeouts (the server's own settings then apply).
 */
export interface Timeouts {
  /** DELETIONS_PG_CONNECT_TIMEOUT_SECONDS: establishing a PostgreSQL connection. */
  pgConnectMs: number;
  /** DELETIONS_PG_STATEMENT_TIMEOUT_SECONDS: statement_timeout of the CLI's sessions; must exceed settings.lock_timeout. */
  pgStatementMs: number;
  /** DELETIONS_PG_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS: idle_in_transaction_session_timeout of the CLI's sessions. */
  pgIdleInTransactionMs: number;
  /** DELETIONS_S3_CONNECT_TIMEOUT_SECONDS: TCP (and TLS) connect to the S3 endpoint. */
  s3ConnectMs: number;
  /** DELETIONS_S3_REQUEST_TIMEOUT_SECONDS: an S3 request with no response activity for this long fails. */
  s3RequestMs: number;
  /** DELETIONS_REDIS_CONNECT_TIMEOUT_SECONDS: connecting to Redis. */
  redisConnectMs: number;
  /** DELETIONS_REDIS_COMMAND_TIMEOUT_SECONDS: one Redis command (SCAN page, UNLINK, PUBLISH). */
  redisCommandMs: number;
  /** DELETIONS_STEP_TIMEOUT_SECONDS: an executor step making no progress for this long fails (transient). */
  stepMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = {
  pgConnectMs: 10_000,
  pgStatementMs: 900_000,
  pgIdleInTransactionMs: 300_000,
  s3ConnectMs: 10_000,
  s3RequestMs: 60_000,
  redisConnectMs: 10_000,
  redisCommandMs: 30_000,
  stepMs: 3_600_000,
};

export const MAX_CHUNK_SIZE = 10_000;

function optional(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function required(env: Env, name: string): string {
  const value = optional(env, name);
  if (value === undefined) throw new ConfigError(name, `${name} is required`);
  return value;
}

function parseUrl(name: string, value: string, protocols: readonly string[]): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `${name} is not a valid URL`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `${name} must use ${protocols.join(' or ')}, got ${url.protocol}`);
  }
  return value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  // Strict digits only: Number('1e3') or parseInt('10abc') would silently
  // accept values an operator did not mean.
  const value = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `${name} must be an integer between ${min} and ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** The timeout variables; invalid values are a ConfigError naming the variable. */
export function loadTimeouts(env: Env = process.env): Timeouts {
  const seconds = (name: string, fallbackMs: number, min: number) => integer(env, name, fallbackMs / 1000, min, 86_400) * 1000;
  return {
    pgConnectMs: seconds('DELETIONS_PG_CONNECT_TIMEOUT_SECONDS', DEFAULT_TIMEOUTS.pgConnectMs, 1),
    pgStatementMs: seconds('DELETIONS_PG_STATEMENT_TIMEOUT_SECONDS', DEFAULT_TIMEOUTS.pgStatementMs, 0),
    pgIdleInTransactionMs: seconds('DELETIONS_PG_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS', DEFAULT_TIMEOUTS.pgIdleInTransactionMs, 0),
    s3ConnectMs: seconds('DELETIONS_S3_CONNECT_TIMEOUT_SECONDS', DEFAULT_TIMEOUTS.s3ConnectMs, 1),
    s3RequestMs: seconds('DELETIONS_S3_REQUEST_TIMEOUT_SECONDS', DEFAULT_TIMEOUTS.s3RequestMs, 1),
    redisConnectMs: seconds('DELETIONS_REDIS_CONNECT_TIMEOUT_SECONDS', DEFAULT_TIMEOUTS.redisConnectMs, 1),
    redisCommandMs: seconds('DELETIONS_REDIS_COMMAND_TIMEOUT_SECONDS', DEFAULT_TIMEOUTS.redisCommandMs, 1),
    stepMs: seconds('DELETIONS_STEP_TIMEOUT_SECONDS', DEFAULT_TIMEOUTS.stepMs, 1),
  };
}

export function loadDatabaseUrl(env: Env = process.env): string {
  return parseUrl('DATABASE_URL', required(env, 'DATABASE_URL'), ['postgres:', 'postgresql:']);
}

/**
 * REDIS_URL names a server and a database, nothing else: ioredis turns every
 * query parameter into a client option, and some change which keys or which
 * database the engine touches while the recorded store identity (server +
 * database, src/store-identity.ts) stays the same — `keyPrefix` makes the
 * purge unlink `<prefix>buzz:<id>:…` (nothing) while SCAN, which ioredis does
 * not prefix, still sees the namespace; `db` overrides the path's database.
 * No parameter is documented as supported, so every one is refused. The path
 * is the database: absent, `/`, or `/<non-negative integer>`.
 */
export function checkRedisUrl(url: string): void {
  const u = new URL(url);
  const names = [...new Set(u.searchParams.keys())];
  if (names.length > 0 || u.search !== '') {
    const which = names.length > 0 ? names.map((n) => JSON.stringify(n)).join(', ') : JSON.stringify(u.search);
    throw new ConfigError(
      'REDIS_URL',
      `REDIS_URL must not carry query parameters (got ${which}): they would change the keys or the database the engine touches `
        + 'without changing the recorded store identity; put the database in the path (redis://host:port/<db>)',
    );
  }
  if (u.hash !== '') throw new ConfigError('REDIS_URL', 'REDIS_URL must not carry a fragment (#…)');
  const path = u.pathname;
  if (path !== '' && path !== '/' && !/^\/(0|[1-9][0-9]{0,8})$/.test(path)) {
    throw new ConfigError('REDIS_URL', `REDIS_URL's path must be a database number (/0, /1, …), got ${JSON.stringify(path)}`);
  }
}

export function loadRedisConfig(env: Env = process.env): RedisConfig {
  const url = parseUrl('REDIS_URL', required(env, 'REDIS_URL'), ['redis:', 'rediss:']);
  checkRedisUrl(url);
  const timeouts = loadTimeouts(env);
  return { url, connectTimeoutMs: timeouts.redisConnectMs, commandTimeoutMs: timeouts.redisCommandMs };
}

export function loadS3Config(env: Env = process.env): S3Config {
  const endpoint = parseUrl('BUZZ_S3_ENDPOINT', required(env, 'BUZZ_S3_ENDPOINT'), ['http:', 'https:']);
  const bucket = required(env, 'BUZZ_S3_BUCKET');
  const region = optional(env, 'BUZZ_S3_REGION') ?? optional(env, 'AWS_REGION') ?? 'us-east-1';

  const style = optional(env, 'BUZZ_S3_ADDRESSING_STYLE') ?? 'path';
  if (style !== 'path' && style !== 'virtual') {
    throw new ConfigError('BUZZ_S3_ADDRESSING_STYLE', `BUZZ_S3_ADDRESSING_STYLE must be path or virtual, got ${JSON.stringify(style)}`);
  }

  const accessKeyId = optional(env, 'BUZZ_S3_ACCESS_KEY');
  const secretAccessKey = optional(env, 'BUZZ_S3_SECRET_KEY');
  const timeouts = loadTimeouts(env);
  const config: S3Config = {
    endpoint, bucket, region, addressingStyle: style, connectTimeoutMs: timeouts.s3ConnectMs, requestTimeoutMs: timeouts.s3RequestMs,
  };
  if (accessKeyId !== undefined && secretAccessKey !== undefined) {
    config.credentials = { accessKeyId, secretAccessKey };
  } else if (accessKeyId !== undefined || secretAccessKey !== undefined) {
    // Half a static key pair is an operator mistake; falling back to the
    // default chain would silently act under a different identity.
    const missing = accessKeyId === undefined ? 'BUZZ_S3_ACCESS_KEY' : 'BUZZ_S3_SECRET_KEY';
    throw new ConfigError(missing, `${missing} is required when the other half of the S3 key pair is set`);
  }
  return config;
}

/** The longest executor lease community_deletion.claim grants (seconds). */
export const MAX_LEASE_SECONDS = 3600;

export function loadTuning(env: Env = process.env): Tuning {
  const chunkSize = integer(env, 'DELETIONS_CHUNK_SIZE', 10_000, 1, MAX_CHUNK_SIZE);
  const sweepCap = integer(env, 'DELETIONS_SWEEP_CAP', 1_000_000, 1, Number.MAX_SAFE_INTEGER);
  // community_deletion.claim refuses a lease outside 1..3600 s (DL1I1):
  // refused here, naming the variable, before any claim is attempted.
  const leaseSeconds = integer(env, 'DELETIONS_LEASE_SECONDS', 60, 1, MAX_LEASE_SECONDS);
  const heartbeatSeconds = integer(env, 'DELETIONS_HEARTBEAT_SECONDS', 10, 1, 86_400);
  // A heartbeat no shorter than the lease lets the lease lapse between beats.
  if (heartbeatSeconds >= leaseSeconds) {
    throw new ConfigError(
      'DELETIONS_HEARTBEAT_SECONDS',
      `DELETIONS_HEARTBEAT_SECONDS (${heartbeatSeconds}) must be shorter than DELETIONS_LEASE_SECONDS (${leaseSeconds})`,
    );
  }
  return { chunkSize, sweepCap, leaseSeconds, heartbeatSeconds };
}
