// The schema-version gate: the driver runs only against the engine schema it
// was built for (src/engine.ts SCHEMA_VERSION = community_deletion.schema_version()).
// A database that is older (before schema versions existed, or at a lower
// version) is refused with "run `deletions migrate`", one that is newer with
// "this driver is too old" — exit 5 either way, before anything is claimed
// or touched, and with a durable explanation (a failed pre_claim:schema_version
// checkpoint and a block) when the command names a request. `inspect` and
// `migrate` report the version.
import t, { type Test } from 'tap';
import { SCHEMA_VERSION } from '../../src/engine.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createTestBucket } from '../helpers/moto.js';
import { checkpoints, cliEnv, deletions, fingerprint, redisClient, requestRow, seedCommunity, show, submitAndApprove } from '../helpers/e2e.js';
import { databaseAtLevel, dropLevelTemplates, seedCommunityRows } from '../helpers/upgrade.js';

/** The last migration level before community_deletion.schema_version() existed. */
const LAST_UNVERSIONED_LEVEL = 9;

const bucket = await createTestBucket(t);
const redis = redisClient();
t.teardown(() => redis.disconnect());

async function assertRefusedRun(t: Test, db: TestDatabase, id: string, message: RegExp, found: number | null): Promise<void> {
  const env = cliEnv(db, bucket);
  const before = await requestRow(db.sql, id);
  const run = await deletions(['run', id], env);
  t.equal(run.code, 5, show(run));
  t.match(run.json, { error: message, schema_version: found, driver_schema_version: SCHEMA_VERSION });
  const after = await requestRow(db.sql, id);
  t.equal(after.stage, before.stage, 'the stage did not move');
  t.equal(after.lease_generation, before.lease_generation, 'nothing was claimed');
  t.match(after.blocked_reason, /schema version/, 'the request is blocked with the reason');
  const recorded = (await checkpoints(db.sql, id)).filter((c) => c.unit_key === 'pre_claim:schema_version');
  t.equal(recorded.length, 1, 'one pre_claim:schema_version checkpoint');
  t.equal(recorded[0]?.status, 'failed');
  t.match(recorded[0]?.error, message);

  for (const args of [['list'], ['status'], ['drain'], ['inspect', id]]) {
    const r = await deletions(args, env);
    t.equal(r.code, 5, `${args.join(' ')}: ${show(r)}`);
    t.match(r.json, { error: message });
  }
}

t.teardown(dropLevelTemplates);

t.test('a database from before schema versions: run `deletions migrate`', async (t) => {
  const db = await databaseAtLevel(LAST_UNVERSIONED_LEVEL);
  t.teardown(() => db.drop());
  const communityId = await seedCommunityRows(db.sql, `old-${process.pid}.example`);
  const [req] = await db.sql<{ id: string }[]>`
    select id from community_deletion.submit(host => ${`old-${process.pid}.example`}, requested_by => 'alice@ops', reason => 'gate')`;
  t.ok(communityId && req, 'a request at the older level');
  await assertRefusedRun(t, db, req!.id, /older .* run `deletions migrate`/, null);
});

t.test('an older and a newer schema version', async (t) => {
  for (const [found, message] of [[SCHEMA_VERSION - 1, /older \(\d+\) .* run `deletions migrate`/], [SCHEMA_VERSION + 1, /newer .* this driver is too old/]] as const) {
    await t.test(`schema version ${found}`, async (t) => {
      const db = await createTestDatabase();
      t.teardown(() => db.drop());
      const target = await seedCommunity(db.sql, bucket.store, redis, `gate-${found}-${process.pid}.example`);
      const before = await fingerprint(db.sql, bucket.store, redis, target.id);
      const id = await submitAndApprove(db.sql, bucket.store, target.host);
      // What a database migrated by another driver release reports.
      await db.sql.unsafe(`create or replace function community_deletion.schema_version() returns integer
        language sql immutable set search_path = pg_catalog, pg_temp as $$ select ${found} $$`);
      await assertRefusedRun(t, db, id, message, found);
      t.same(await fingerprint(db.sql, bucket.store, redis, target.id), before, 'the community is untouched in every store');
    });
  }
});

t.test('at the driver\'s version, inspect reports it', async (t) => {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const target = await seedCommunity(db.sql, bucket.store, redis, `gate-ok-${process.pid}.example`);
  const id = await submitAndApprove(db.sql, bucket.store, target.host);
  const [row] = await db.sql<{ v: number }[]>`select community_deletion.schema_version() as v`;
  t.equal(row!.v, SCHEMA_VERSION, 'SQL exposes the version this driver was built for');
  const inspect = await deletions(['inspect', id], cliEnv(db, bucket));
  t.equal(inspect.code, 0, show(inspect));
  t.match(inspect.json, { schema_version: SCHEMA_VERSION, request: { id } });
});
