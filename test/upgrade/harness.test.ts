// The upgrade harness itself (test/helpers/upgrade.ts): a database built at
// level n is what the project's own migration run builds, so an upgrade test
// that starts from it starts from a real deployment of level n.
import t from 'tap';
import type { TestDatabase } from '../helpers/db.js';
import { createTestDatabase } from '../helpers/db.js';
import {
  catalogSnapshot, databaseAtLevel, dropLevelTemplates, latestLevel, migrateCommitted, snapshotDifference, sqlHasContent,
} from '../helpers/upgrade.js';

const latest = await latestLevel();
t.teardown(dropLevelTemplates);

async function withDatabase<T>(db: TestDatabase, use: (db: TestDatabase) => Promise<T>): Promise<T> {
  try {
    return await use(db);
  } finally {
    await db.drop();
  }
}

// What `graphile-migrate migrate` in the repository builds from nothing.
const reference = await withDatabase(await createTestDatabase({ empty: true }), async (db) => {
  await migrateCommitted(db.url);
  return catalogSnapshot(db.url);
});

t.test('the latest level is exactly what the project migration builds', async (t) => {
  const snapshot = await withDatabase(await databaseAtLevel(latest), (db) => catalogSnapshot(db.url));
  t.same(snapshotDifference(snapshot, reference), [], `level ${latest} (- harness, + project)`);
});

// Every level from FIRST_STABLE_API_LEVEL on is upgraded, in use, and compared
// with a fresh build by in-flight-deletions-survive-every-upgrade; the levels
// before it are upgraded here, empty. An empty level-k database is exactly
// what the upgrade of level 1 passes through once it has applied migrations
// 2..k (each template is the one below it plus one migration, by
// graphile-migrate), and from there both apply the same migrations k+1..:
// level 1 (the longest path) and the last level before the stable API
// cover the levels between them.
const FIRST_STABLE_API_LEVEL = 7;
const UPGRADED_HERE = new Set([1, FIRST_STABLE_API_LEVEL - 1]);

t.test('every older level is another schema; level 1 and the last before the stable API upgrade to the latest one', async (t) => {
  for (let level = 1; level < latest; level++) {
    await withDatabase(await databaseAtLevel(level), async (db) => {
      t.not(snapshotDifference(await catalogSnapshot(db.url), reference).length, 0, `level ${level} differs from level ${latest}`);
      if (!UPGRADED_HERE.has(level)) return;
      await migrateCommitted(db.url);
      t.same(snapshotDifference(await catalogSnapshot(db.url), reference), [], `level ${level} upgraded (- upgraded, + fresh)`);
    });
  }
});

t.test('levels that do not exist are refused', async (t) => {
  for (const level of [0, latest + 1, 1.5]) await t.rejects(databaseAtLevel(level), /no migration level/, `level ${level}`);
});

t.test('current.sql counts only with something besides comments (scripts/lib.sh)', async (t) => {
  t.notOk(sqlHasContent('-- Enter migration here\n'));
  t.notOk(sqlHasContent('\n  \n--\n-- a comment\r\n'));
  t.ok(sqlHasContent('--!include functions/submit.sql\n'), 'an include is content');
  t.ok(sqlHasContent('-- comment\nselect 1;\n'));
  t.ok(sqlHasContent('  alter table x add column y int; -- trailing comment'));
});
