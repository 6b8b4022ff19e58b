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
import { ConfigError, type RedisConfig, type S3Config } from './config.js';

export interface StoreIdentity {
  s3_endpoint: string;
  s3_bucket: string;
  /** host:port (or unix:/path), no credentials. */
  redis_server: string;
  redis_db: number;
}

/**
 * The address and database an ioredis client connects to (its own URL
 * parsing). An IPv6 host (ioredis keeps `::1` of `redis://[::1]:6379`
 * without brackets) is bracketed, `[::1]:6379`: unbracketed, its colons make
 * `host:port` ambiguous and SQL refuses it (DL1I1).
 */
export function redisAddress(client: Pick<Redis, 'options'>): { server: string; db: number } {
  const o = client.options;
  const host = o.host ?? 'localhost';
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const server = o.path ? `unix:${o.path}` : `${bracketed}:${o.port ?? 6379}`;
  return { server, db: o.db ?? 0 };
}

/**
 * The shapes community_deletion._normalize_store_identity accepts for what
 * this module produces, checked before anything is created: an http(s)
 * endpoint, a bucket, `host:port` (an IPv6 host in brackets) or
 * `unix:/path`, a database number, and no white space or control character
 * anywhere. A refusal is a ConfigError naming the variable (exit 5).
 */
export function checkStoreIdentity(identity: StoreIdentity): StoreIdentity {
  const bad = /[\s\p{Cc}]/u;
  if (!/^https?:\/\/[^/?#\s]+/i.test(identity.s3_endpoint) || bad.test(identity.s3_endpoint)) {
    throw new ConfigError('BUZZ_S3_ENDPOINT', `BUZZ_S3_ENDPOINT ${JSON.stringify(identity.s3_endpoint)} cannot be recorded as the store identity: not an http(s) URL without white space`);
  }
  if (identity.s3_bucket === '' || bad.test(identity.s3_bucket)) {
    throw new ConfigError('BUZZ_S3_BUCKET', `BUZZ_S3_BUCKET ${JSON.stringify(identity.s3_bucket)} cannot be recorded as the store identity: blank or with white space`);
  }
  const server = identity.redis_server;
  const hostPort = /^(\[[^\]]+\]|[^:[\]/?#@]+):[0-9]{1,5}$/;
  if (bad.test(server) || !(server.startsWith('unix:') ? server.length > 'unix:'.length : hostPort.test(server))) {
    throw new ConfigError('REDIS_URL', `REDIS_URL names Redis server ${JSON.stringify(server)}, which cannot be recorded as the store identity (host:port, [IPv6]:port or unix:/path, no white space)`);
  }
  if (!Number.isSafeInteger(identity.redis_db) || identity.redis_db < 0 || identity.redis_db > 999_999_999) {
    throw new ConfigError('REDIS_URL', `REDIS_URL names Redis database ${identity.redis_db}, which is not a database number`);
  }
  return identity;
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
  return checkStoreIdentity({ s3_endpoint: bareEndpoint(s3.endpoint), s3_bucket: s3.bucket, redis_server: server, redis_db: db });
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
