// Redis adapter: disconnect broadcast, namespace purge and the two-pass
// absence proof for `buzz:<community>:*`. Keys are handled as Buffers so a
// key that is not valid UTF-8 is still deleted and still seen by the proof.

import { Redis } from 'ioredis';
import type { RedisConfig } from './config.js';
import { assertCommunityId } from './taxonomy.js';

export const SCAN_COUNT = 1000;
export const DISCONNECT_MESSAGE = '{"op":"DisconnectCommunity"}';

/** The namespace still holds keys (or a scan could not prove it empty). */
export class RedisNotEmptyError extends Error {
  override readonly name = 'RedisNotEmptyError';
  readonly code = 'namespace_not_empty';
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
}

export function createRedisClient(config: RedisConfig): Redis {
  // Fail a command rather than queue it forever while Redis is unreachable;
  // the executor retries the stage with backoff.
  return new Redis(config.url, { maxRetriesPerRequest: 3, lazyConnect: true, enableOfflineQueue: true });
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

export class RedisCache {
  constructor(readonly client: Redis) {}

  /** Tell every connection of the community to drop; returns the receiver count. */
  async publishDisconnect(communityId: string): Promise<number> {
    return this.client.publish(controlChannel(communityId), DISCONNECT_MESSAGE);
  }

  /** SCAN + UNLINK every key of the namespace; returns how many were unlinked. */
  async purgeNamespace(communityId: string): Promise<number> {
    const pattern = namespacePattern(communityId);
    const prefix = Buffer.from(`buzz:${communityId}:`);
    let cursor = '0';
    let removed = 0;
    do {
      const [next, keys] = await this.client.scanBuffer(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
      // Belt and braces: never unlink a key the pattern should not have matched.
      const own = keys.filter((key) => key.subarray(0, prefix.length).equals(prefix));
      if (own.length !== keys.length) {
        throw new RedisScopeError(`SCAN MATCH ${pattern} returned keys outside the namespace`);
      }
      if (own.length > 0) removed += await this.client.unlink(...own);
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
        const [next, keys] = await this.client.scanBuffer(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
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
