// The Redis client is in the database REDIS_URL names, or nothing happens:
// ioredis swallows a refused SELECT (an index at or beyond the server's
// `databases` setting) and stays in database 0, where the purge would delete
// and the proof would "prove" another database than the recorded one. Against
// the real Redis: such a database is a RedisDatabaseError (a ConfigError on
// REDIS_URL, exit 5; permanent inside a step) naming the database and the
// server's limit, before any command — nothing is deleted from database 0. A
// client with a key prefix is refused the same way. And UNLINK counting fewer
// keys than SCAN matched is a failure when a key is still there afterwards,
// not a silent success.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import t from 'tap';
import { ConfigError } from '../src/config.js';
import { classifyFailure } from '../src/failures.js';
import {
  createRedisCache, RedisCache, RedisDatabaseError, RedisUnlinkShortfallError, verifyRedisDatabase,
} from '../src/redis.js';
import { exitCodeFor } from '../src/cli/common.js';
import { connectRedisOnce } from '../src/cli/plan.js';

const url = process.env.REDIS_URL?.trim() || 'redis://127.0.0.1:6379';
const base = url.replace(/\/\d*$/, '');
const raw = new Redis(url);
t.teardown(() => raw.disconnect());

// The first database index the server does not have.
const [, databases] = (await raw.call('CONFIG', 'GET', 'databases')) as [string, string];
const limit = Number(databases);
const missingDb = `${base}/${limit}`;

const created = new Set<string>();
t.teardown(async () => {
  if (created.size > 0) await raw.unlink(...created);
});

/** Keys of a fresh namespace in database 0 (where ioredis would silently stay). */
async function seedNamespace(n = 5): Promise<{ id: string; keys: string[] }> {
  const id = randomUUID();
  const keys = Array.from({ length: n }, (_, i) => `buzz:${id}:k:${i}`);
  for (const key of keys) created.add(key);
  const pipeline = raw.pipeline();
  for (const key of keys) pipeline.set(key, 'v');
  await pipeline.exec();
  return { id, keys };
}

t.test(`a database the server does not have (${limit}, its "databases" is ${limit}) is refused before any command; nothing is deleted`, async (t) => {
  t.ok(Number.isSafeInteger(limit) && limit > 0, `CONFIG GET databases answered ${databases}`);
  const { id, keys } = await seedNamespace();
  const cache = createRedisCache({ url: missingDb, connectTimeoutMs: 5000, commandTimeoutMs: 10_000 });
  t.teardown(() => cache.client.disconnect());
  t.equal(cache.client.options.db, limit, 'the client was configured with the missing database');

  for (const [what, attempt] of [
    ['purgeNamespace', () => cache.purgeNamespace(id)],
    ['verifyAbsence', () => cache.verifyAbsence(id)],
    ['publishDisconnect', () => cache.publishDisconnect(id)],
  ] as const) {
    const error = await attempt().then(() => undefined, (e: unknown) => e);
    t.ok(error instanceof RedisDatabaseError, `${what}: RedisDatabaseError (${String(error)})`);
    t.ok(error instanceof ConfigError, `${what}: a configuration error`);
    t.equal((error as ConfigError).variable, 'REDIS_URL');
    t.match((error as Error).message, new RegExp(`database ${limit}\\b.*refuses.*has ${limit} databases \\(0\\.\\.${limit - 1}`), `${what}: names the database and the limit`);
    t.equal(exitCodeFor(error), 5, `${what}: exit 5`);
    t.same(classifyFailure(error), { transient: false, source: 'typed', code: 'redis_database_not_selected' }, `${what}: permanent inside a step`);
  }
  t.equal(await raw.exists(...keys), keys.length, 'every key in database 0 is still there');
});

t.test('verifyRedisDatabase: the configured database when the server has it, the refusal when it does not', async (t) => {
  const last = new Redis(`${base}/${limit - 1}`, { lazyConnect: true });
  t.teardown(() => last.disconnect());
  t.equal(await verifyRedisDatabase(last), limit - 1, 'the last database the server has');
  const info = String(await last.call('CLIENT', 'INFO'));
  t.match(info, new RegExp(`(^|\\s)db=${limit - 1}(\\s|$)`), 'the server agrees');

  const missing = new Redis(missingDb, { lazyConnect: true });
  t.teardown(() => missing.disconnect());
  missing.on('error', () => {});
  const error = await verifyRedisDatabase(missing).then(() => undefined, (e: unknown) => e);
  t.ok(error instanceof RedisDatabaseError, String(error));
});

t.test('connectRedisOnce (plan, doctor, seed) refuses it too', async (t) => {
  const error = await connectRedisOnce(missingDb).then((c) => {
    c.disconnect();
    return undefined;
  }, (e: unknown) => e);
  t.ok(error instanceof RedisDatabaseError, String(error));
  t.match((error as Error).message, new RegExp(`database ${limit}\\b`));
  const good = await connectRedisOnce(`${base}/0`);
  t.teardown(() => good.disconnect());
  t.equal(await good.ping(), 'PONG');
});

t.test('a client with a key prefix is refused before any command; nothing is deleted', async (t) => {
  const { id, keys } = await seedNamespace();
  const prefixed = new Redis(`${base}/0`, { keyPrefix: 'zz:', lazyConnect: true });
  t.teardown(() => prefixed.disconnect());
  const error = await new RedisCache(prefixed).purgeNamespace(id).then(() => undefined, (e: unknown) => e);
  t.ok(error instanceof ConfigError, String(error));
  t.match((error as Error).message, /key prefix.*"zz:"/);
  t.equal(await raw.exists(...keys), keys.length, 'every key is still there');
});

/** A real client whose UNLINK replies pass through `after` (which may act through another connection) first. */
function unlinkObserved(after: (keys: Buffer[], count: number) => Promise<void>): Redis {
  const client = new Redis(url);
  const original = client.unlink.bind(client) as unknown as (...keys: Buffer[]) => Promise<number>;
  client.unlink = (async (...keys: Buffer[]) => {
    const count = await original(...keys);
    await after(keys, count);
    return count;
  }) as unknown as Redis['unlink'];
  return client;
}

t.test('UNLINK counting fewer than SCAN matched: fine when the rest are gone, a failure when one is still there', async (t) => {
  // A key removed by someone else between SCAN and UNLINK (or returned by
  // SCAN twice): UNLINK counts one fewer, the key is gone, the purge succeeds.
  {
    const { id, keys } = await seedNamespace();
    const client = new Redis(url);
    t.teardown(() => client.disconnect());
    // (Once: SCAN may return the namespace in one page or in several.)
    let removedElsewhere = false;
    const scan = client.scanBuffer.bind(client) as unknown as (...args: unknown[]) => Promise<[Buffer, Buffer[]]>;
    client.scanBuffer = (async (...args: unknown[]) => {
      const reply = await scan(...args);
      if (reply[1].length > 0 && !removedElsewhere) {
        removedElsewhere = true;
        await raw.unlink(reply[1][0]!);
      }
      return reply;
    }) as unknown as Redis['scanBuffer'];
    const removed = await new RedisCache(client).purgeNamespace(id);
    t.equal(removed, keys.length - 1, 'the count is what UNLINK removed');
    t.equal(await raw.exists(...keys), 0, 'nothing is left');
  }
  // The same shortfall, but a writer puts the key back before the purge
  // looks: a key SCAN matched is there after the purge — not a success.
  {
    const { id, keys } = await seedNamespace();
    let victim: Buffer | undefined;
    let restored = false;
    const client = unlinkObserved(async (unlinked) => {
      // The UNLINK of the page that held the victim (SCAN may page the
      // namespace): the writer puts it back right after.
      if (victim === undefined || restored || !unlinked.some((k) => k.equals(victim!))) return;
      restored = true;
      await raw.set(victim, 'back');
    });
    t.teardown(() => client.disconnect());
    const scan = client.scanBuffer.bind(client) as unknown as (...args: unknown[]) => Promise<[Buffer, Buffer[]]>;
    client.scanBuffer = (async (...args: unknown[]) => {
      const reply = await scan(...args);
      if (reply[1].length > 0 && victim === undefined) {
        victim = reply[1][0]!;
        await raw.unlink(victim);
      }
      return reply;
    }) as unknown as Redis['scanBuffer'];
    const error = await new RedisCache(client).purgeNamespace(id).then(() => undefined, (e: unknown) => e);
    t.ok(restored, 'the victim was one of the keys an UNLINK asked for, and it was put back');
    t.ok(error instanceof RedisUnlinkShortfallError, String(error));
    // The page holding the victim: how many keys it held depends on how SCAN
    // paged the namespace; UNLINK removed one fewer.
    const counts = /removed (\d+) of the (\d+) keys SCAN matched and 1 of them still exist/.exec((error as Error).message);
    t.ok(counts && Number(counts[1]) === Number(counts[2]) - 1 && Number(counts[2]) <= keys.length,
      'the message says UNLINK removed one fewer than the page SCAN matched, and one is still there');
    t.same(classifyFailure(error), { transient: true, source: 'typed', code: 'unlink_shortfall' }, 'retried, then blocked after max_consecutive_failures');
    t.match((error as Error).message, `(e.g. ${victim!.toString('utf8')})`, 'names the key that is still there');
    t.equal(await raw.exists(victim!), 1, 'the key that came back is still there');
  }
});
