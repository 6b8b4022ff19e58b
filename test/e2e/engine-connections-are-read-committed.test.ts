// Every engine connection runs READ COMMITTED, whatever the database says:
// with `ALTER DATABASE … SET default_transaction_isolation = 'repeatable
// read'` (a setting some hosts use), the fence and the purge would refuse the
// executor's own transactions (25000). The driver sets the isolation as a
// startup parameter, which overrides database and role defaults; the whole
// deletion completes through the real CLI.
import t from 'tap';
import postgres from 'postgres';
import { adminSql, createTestDatabase } from '../helpers/db.js';
import {
  cliEnv, deletions, e2eStores, fingerprint, requestRow, seedCommunity, show, submitAndApprove,
} from '../helpers/e2e.js';

const { db, bucket, redis } = await e2eStores(t);
const tag = `rr-${process.pid}`;

// Seeded and approved first (the test's own pool runs READ COMMITTED).
const target = await seedCommunity(db.sql, bucket.store, redis, `target-${tag}.example`);
const bystander = await seedCommunity(db.sql, bucket.store, redis, `bystander-${tag}.example`);
const id = await submitAndApprove(db.sql, bucket.store, target.host);
const bystanderBefore = await fingerprint(db.sql, bucket.store, redis, bystander.id);

const admin = adminSql();
await admin.unsafe(`alter database "${db.name}" set default_transaction_isolation = 'repeatable read'`);
await admin.end();
// A fresh session of this database now starts REPEATABLE READ.
const fresh = postgres(db.url, { max: 1, onnotice: () => {} });
const [level] = await fresh<{ iso: string }[]>`select current_setting('transaction_isolation') as iso`;
await fresh.end();

t.test('a database defaulting to REPEATABLE READ does not stop the engine', async (t) => {
  t.equal(level!.iso, 'repeatable read', 'precondition: new sessions of this database default to REPEATABLE READ');
  const run = await deletions(['run', id], cliEnv(db, bucket));
  t.equal(run.code, 0, show(run));
  t.match(run.json, { kind: 'completed' });
  t.match(await requestRow(db.sql, id), { stage: 'retention_pending' });
  const after = await fingerprint(db.sql, bucket.store, redis, target.id);
  t.same({ rows: after.rows, versions: after.versions, keys: after.keys }, { rows: 0, versions: 0, keys: 0 }, 'target absent');
  t.same(await fingerprint(db.sql, bucket.store, redis, bystander.id), bystanderBefore, 'bystander byte-identical');
});
