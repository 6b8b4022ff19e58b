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
