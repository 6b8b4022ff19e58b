// Two `drain` processes started together on a queue of four approved
// requests: every request completes exactly once; claims are disjoint (each
// request was claimed once — lease generation 1, one attempt — and appears in
// exactly one drain's output); every chunk was deleted and stamped once by one
// owner (checkpoint chunk:<n> completed, attempts 1, generation 1).
import t from 'tap';
import {
  checkpoints, cliEnv, e2eStores, fingerprint, requestRow, seedCommunity, show, startDeletions, submitAndApprove, type Seeded,
} from '../helpers/e2e.js';

const REQUESTS = 4;
const CHUNK_SIZE = 3; // several chunks per request

const { db, sql, bucket, redis } = await e2eStores(t);
const env = cliEnv(db, bucket, { DELETIONS_CHUNK_SIZE: String(CHUNK_SIZE) });
const tag = `drains-${process.pid}`;

const bystander = await seedCommunity(sql, bucket.store, redis, `bystander-${tag}.example`, { keys: 2 });
const targets: Seeded[] = [];
for (let i = 0; i < REQUESTS; i++) targets.push(await seedCommunity(sql, bucket.store, redis, `t${i}-${tag}.example`, { rows: 1, keys: 3, versions: 2 }));
const ids: string[] = [];
for (const target of targets) ids.push(await submitAndApprove(sql, bucket.store, target.host, { chunkSize: CHUNK_SIZE }));
const bystanderBefore = await fingerprint(sql, bucket.store, redis, bystander.id);

t.test('two drains empty the queue; each request completed exactly once', async (t) => {
  const a = startDeletions(['drain', '--executor-id', 'drain-a'], env);
  const b = startDeletions(['drain', '--executor-id', 'drain-b'], env);
  const [ra, rb] = await Promise.all([a.done, b.done]);
  t.equal(ra.code, 0, show(ra));
  t.equal(rb.code, 0, show(rb));
  const done = (r: typeof ra) => (r.json.outcomes as { kind: string; request_id: string }[]).filter((o) => o.kind === 'completed').map((o) => o.request_id);
  const byA = done(ra);
  const byB = done(rb);
  t.comment(`drain-a completed ${byA.length}, drain-b completed ${byB.length}`);
  t.same(byA.filter((id) => byB.includes(id)), [], 'no request completed by both drains');
  t.same([...byA, ...byB].sort(), [...ids].sort(), 'together they completed every request');
  t.equal(ra.json.failed + rb.json.failed, 0, 'no failure recorded');

  for (const id of ids) {
    const row = await requestRow(sql, id);
    t.match(row, { stage: 'retention_pending', lease_generation: '1', attempts: 1, retry_count: 0 }, `${id}: claimed once`);
    const cps = await checkpoints(sql, id);
    t.same(cps.filter((c) => c.status !== 'completed'), [], `${id}: every checkpoint completed`);
    t.ok(cps.every((c) => c.lease_generation === '1'), `${id}: every checkpoint written under generation 1`);
    const chunks = cps.filter((c) => c.unit_key.startsWith('chunk:'));
    const expected = (row.destructive_storage_manifest.prefixes as { object_count: number }[])
      .reduce((n, p) => n + Math.ceil(p.object_count / CHUNK_SIZE), 0);
    t.ok(expected >= 9, `${id}: several chunks (${expected})`);
    t.equal(chunks.length, expected, `${id}: one checkpoint per frozen chunk`);
    t.same(
      chunks.map((c) => ({ unit: c.unit_key, attempts: c.attempts })),
      chunks.map((_, n) => ({ unit: `chunk:${n}`, attempts: 1 })),
      `${id}: each chunk deleted and stamped exactly once`,
    );
  }
});

t.test('targets gone, bystander intact', async (t) => {
  for (const target of targets) {
    const after = await fingerprint(sql, bucket.store, redis, target.id);
    t.same({ rows: after.rows, versions: after.versions, keys: after.keys }, { rows: 0, versions: 0, keys: 0 });
  }
  t.same(await fingerprint(sql, bucket.store, redis, bystander.id), bystanderBefore, 'bystander byte-identical');
});
