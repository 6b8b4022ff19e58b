import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import t from 'tap';
import {
  controlChannel,
  createRedisCache,
  DISCONNECT_MESSAGE,
  namespacePattern,
  RedisCache,
  RedisNotEmptyError,
  SCAN_COUNT,
} from '../src/redis.js';
import { TaxonomyError } from '../src/taxonomy.js';

const url = process.env.REDIS_URL?.trim() || 'redis://127.0.0.1:6379';
const cache = createRedisCache({ url });
const raw = new Redis(url);

// Every key this file creates, removed in teardown whatever happened.
const created = new Set<string | Buffer>();
t.teardown(async () => {
  if (created.size > 0) await raw.unlink(...created);
  raw.disconnect();
  cache.client.disconnect();
});

async function seed(keys: string[]): Promise<void> {
  for (const key of keys) created.add(key);
  const pipeline = raw.pipeline();
  for (const key of keys) pipeline.set(key, 'v');
  await pipeline.exec();
}

t.test('purge unlinks exactly buzz:<id>:* and verifyAbsence proves it', async (t) => {
  const id = randomUUID();
  const other = randomUUID();
  // Enough keys for several SCAN rounds and UNLINK batches, plus other types.
  const own = Array.from({ length: 2500 }, (_, i) => `buzz:${id}:k:${i}`);
  await seed(own);
  const binaryKey = Buffer.concat([Buffer.from(`buzz:${id}:bin:`), Buffer.from([0xff, 0xfe, 0x00])]);
  created.add(binaryKey);
  await raw.set(binaryKey, 'v');
  await raw.hset(`buzz:${id}:hash`, 'f', 'v');
  await raw.rpush(`buzz:${id}:list`, 'a', 'b');
  created.add(`buzz:${id}:hash`).add(`buzz:${id}:list`);
  const survivors = [
    `buzz:${id}`, // bare key: no colon after the id
    `buzz:${other}:x`,
    `buzz:${id}x:y`,
    `xbuzz:${id}:y`,
    `BUZZ:${id}:y`,
    `buzz:${id.toUpperCase()}:y`,
  ];
  await seed(survivors);

  await t.rejects(cache.verifyAbsence(id), RedisNotEmptyError, 'keys present: no proof');
  const removed = await cache.purgeNamespace(id);
  t.equal(removed, own.length + 3, 'every own key counted, including the non-UTF-8 one');
  t.equal(await raw.exists(binaryKey), 0, 'non-UTF-8 key removed');
  t.equal(await raw.exists(...own.slice(0, 100)), 0);
  await cache.verifyAbsence(id);
  for (const key of survivors) t.equal(await raw.exists(key), 1, `${key} survives`);
  t.equal(await cache.purgeNamespace(id), 0, 'purge is idempotent');
  await t.rejects(cache.verifyAbsence(other), RedisNotEmptyError, 'other namespace still populated');
});

t.test('verifyAbsence fails on a single remaining key', async (t) => {
  const id = randomUUID();
  await seed([`buzz:${id}:straggler`]);
  const error = await cache.verifyAbsence(id).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(error instanceof RedisNotEmptyError);
  t.same((error as RedisNotEmptyError).sample, [`buzz:${id}:straggler`]);
  await raw.unlink(`buzz:${id}:straggler`);
  await cache.verifyAbsence(id);
});

type ScanReply = [cursor: Buffer, keys: Buffer[]];

/** A real client whose SCAN replies pass through `after` (which may act, e.g. write a key) before RedisCache sees them. */
function scanObserved(after: (reply: ScanReply) => Promise<void> | void): Redis {
  const client = new Redis(url);
  const original = client.scanBuffer.bind(client) as unknown as (...args: unknown[]) => Promise<ScanReply>;
  const observed = async (...args: unknown[]): Promise<ScanReply> => {
    const reply = await original(...args);
    await after(reply);
    return reply;
  };
  client.scanBuffer = observed as unknown as Redis['scanBuffer'];
  return client;
}

t.test('a namespace of many SCAN pages (5,000 keys, COUNT 1000) is purged completely', async (t) => {
  const id = randomUUID();
  const other = randomUUID();
  const own = Array.from({ length: 5000 }, (_, i) => `buzz:${id}:page:${i}`);
  const theirs = Array.from({ length: 100 }, (_, i) => `buzz:${other}:page:${i}`);
  await seed([...own, ...theirs]);
  const pages: number[] = [];
  const client = scanObserved(([, keys]) => {
    pages.push(keys.length);
  });
  t.teardown(() => client.disconnect());
  const observed = new RedisCache(client);

  const removed = await observed.purgeNamespace(id);
  t.equal(SCAN_COUNT, 1000);
  t.equal(removed, own.length, 'UNLINK count equals the keys seeded');
  // SCAN returns about COUNT keys per call at most, so 5,000 keys take
  // at least four pages that carry keys.
  t.ok(pages.filter((n) => n > 0).length >= 4, `keys came over ${pages.filter((n) => n > 0).length} of ${pages.length} SCAN replies`);
  t.ok(pages.reduce((a, b) => a + b, 0) >= own.length, 'every key was returned by some page');
  t.equal(await raw.exists(...own), 0, 'no key of the namespace is left');
  await observed.verifyAbsence(id);
  t.equal(await raw.exists(...theirs), theirs.length, 'every key of the other community survives');
  await t.rejects(cache.verifyAbsence(other), RedisNotEmptyError);
});

t.test('a key written between the two verification passes fails the proof', async (t) => {
  const id = randomUUID();
  const late = `buzz:${id}:late`;
  created.add(late);
  const seen: number[] = [];
  let firstPassCalls = 0;
  // When the first pass reaches cursor 0 (complete, and empty), a writer adds
  // a key through another real connection before the second pass starts.
  const client = scanObserved(async ([cursor, keys]) => {
    seen.push(keys.length);
    if (firstPassCalls === 0 && cursor.toString() === '0') {
      firstPassCalls = seen.length;
      await raw.set(late, 'v');
    }
  });
  t.teardown(() => client.disconnect());
  const observed = new RedisCache(client);

  const error = await observed.verifyAbsence(id).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(firstPassCalls > 0, 'the first pass ran to cursor 0');
  t.same(seen.slice(0, firstPassCalls), new Array<number>(firstPassCalls).fill(0), 'the first pass alone saw nothing');
  t.ok(seen.length > firstPassCalls, 'a second pass ran');
  t.ok(error instanceof RedisNotEmptyError, 'the second pass found the late key: no proof');
  t.same((error as RedisNotEmptyError).sample, [late], 'the sample names the late key');
  t.equal((error as RedisNotEmptyError).transient, true);
  await raw.unlink(late);
  await observed.verifyAbsence(id);
});

t.test('publishDisconnect reaches subscribers of the control channel only', async (t) => {
  const id = randomUUID();
  const other = randomUUID();
  const subscriber = new Redis(url);
  t.teardown(() => subscriber.disconnect());
  const messages: Array<[string, string]> = [];
  subscriber.on('message', (channel: string, message: string) => messages.push([channel, message]));
  await subscriber.subscribe(`buzz:${id}:conn-control`, `buzz:${other}:conn-control`);
  const receivers = await cache.publishDisconnect(id);
  t.equal(receivers, 1);
  // Delivery is asynchronous: poll (with a budget far beyond any machine's delay).
  const deadline = Date.now() + 120_000;
  while (messages.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  t.same(messages, [[`buzz:${id}:conn-control`, '{"op":"DisconnectCommunity"}']]);
  t.same(JSON.parse(DISCONNECT_MESSAGE), { op: 'DisconnectCommunity' });
});

t.test('community ids are validated before any command', async (t) => {
  const guarded = new RedisCache(raw);
  for (const bad of ['*', 'a?b', '[abc]', '', randomUUID().toUpperCase(), `${randomUUID()}:*`]) {
    t.throws(() => namespacePattern(bad), TaxonomyError, `pattern for ${JSON.stringify(bad)}`);
    t.throws(() => controlChannel(bad), TaxonomyError, `channel for ${JSON.stringify(bad)}`);
    await t.rejects(guarded.purgeNamespace(bad), TaxonomyError, `purge ${JSON.stringify(bad)}`);
    await t.rejects(guarded.verifyAbsence(bad), TaxonomyError, `verify ${JSON.stringify(bad)}`);
    await t.rejects(guarded.publishDisconnect(bad), TaxonomyError, `publish ${JSON.stringify(bad)}`);
  }
  const id = randomUUID();
  t.equal(namespacePattern(id), `buzz:${id.replaceAll('-', '\\-')}:*`, 'metacharacters escaped, one trailing *');
});
