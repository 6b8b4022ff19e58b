// Redis adapter: disconnect broadcast, namespace purge and the two-pass
// absence proof for `buzz:<community>:*`. Keys are handled as Buffers so a
// key that is not valid UTF-8 is still deleted and still seen by the proof.

import { Redis, ReplyError } from 'ioredis';
import redisErrors from 'redis-errors';
import { ConfigError, DEFAULT_TIMEOUTS, type RedisConfig } from './config.js';
import { NETWORK_ERRNO } from './failures.js';
import {
  SCAN_COUNT, DISCONNECT_MESSAGE, RedisNotEmptyError, RedisScopeError, CacheError, REDIS_TRANSIENT_REPLY_CODES, RedisTimeoutError, escapeGlob, namespacePattern, controlChannel,
  RedisDatabaseError, RedisUnlinkShortfallError,
} from './cache-errors.js';

export {
  SCAN_COUNT, DISCONNECT_MESSAGE, RedisNotEmptyError, RedisScopeError, CacheError, REDIS_TRANSIENT_REPLY_CODES, RedisTimeoutError, escapeGlob, namespacePattern, controlChannel,
  RedisDatabaseError, RedisUnlinkShortfallError,
} from './cache-errors.js';

const { AbortError } = redisErrors;

/**
 * Classify an ioredis failure by the client's error types, never its message:
 *  * ReplyError — the server answered with an error: by its reply code;
 *  * AbortError (MaxRetriesPerRequestError is one) — the command was given up
 *    while the connection was being re-established: transient;
 *  * a socket errno (ECONNREFUSED, ECONNRESET, …): transient;
 *  * any other error while the client is not connected ("Connection is
 *    closed.", a stream that is not writeable): the connection is gone —
 *    transient;
 *  * anything else: permanent (fail closed).
 */
export function classifyRedisError(error: unknown, status: string, command: string): CacheError {
  if (error instanceof CacheError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  const make = (code: string, transient: boolean) =>
    new CacheError(code, transient, `Redis ${command} failed (${code}): ${detail}`, { cause: error });
  if (error instanceof ReplyError) {
    const code = /^[A-Z]+/.exec(detail)?.[0] ?? 'ERR';
    return make(code, REDIS_TRANSIENT_REPLY_CODES.has(code));
  }
  if (error instanceof AbortError) return make('aborted_while_reconnecting', true);
  const errno = (error as { code?: unknown } | null)?.code;
  if (typeof errno === 'string' && NETWORK_ERRNO.has(errno)) return make(errno, true);
  if (status !== 'ready') return make('connection_unavailable', true);
  return make('unexpected', false);
}

/** Our own bound on one command (RedisCache.call): a typed, transient CacheError. */
const commandTimeouts = new WeakMap<Redis, number>();

export function createRedisClient(config: RedisConfig): Redis {
  const commandTimeout = config.commandTimeoutMs ?? DEFAULT_TIMEOUTS.redisCommandMs;
  // Fail a command rather than queue it forever while Redis is unreachable;
  // the executor retries the stage with backoff. The offline queue holds a
  // command only while (re)connecting, each bounded by the command timeout
  // and by maxRetriesPerRequest reconnect attempts; connectTimeout bounds a
  // connect that never completes. ioredis's own commandTimeout (a second
  // later than ours) drops the command from its queue.
  const client = new Redis(config.url, {
    maxRetriesPerRequest: 3,
    lazyConnect: true,
    enableOfflineQueue: true,
    connectTimeout: config.connectTimeoutMs ?? DEFAULT_TIMEOUTS.redisConnectMs,
    commandTimeout: commandTimeout + 1000,
  });
  commandTimeouts.set(client, commandTimeout);
  // Connection errors reach every command as its failure (classified, then
  // recorded); without a listener ioredis would also print each one to stderr.
  client.on('error', () => {});
  return client;
}

/** host:port (or unix:/path) of a client, no credentials: for messages. */
function serverOf(client: Redis): string {
  const o = client.options;
  return o.path ? `unix:${o.path}` : `${o.host ?? 'localhost'}:${o.port ?? 6379}`;
}

/** The server's `databases` setting, when CONFIG GET is allowed (managed services often refuse it). */
async function databasesSetting(client: Redis): Promise<number | undefined> {
  try {
    const reply = (await client.call('CONFIG', 'GET', 'databases')) as unknown;
    const value = Array.isArray(reply) ? reply[1] : (reply as Record<string, unknown> | null)?.databases;
    const n = Number(String(value));
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Makes sure the connection really is in the database the client was
 * configured with (REDIS_URL's path), the one the store identity records.
 * ioredis sends SELECT when it connects but swallows a refusal and stays in
 * database 0, so this selects it again and fails on a refusal, then checks
 * what the server says the connection uses (CLIENT INFO's db=, Redis ≥ 6.2;
 * skipped where the command is unknown or not permitted). A refusal is a
 * RedisDatabaseError (a ConfigError on REDIS_URL: exit 5; permanent in a
 * step), naming the database and the server's limit; a key prefix (which
 * REDIS_URL cannot set, src/config.ts) is a ConfigError too. Connection
 * failures and timeouts propagate as they are. Returns the database.
 */
export async function verifyRedisDatabase(client: Redis): Promise<number> {
  const where = serverOf(client);
  if (client.options.keyPrefix) {
    throw new ConfigError('REDIS_URL', `the Redis client for ${where} has a key prefix (${JSON.stringify(client.options.keyPrefix)}): the engine deletes buzz:<id>:* keys by their own names`);
  }
  const db = client.options.db ?? 0;
  if (!Number.isSafeInteger(db) || db < 0) {
    throw new RedisDatabaseError(`REDIS_URL names database ${JSON.stringify(db)}, which is not a database number`);
  }
  try {
    await client.select(db);
  } catch (error) {
    // The server refuses the index with a plain ERR; any other reply (LOADING,
    // NOAUTH, NOPERM, …) and any connection failure is classified as usual.
    if (!(error instanceof ReplyError) || /^[A-Z]+/.exec((error as Error).message)?.[0] !== 'ERR') throw error;
    const limit = await databasesSetting(client);
    const has = limit === undefined ? '' : `: it has ${limit} database${limit === 1 ? '' : 's'} (0..${limit - 1}, its "databases" setting)`;
    throw new RedisDatabaseError(
      `REDIS_URL selects database ${db}, which the Redis server at ${where} refuses (${(error as Error).message})${has}; nothing was read or deleted there`,
      { cause: error },
    );
  }
  let info: string | undefined;
  try {
    info = String(await client.call('CLIENT', 'INFO'));
  } catch (error) {
    if (!(error instanceof ReplyError)) throw error;
  }
  const found = info === undefined ? undefined : /(?:^|\s)db=(\d+)(?:\s|$)/.exec(info)?.[1];
  if (found !== undefined && Number(found) !== db) {
    throw new RedisDatabaseError(`REDIS_URL selects database ${db}, but the Redis server at ${where} says this connection uses database ${found}`);
  }
  return db;
}

/** Runs one command under a deadline; the command's own late outcome is ignored. */
export async function withCommandTimeout<T>(command: string, ms: number, run: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisTimeoutError(command, ms)), ms);
  });
  try {
    return await Promise.race([run(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the executor needs from the cache (RedisCache; fakes in unit tests). */
export interface Cache {
  publishDisconnect(communityId: string): Promise<number>;
  purgeNamespace(communityId: string): Promise<number>;
  verifyAbsence(communityId: string): Promise<void>;
}

export class RedisCache implements Cache {
  /** The database check of the current connection (verifyRedisDatabase); reset when it closes. */
  private verified: Promise<number> | undefined;

  constructor(readonly client: Redis) {
    client.on('close', () => {
      this.verified = undefined;
    });
  }

  /**
   * Once per connection, before its first command: the connection is in the
   * configured database (verifyRedisDatabase). A refusal is thrown as it is
   * (RedisDatabaseError: permanent, exit 5 outside a step); a connection
   * failure or timeout is classified like any command's.
   */
  async verifyDatabase(): Promise<number> {
    const ms = commandTimeouts.get(this.client) ?? DEFAULT_TIMEOUTS.redisCommandMs;
    if (this.verified === undefined) {
      const check = verifyRedisDatabase(this.client);
      this.verified = check;
      check.catch(() => {
        if (this.verified === check) this.verified = undefined;
      });
    }
    const check = this.verified;
    try {
      return await withCommandTimeout('SELECT', ms, () => check);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw classifyRedisError(error, this.client.status, 'SELECT');
    }
  }

  /** Runs one command, turning its failure into a classified CacheError. */
  private async call<T>(command: string, run: () => Promise<T>): Promise<T> {
    await this.verifyDatabase();
    try {
      return await withCommandTimeout(command, commandTimeouts.get(this.client) ?? DEFAULT_TIMEOUTS.redisCommandMs, run);
    } catch (error) {
      throw classifyRedisError(error, this.client.status, command);
    }
  }

  /** Tell every connection of the community to drop; returns the receiver count. */
  async publishDisconnect(communityId: string): Promise<number> {
    const channel = controlChannel(communityId);
    return this.call('PUBLISH', () => this.client.publish(channel, DISCONNECT_MESSAGE));
  }

  /** SCAN + UNLINK every key of the namespace; returns how many were unlinked. */
  async purgeNamespace(communityId: string): Promise<number> {
    const pattern = namespacePattern(communityId);
    const prefix = Buffer.from(`buzz:${communityId}:`);
    let cursor = '0';
    let removed = 0;
    do {
      const from = cursor;
      const [next, keys] = await this.call('SCAN', () => this.client.scanBuffer(from, 'MATCH', pattern, 'COUNT', SCAN_COUNT));
      // Belt and braces: never unlink a key the pattern should not have matched.
      const own = keys.filter((key) => key.subarray(0, prefix.length).equals(prefix));
      if (own.length !== keys.length) {
        throw new RedisScopeError(`SCAN MATCH ${pattern} returned keys outside the namespace`);
      }
      if (own.length > 0) {
        const unlinked = await this.call('UNLINK', () => this.client.unlink(...own));
        removed += unlinked;
        // UNLINK counts the keys it removed. Fewer than asked is benign only
        // when the rest are gone anyway (SCAN returned a key twice, or it
        // expired in between); a key still there after UNLINK means this
        // purge did not remove what it matched, and must not report success.
        if (unlinked < own.length) {
          const remaining = await this.call('EXISTS', () => this.client.exists(...own));
          if (remaining > 0) {
            const sample: string[] = [];
            for (const key of own) {
              if (sample.length === 3) break;
              if ((await this.call('EXISTS', () => this.client.exists(key))) > 0) sample.push(key.toString('utf8'));
            }
            throw new RedisUnlinkShortfallError(own.length, unlinked, remaining, sample);
          }
        }
      }
      cursor = next.toString();
    } while (cursor !== '0');
    return removed;
  }

  /**
   * SCAN is weakly consistent (rehashing, concurrent writes), so one empty
   * pass is not proof: require two complete passes, each reaching cursor 0
   * without returning a key.
   */
  async verifyAbsence(communityId: string): Promise<void> {
    const pattern = namespacePattern(communityId);
    for (let pass = 0; pass < 2; pass++) {
      let cursor = '0';
      do {
        const from = cursor;
        const [next, keys] = await this.call('SCAN', () => this.client.scanBuffer(from, 'MATCH', pattern, 'COUNT', SCAN_COUNT));
        if (keys.length > 0) {
          throw new RedisNotEmptyError(communityId, keys.slice(0, 10).map((key) => key.toString('utf8')));
        }
        cursor = next.toString();
      } while (cursor !== '0');
    }
  }
}

export function createRedisCache(config: RedisConfig): RedisCache {
  return new RedisCache(createRedisClient(config));
}
