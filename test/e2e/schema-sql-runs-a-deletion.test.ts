// schema.sql is the desired state of a database, not just its catalog: a
// database created from schema.sql alone (no migration, no graphile-migrate)
// has the engine's configuration data — the table registry, the storage
// taxonomy, the settings — and runs a whole deletion through the real CLI:
// submit, approve by a second login, run to retention_pending, with the
// target gone from every store and a bystander byte-identical. Without that
// data the first freeze would be refused as catalog drift (DL7C1).
import path from 'node:path';
import t from 'tap';
import { createTestDatabase } from '../helpers/db.js';
import { createTestBucket } from '../helpers/moto.js';
import { RUNNABLE_STAGES, approverEnv, cliEnv, deletions, fingerprint, redisClient, show } from '../helpers/e2e.js';
import { root, runSqlFile, seedCommunityRows, seedStorageAndCache } from '../helpers/upgrade.js';

const db = await createTestDatabase({ empty: true });
t.teardown(() => db.drop());
const bucket = await createTestBucket(t);
const redis = redisClient();
t.teardown(() => redis.disconnect());
const env = cliEnv(db, bucket);
const tag = `schema-sql-${process.pid}`;

await runSqlFile(db.url, path.join(root, 'schema.sql'));

t.test('schema.sql carries the configuration data, and no runtime rows', async (t) => {
  const [counts] = await db.sql<{ scoped: number; taxonomy: number; settings: number; requests: number }[]>`
    select (select count(*)::int from community_deletion.registered_tables where kind = 'scoped') as scoped,
           (select count(*)::int from community_deletion.storage_taxonomy) as taxonomy,
           (select count(*)::int from community_deletion.settings) as settings,
           (select count(*)::int from community_deletion.requests) as requests`;
  t.ok(counts!.scoped > 0, `${counts!.scoped} scoped tables registered`);
  t.ok(counts!.taxonomy > 0, `${counts!.taxonomy} storage taxonomy rules`);
  t.equal(counts!.settings, 1, 'the settings row');
  t.equal(counts!.requests, 0, 'no request');
});

t.test('a deletion runs end to end on it', async (t) => {
  const targetHost = `target-${tag}.example`;
  const target = await seedCommunityRows(db.sql, targetHost);
  const bystander = await seedCommunityRows(db.sql, `bystander-${tag}.example`);
  await seedStorageAndCache(bucket.store, redis, target, `${tag}-t`);
  await seedStorageAndCache(bucket.store, redis, bystander, `${tag}-b`);
  t.teardown(async () => {
    const keys = await redis.keys(`buzz:${bystander}*`);
    keys.push(...(await redis.keys(`buzz:${target}`)));
    if (keys.length > 0) await redis.del(...keys);
  });
  // The fingerprint helpers (schema tests) are test fixtures, loaded beside the engine.
  await runSqlFile(db.url, path.join(root, 'db', 'tests', 'fixtures', 'helpers.sql'));
  const targetBefore = await fingerprint(db.sql, bucket.store, redis, target);
  const bystanderBefore = await fingerprint(db.sql, bucket.store, redis, bystander);
  t.ok(targetBefore.rows > 0 && targetBefore.versions > 0 && targetBefore.keys > 0, 'the target has data in every store');

  const submitted = await deletions(['submit', '--host', targetHost, '--requested-by', 'alice@ops'], env);
  t.equal(submitted.code, 0, show(submitted));
  t.match(submitted.json, { stage: 'inventoried', community_id: target });
  const id: string = submitted.json.id;
  const approved = await deletions(['approve', id, '--approved-by', 'bob@ops'], approverEnv(env));
  t.equal(approved.code, 0, show(approved));
  const run = await deletions(['run', id], env);
  t.equal(run.code, 0, show(run));
  t.match(run.json, { kind: 'completed', request_id: id });
  t.same(run.json.stages.map((s: { stage: string }) => s.stage), RUNNABLE_STAGES);

  const targetAfter = await fingerprint(db.sql, bucket.store, redis, target);
  t.same([targetAfter.rows, targetAfter.versions, targetAfter.keys], [0, 0, 0], 'the target is gone from PostgreSQL, S3 and Redis');
  t.same(await fingerprint(db.sql, bucket.store, redis, bystander), bystanderBefore, 'the bystander is byte-identical');
});
