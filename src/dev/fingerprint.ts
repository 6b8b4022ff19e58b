// What one community holds in each store, as counts and order-independent
// digests: equal fingerprints before and after mean a bystander is
// byte-identical. Used by the demo and the end-to-end tests. The PostgreSQL
// half relies on the fixture functions of db/tests/fixtures/helpers.sql.
import { createHash } from 'node:crypto';
import type postgres from 'postgres';
import type { Redis } from 'ioredis';
import type { S3Store } from '../s3.js';

export interface Fingerprint {
  /** Rows in the registered scoped tables. */
  rows: number;
  /** Digest of every scoped and provenance row plus the communities row. */
  pg: string;
  /** Object versions and delete markers under the three owned prefixes. */
  versions: number;
  s3: string;
  /** Keys in buzz:<id>:*. */
  keys: number;
  /** Digest of the namespace's keys and values, plus the bare buzz:<id> key. */
  redis: string;
}

export async function fingerprint(
  sql: postgres.Sql, store: S3Store, redis: Redis, id: string, options: { pg?: boolean } = {},
): Promise<Fingerprint> {
  const [pg] = options.pg === false
    ? [{ rows: 0, print: '' }]
    : await sql<{ rows: number; print: string }[]>`
        select (select coalesce(sum(row_count), 0)::int from tests.scoped_row_counts(${id})) as rows,
               tests.community_fingerprint(${id}) as print`;
  const s3Hash = createHash('sha256');
  let versions = 0;
  for (const prefix of [`_meta/${id}/`, `_uploads/${id}/`, `repos/${id}/`]) {
    for await (const e of store.listVersions(prefix)) {
      versions += 1;
      s3Hash.update(`${e.key}\t${e.version_id}\t${e.kind}\t${e.size}\n`);
    }
  }
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `buzz:${id}:*`, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  keys.sort();
  const redisHash = createHash('sha256');
  for (const key of keys) redisHash.update(`${key}\t${(await redis.dumpBuffer(key))?.toString('hex')}\n`);
  redisHash.update(`bare:${await redis.get(`buzz:${id}`)}`);
  return { rows: pg!.rows, pg: pg!.print, versions, s3: s3Hash.digest('hex'), keys: keys.length, redis: redisHash.digest('hex') };
}
