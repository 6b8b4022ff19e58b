// The store identity a request is recorded against (src/store-identity.ts):
// the Redis address as ioredis parses REDIS_URL, an IPv6 host in brackets
// ("[::1]:6379"; unbracketed, "::1:6379" was refused by SQL with DL1I1 after
// submit had created the request), and a TS check of the shapes SQL accepts.
// Every identity this module produces is accepted by
// community_deletion._normalize_store_identity on the real database and
// normalises to itself.
import { Redis } from 'ioredis';
import t from 'tap';
import { ConfigError } from '../src/config.js';
import { checkStoreIdentity, redisAddress, storeIdentityFromConfig, type StoreIdentity } from '../src/store-identity.js';
import { createTestDatabase } from './helpers/db.js';

const db = await createTestDatabase();
t.teardown(() => db.drop());

function address(url: string): { server: string; db: number } {
  const client = new Redis(url, { lazyConnect: true });
  try {
    return redisAddress(client);
  } finally {
    client.disconnect();
  }
}

const cases: [string, string, number][] = [
  ['redis://127.0.0.1:6379', '127.0.0.1:6379', 0],
  ['redis://cache.internal/3', 'cache.internal:6379', 3],
  ['rediss://user:secret@Cache.Example:6380/2', 'Cache.Example:6380', 2],
  ['redis://[::1]:6379/11', '[::1]:6379', 11],
  ['redis://[::1]/4', '[::1]:6379', 4],
  ['redis://[2001:db8::7]:7000', '[2001:db8::7]:7000', 0],
];

t.test('redisAddress: host:port as ioredis parses it, an IPv6 host in brackets', async (t) => {
  for (const [url, server, n] of cases) t.same(address(url), { server, db: n }, url);
});

t.test('every identity produced is accepted by SQL and normalises to itself (lowercase aside)', async (t) => {
  for (const [url] of cases) {
    const identity = storeIdentityFromConfig({ endpoint: 'http://127.0.0.1:5077', bucket: 'b' }, { url });
    const [row] = await db.sql<{ n: StoreIdentity }[]>`
      select community_deletion._normalize_store_identity(${db.sql.json(JSON.parse(JSON.stringify(identity)))}::jsonb, 'store_identity') as n`;
    t.same(row!.n, { ...identity, s3_endpoint: 'http://127.0.0.1:5077', redis_server: identity.redis_server.toLowerCase() }, url);
  }
});

t.test('the unbracketed IPv6 form is what SQL refuses (DL1I1), and so does the TS check (REDIS_URL)', async (t) => {
  const bad: StoreIdentity = { s3_endpoint: 'http://127.0.0.1:5077', s3_bucket: 'b', redis_server: '::1:6379', redis_db: 11 };
  await t.rejects(
    db.sql`select community_deletion._normalize_store_identity(${db.sql.json(JSON.parse(JSON.stringify(bad)))}::jsonb, 'store_identity')`,
    { code: 'DL1I1' },
  );
  t.throws(() => checkStoreIdentity(bad), ConfigError);
  t.throws(() => checkStoreIdentity(bad), { name: 'ConfigError', variable: 'REDIS_URL' });
});

t.test('checkStoreIdentity refuses what SQL would refuse, naming the variable', async (t) => {
  const good: StoreIdentity = { s3_endpoint: 'http://127.0.0.1:5077/', s3_bucket: 'b', redis_server: '[::1]:6379', redis_db: 0 };
  t.same(checkStoreIdentity(good), good);
  t.same(checkStoreIdentity({ ...good, redis_server: 'unix:/run/redis.sock' }).redis_server, 'unix:/run/redis.sock');
  const refusals: [Partial<StoreIdentity>, string][] = [
    [{ redis_server: '::1:6379' }, 'REDIS_URL'],
    [{ redis_server: 'host' }, 'REDIS_URL'],
    [{ redis_server: 'ho st:6379' }, 'REDIS_URL'],
    [{ redis_server: 'unix:' }, 'REDIS_URL'],
    [{ redis_db: -1 }, 'REDIS_URL'],
    [{ s3_endpoint: 'ftp://x' }, 'BUZZ_S3_ENDPOINT'],
    [{ s3_bucket: '' }, 'BUZZ_S3_BUCKET'],
    [{ s3_bucket: 'a\tb' }, 'BUZZ_S3_BUCKET'],
  ];
  for (const [change, variable] of refusals) {
    t.throws(() => checkStoreIdentity({ ...good, ...change }), { name: 'ConfigError', variable }, JSON.stringify(change));
  }
});
