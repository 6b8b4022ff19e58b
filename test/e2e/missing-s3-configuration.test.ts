// A `run` whose S3 configuration is missing fails before any claim (exit 5)
// and records that durably against the request: a failed
// pre_claim:service_setup checkpoint and a block naming the variable, so
// `inspect` explains the stranded request. Nothing was touched. After
// `unblock` and the correct configuration, the run completes.
import t from 'tap';
import {
  approverEnv, deletions, e2eStores, fingerprint, requestRow, seedCommunity, show,
} from '../helpers/e2e.js';

const { db, sql, bucket, redis, env } = await e2eStores(t);
const tag = `config-${process.pid}`;
const target = await seedCommunity(sql, bucket.store, redis, `target-${tag}.example`);
const bystander = await seedCommunity(sql, bucket.store, redis, `bystander-${tag}.example`);
const targetBefore = await fingerprint(sql, bucket.store, redis, target.id);
const bystanderBefore = await fingerprint(sql, bucket.store, redis, bystander.id);

let id = '';

t.test('submit and approve with a complete configuration', async (t) => {
  const submitted = await deletions(['submit', '--host', target.host, '--requested-by', 'alice@ops'], env);
  t.equal(submitted.code, 0, show(submitted));
  id = submitted.json.id;
  const approved = await deletions(['approve', id, '--approved-by', 'bob@ops'], approverEnv(env));
  t.equal(approved.code, 0, show(approved));
});

t.test('run without BUZZ_S3_BUCKET: exit 5, recorded as a pre-claim block naming the variable', async (t) => {
  const run = await deletions(['run', id], { ...env, BUZZ_S3_BUCKET: undefined });
  t.equal(run.code, 5, show(run));
  t.match(run.json, { error: /BUZZ_S3_BUCKET/, variable: 'BUZZ_S3_BUCKET' });

  const inspect = await deletions(['inspect', id], env);
  t.equal(inspect.code, 0, show(inspect));
  t.match(inspect.json, {
    state: 'blocked',
    explanation: /BUZZ_S3_BUCKET/,
    request: { stage: 'approved', blocked_reason: /BUZZ_S3_BUCKET/, lease_owner: null, lease_generation: 0 },
    community: { deletion_state: 'active' },
  });
  const preClaim = (inspect.json.checkpoints as { stage: string; unit_key: string; status: string; error: string; attempts: number }[]).filter((c) =>
    c.unit_key.startsWith('pre_claim:'),
  );
  t.match(preClaim, [{ stage: 'approved', unit_key: 'pre_claim:service_setup', status: 'failed', error: /BUZZ_S3_BUCKET/, attempts: 1 }]);
  t.same(await fingerprint(sql, bucket.store, redis, target.id), targetBefore, 'nothing of the target was touched');
});

t.test('a blocked request is not runnable, even once configured (exit 3)', async (t) => {
  const run = await deletions(['run', id], env);
  t.equal(run.code, 3, show(run));
  t.match(run.json, { outcome: 'not_runnable', state: 'blocked', next_step: /deletions unblock .* --reason .*community_deletion\.unblock/ });
});

t.test('another missing variable is named too (BUZZ_S3_ENDPOINT), and counted as a second attempt', async (t) => {
  const unblocked = await deletions(['unblock', id, '--unblocked-by', 'carol@ops', '--reason', 'retrying the setup'], env);
  t.equal(unblocked.code, 0, show(unblocked));
  const run = await deletions(['run', id], { ...env, BUZZ_S3_ENDPOINT: '' });
  t.equal(run.code, 5, show(run));
  t.match(run.json, { variable: 'BUZZ_S3_ENDPOINT' });
  const row = await requestRow(sql, id);
  t.match(row.blocked_reason, /BUZZ_S3_ENDPOINT/);
  const [cp] = await sql<{ attempts: number }[]>`
    select attempts from community_deletion.checkpoints where request_id = ${id} and unit_key = 'pre_claim:service_setup'`;
  t.equal(cp!.attempts, 2);
});

t.test('after unblock and the correct configuration the run completes', async (t) => {
  const unblocked = await deletions(['unblock', id, '--unblocked-by', 'carol@ops', '--reason', 'BUZZ_S3_BUCKET and BUZZ_S3_ENDPOINT set on the executor host'], env);
  t.equal(unblocked.code, 0, show(unblocked));
  t.match(unblocked.json, { id, stage: 'approved', blocked_at: null });
  const run = await deletions(['run', id], env);
  t.equal(run.code, 0, show(run));
  t.match(run.json, { kind: 'completed' });
  const inspect = await deletions(['inspect', id], env);
  t.match(inspect.json, { state: 'completed', request: { stage: 'retention_pending', lease_generation: 1 } });
  const audit = (inspect.json.checkpoints as { unit_key: string; detail: Record<string, unknown> }[]).filter((c) => c.unit_key.startsWith('operator_unblock:'));
  t.equal(audit.length, 2, 'each unblock left an audit checkpoint');
  const after = await fingerprint(sql, bucket.store, redis, target.id);
  t.same({ rows: after.rows, versions: after.versions, keys: after.keys }, { rows: 0, versions: 0, keys: 0 }, 'target absent');
  t.same(await fingerprint(sql, bucket.store, redis, bystander.id), bystanderBefore, 'bystander byte-identical');
});
