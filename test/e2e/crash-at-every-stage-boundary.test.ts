// SIGKILL at every step boundary of the executor: after each runnable stage,
// after the destructive manifest is frozen, and after a chunk's S3 delete. One
// small community per boundary, all driven at once; each executor is killed
// (no cleanup, lease left behind) at its boundary; victims hold hour-long
// leases (a busy machine can never lose one early) that the test ends once
// every victim is dead; a successor then claims generation 2, resumes at the
// stage SQL reports and completes. The bystander is byte-identical in all
// three stores.
import t from 'tap';
import {
  checkpoints, deletions, e2eStores, expireLease, fingerprint, killHard, requestRow, seedCommunity, show, startDeletions, submitAndApprove, victimEnv, type Running,
} from '../helpers/e2e.js';

// boundary → the stage the request is at when the executor is killed there.
const BOUNDARIES: [string, string][] = [
  ['after:approved', 'fenced'],
  ['destructive_manifest_frozen', 'fenced'],
  ['after:fenced', 'drained'],
  ['chunk_deleted:0', 'drained'],
  ['after:drained', 'bindings_removed'],
  ['after:bindings_removed', 'postgres_purged'],
  ['after:postgres_purged', 'cache_purged'],
  ['after:cache_purged', 'logically_verified'],
  ['after:logically_verified', 'retention_pending'],
];

const { db, sql, bucket, redis, env } = await e2eStores(t);
const tag = `boundary-${process.pid}`;

const bystander = await seedCommunity(sql, bucket.store, redis, `bystander-${tag}.example`, { keys: 2 });
const targets = await Promise.all(
  BOUNDARIES.map(async ([boundary], i) => {
    const seeded = await seedCommunity(sql, bucket.store, redis, `t${i}-${tag}.example`, { rows: 1, keys: 1, versions: 2, redisKeys: 3 });
    return { boundary, ...seeded };
  }),
);
const requests = new Map<string, string>();
for (const target of targets) requests.set(target.boundary, await submitAndApprove(sql, bucket.store, target.host));
const bystanderBefore = await fingerprint(sql, bucket.store, redis, bystander.id);

const victims = new Map<string, Running>();
for (const [boundary] of BOUNDARIES) {
  victims.set(
    boundary,
    startDeletions(['run', requests.get(boundary)!, '--executor-id', `victim-${boundary}`], victimEnv(env), { pauseAt: boundary }),
  );
}

t.test('each executor reaches its boundary and is killed there', async (t) => {
  for (const [boundary, stage] of BOUNDARIES) {
    const victim = victims.get(boundary)!;
    t.equal(await victim.paused, boundary, `paused at ${boundary}`);
    const row = await requestRow(sql, requests.get(boundary)!);
    t.equal(row.stage, stage, `${boundary}: the request is at ${stage}`);
    if (stage === 'retention_pending') t.equal(row.lease_owner, null, 'the final step already released the lease');
    else t.match(row, { lease_owner: `victim-${boundary}`, lease_generation: '1' }, `${boundary}: the victim holds generation 1`);
    if (boundary === 'after:approved') t.equal(row.destructive_storage_manifest, null, 'not yet frozen');
    if (boundary === 'destructive_manifest_frozen') t.not(row.destructive_storage_manifest, null, 'frozen, drained not yet marked');
  }
  for (const [boundary] of BOUNDARIES) {
    const killed = await killHard(victims.get(boundary)!);
    t.equal(killed.signal, 'SIGKILL', `${boundary}: SIGKILL`);
  }
});

t.test('a successor completes every request at generation 2', async (t) => {
  for (const [boundary, stageAtKill] of BOUNDARIES) {
    if (stageAtKill !== 'retention_pending') await expireLease(sql, requests.get(boundary)!);
  }
  // One successor process claims them one after another (each at generation 2).
  const drain = await deletions(['drain', '--executor-id', 'successor'], env);
  t.equal(drain.code, 0, show(drain));
  const outcomes = drain.json.outcomes as { kind: string; request_id: string; stages: { stage: string }[] }[];
  for (const [boundary, stageAtKill] of BOUNDARIES) {
    const id = requests.get(boundary)!;
    const row = await requestRow(sql, id);
    const mine = outcomes.filter((o) => o.request_id === id);
    if (stageAtKill === 'retention_pending') {
      t.same(mine, [], `${boundary}: already complete, nothing left to claim`);
      t.match(row, { stage: 'retention_pending', lease_generation: '1' });
    } else {
      t.equal(mine.length, 1, `${boundary}: claimed once by the successor`);
      t.equal(mine[0]?.kind, 'completed', `${boundary}: completed`);
      t.equal(mine[0]?.stages[0]?.stage, stageAtKill, `${boundary}: resumed at ${stageAtKill}`);
      t.match(row, { stage: 'retention_pending', lease_owner: null, lease_generation: '2', retry_count: 0, blocked_at: null });
    }
    const failed = (await checkpoints(sql, id)).filter((c) => c.status === 'failed');
    t.same(failed, [], `${boundary}: no failed checkpoint`);
  }
  const rerun = await deletions(['run', requests.get('after:logically_verified')!], env);
  t.equal(rerun.code, 3, `a run of the request completed before the kill is refused (${show(rerun)})`);
  t.match(rerun.json, { outcome: 'not_runnable', state: 'completed' });
});

t.test('every target is gone from all three stores; the bystander is intact', async (t) => {
  for (const target of targets) {
    const after = await fingerprint(sql, bucket.store, redis, target.id);
    t.same({ rows: after.rows, versions: after.versions, keys: after.keys }, { rows: 0, versions: 0, keys: 0 }, `${target.boundary}: target absent`);
    const [c] = await sql<{ deletion_state: string }[]>`select deletion_state from public.communities where id = ${target.id}`;
    t.equal(c!.deletion_state, 'tombstone');
  }
  t.same(await fingerprint(sql, bucket.store, redis, bystander.id), bystanderBefore, 'bystander byte-identical');
});
