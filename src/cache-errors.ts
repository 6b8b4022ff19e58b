// The Redis adapter's error types, limits and key-space names: no ioredis
// code, so a module that only classifies or refuses (the CLI's exit codes, a
// plan) does not load the client (src/redis.ts re-exports all of it).
import { ConfigError } from './config.js';
import { assertCommunityId } from './taxonomy.js';

export const SCAN_COUNT = 1000;
export const DISCONNECT_MESSAGE = '{"op":"DisconnectCommunity"}';

/** The namespace still holds keys (or a scan could not prove it empty). */
export class RedisNotEmptyError extends Error {
  override readonly name = 'RedisNotEmptyError';
  readonly code = 'namespace_not_empty';
  /** A writer may still be finishing; the proof is repeated (src/failures.ts). */
  readonly transient = true;
  readonly sample: readonly string[];

  constructor(communityId: string, sample: readonly string[]) {
    super(`Redis namespace buzz:${communityId}: still holds keys (e.g. ${sample.slice(0, 3).join(', ')})`);
    this.sample = sample;
  }
}

/** SCAN returned a key outside the requested namespace; nothing was unlinked from that page. */
export class RedisScopeError extends Error {
  override readonly name = 'RedisScopeError';
  readonly code = 'outside_namespace';
  readonly transient = false;
}

/**
 * The Redis server did not select the database REDIS_URL names (an index at
 * or beyond its `databases` setting): ioredis would carry on in database 0,
 * so every command would touch — and every proof inspect — another database
 * than the recorded store identity says. A configuration error (exit 5);
 * inside an executor step a permanent failure (fail closed).
 */
export class RedisDatabaseError extends ConfigError {
  readonly code = 'redis_database_not_selected';
  readonly transient = false;

  constructor(message: string, options?: { cause?: unknown }) {
    super('REDIS_URL', message);
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** The keys SCAN matched were not all unlinked (UNLINK counted fewer): the purge cannot claim them gone. */
export class RedisUnlinkShortfallError extends Error {
  override readonly name = 'RedisUnlinkShortfallError';
  readonly code = 'unlink_shortfall';
  /** Retried like a namespace that is not empty yet; a durable block after max_consecutive_failures. */
  readonly transient = true;

  constructor(requested: number, unlinked: number, remaining: number, sample: readonly string[]) {
    super(`Redis UNLINK removed ${unlinked} of the ${requested} keys SCAN matched and ${remaining} of them still exist (e.g. ${sample.slice(0, 3).join(', ')})`);
  }
}

/** A Redis command failed; `transient` says whether a later attempt may succeed. */
export class CacheError extends Error {
  constructor(
    readonly code: string,
    readonly transient: boolean,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = transient ? 'TransientCacheError' : 'PermanentCacheError';
  }
}

/**
 * Redis reply errors whose code (the first word of the reply, RESP's error
 * prefix) means the server is busy or between roles: retry. Every other
 * reply error (NOAUTH, WRONGPASS, NOPERM, WRONGTYPE, ERR, …) is permanent.
 */
export const REDIS_TRANSIENT_REPLY_CODES = new Set(['LOADING', 'BUSY', 'TRYAGAIN', 'CLUSTERDOWN', 'MASTERDOWN', 'NOREPLICAS', 'READONLY']);

/** A Redis command got no answer within the command timeout (transient). */
export class RedisTimeoutError extends CacheError {
  constructor(command: string, ms: number) {
    super('command_timeout', true, `Redis ${command} got no answer within ${ms / 1000} s (DELETIONS_REDIS_COMMAND_TIMEOUT_SECONDS)`);
    this.name = 'RedisTimeoutError';
  }
}

/** Escape SCAN glob metacharacters so the id can only match itself. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\^-]/g, '\\$&');
}

export function namespacePattern(communityId: string): string {
  assertCommunityId(communityId);
  return `${escapeGlob(`buzz:${communityId}:`)}*`;
}

export function controlChannel(communityId: string): string {
  assertCommunityId(communityId);
  return `buzz:${communityId}:conn-control`;
}
