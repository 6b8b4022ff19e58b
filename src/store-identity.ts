// The identity of the stores a deletion touches: the S3 endpoint + bucket and
// the Redis server + database the clients actually use. Recorded on the
// request when its inventory is frozen (submit) and presented by the executor
// at every step (community_deletion.verify_store_identity), which refuses
// another store (store_mismatch, DL4S1). SQL normalises and compares
// (community_deletion._normalize_store_identity: case, default ports,
// trailing slashes, database 0 when absent); this module only reads what the
// clients were configured with and never passes credentials. The region and
// the addressing style are not identity: an endpoint and a bucket name one
// bucket. The Redis identity is its address and database, not the server's
// run_id, which changes at every restart.
import { Redis } from 'ioredis';
import type { RedisConfig, S3Config } from './config.js';

export interface StoreIdentity {
  s3_endpoint: string;
  s3_bucket: string;
  /** host:port (or unix:/path), no credentials. */
  redis_server: string;
  redis_db: number;
}

/** The address and database an ioredis client connects to (its own URL parsing). */
export function redisAddress(client: Pick<Redis, 'options'>): { server: string; db: number } {
  const o = client.options;
  const server = o.path ? `unix:${o.path}` : `${o.host ?? 'localhost'}:${o.port ?? 6379}`;
  return { server, db: o.db ?? 0 };
}

/** The endpoint without user information, query or fragment. */
function bareEndpoint(endpoint: string): string {
  const url = new URL(endpoint);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.toString();
}

export function storeIdentity(s3: Pick<S3Config, 'endpoint' | 'bucket'>, redis: Pick<Redis, 'options'>): StoreIdentity {
  const { server, db } = redisAddress(redis);
  return { s3_endpoint: bareEndpoint(s3.endpoint), s3_bucket: s3.bucket, redis_server: server, redis_db: db };
}

/** The identity for a Redis URL, parsed exactly as the executor's client parses it, without connecting. */
export function storeIdentityFromConfig(s3: Pick<S3Config, 'endpoint' | 'bucket'>, redis: RedisConfig): StoreIdentity {
  const client = new Redis(redis.url, { lazyConnect: true });
  try {
    return storeIdentity(s3, client);
  } finally {
    client.disconnect();
  }
}
