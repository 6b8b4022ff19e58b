// An S3 endpoint that answers 200 with an HTML page (a maintenance page, a
// misrouted load balancer) is never taken for an empty listing: not by the
// preflight, not by the post-fence enumeration, not by the absence proof.
// Each such run is a recorded transient failure (exit 1, malformed_listing)
// and the deletion does not reach retention_pending while anything is left
// under its prefixes. The endpoint is a real HTTP proxy in front of the test
// S3 server (test/helpers/s3-fault-proxy.ts), not a mock.
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import t from 'tap';
import { startFaultProxy } from '../helpers/s3-fault-proxy.js';
import {
  checkpoints, cliEnv, deletions, e2eStores, fingerprint, requestRow, seedCommunity, show, startDeletions, submitAndApprove,
} from '../helpers/e2e.js';

const { db, sql, bucket, redis } = await e2eStores(t);
const proxy = await startFaultProxy(bucket.config.endpoint);
t.teardown(() => proxy.close());
// Through the proxy, one HTTP attempt per S3 call: what is observed is the
// engine's handling of the answer, not the SDK's retries.
const env = cliEnv(db, { config: { ...bucket.config, endpoint: proxy.endpoint } }, { AWS_MAX_ATTEMPTS: '1' });
const tag = `html200-${process.pid}`;
const target = await seedCommunity(sql, bucket.store, redis, `target-${tag}.example`);
const second = await seedCommunity(sql, bucket.store, redis, `second-${tag}.example`);
const bystander = await seedCommunity(sql, bucket.store, redis, `bystander-${tag}.example`);
const targetBefore = await fingerprint(sql, bucket.store, redis, target.id);
const bystanderBefore = await fingerprint(sql, bucket.store, redis, bystander.id);
// Recorded against the proxy, the endpoint the runs use.
const id = await submitAndApprove(sql, bucket.store, target.host, { s3Endpoint: proxy.endpoint });
const secondId = await submitAndApprove(sql, bucket.store, second.host, { s3Endpoint: proxy.endpoint });
await sql`update community_deletion.settings set retry_base_delay = '1 millisecond', retry_max_delay = '1 millisecond'`;

t.test('every S3 answer an HTML page: the preflight fails transiently, nothing is touched', async (t) => {
  proxy.html.add('any');
  const run = await deletions(['run', id, '--executor-id', 'exec-html'], env);
  proxy.html.clear();
  t.equal(run.code, 1, show(run));
  t.match(run.json, { kind: 'failure_recorded', stage: 'approved', retryable: true, blocked: false, error: /ListVersionsResult/ });
  t.ok(proxy.answeredHtml > 0, 'the executor got the HTML page');
  t.match(await requestRow(sql, id), { stage: 'approved', retry_count: 1, lease_owner: null, blocked_at: null });
  const failed = (await checkpoints(sql, id)).filter((c) => c.status === 'failed');
  t.match(failed, [{ stage: 'approved', unit_key: 'storage_preflight' }]);
  const [c] = await sql<{ deletion_state: string }[]>`select deletion_state from public.communities where id = ${target.id}`;
  t.equal(c!.deletion_state, 'active', 'the failed preflight came before quiescing');
  t.same(await fingerprint(sql, bucket.store, redis, target.id), targetBefore, 'nothing deleted');
});

t.test('an HTML page answering the absence proof, with a version left under a prefix: no proof, no completion', async (t) => {
  // Run to just before the proof (stage cache_purged), then leave a version
  // behind under an owned prefix and make every listing an HTML page.
  const paused = startDeletions(['run', secondId, '--executor-id', 'exec-proof'], env, { pauseAt: 'after:postgres_purged' });
  t.equal(await paused.paused, 'after:postgres_purged');
  t.equal((await requestRow(sql, secondId)).stage, 'cache_purged', 'the next step is the cross-store absence proof');
  const straggler = `_uploads/${second.id}/${'f'.repeat(64)}.json`;
  const put = await bucket.client.send(new PutObjectCommand({ Bucket: bucket.config.bucket, Key: straggler, Body: 'left behind' }));
  proxy.html.add('ListObjectVersions');
  const answeredBefore = proxy.answeredHtml;
  process.kill(paused.pid, 'SIGUSR2');
  const run = await paused.done;
  proxy.html.clear();
  t.equal(run.code, 1, show(run));
  t.match(run.json, { kind: 'failure_recorded', stage: 'cache_purged', retryable: true, blocked: false, error: /ListVersionsResult/ });
  t.ok(proxy.answeredHtml > answeredBefore, 'the proof got the HTML page');
  t.match(await requestRow(sql, secondId), { stage: 'cache_purged', lease_owner: null });
  t.notOk((await checkpoints(sql, secondId)).some((c) => c.unit_key === 'verify_cross_store_absence'), 'no absence recorded');

  // With real listings the proof finds the version left behind.
  const found = await deletions(['run', secondId, '--executor-id', 'exec-proof'], env);
  t.equal(found.code, 1, show(found));
  t.match(found.json, { kind: 'failure_recorded', stage: 'cache_purged', error: new RegExp(straggler) });

  // Once it is gone, the proof holds and the deletion completes.
  await bucket.client.send(new DeleteObjectCommand({ Bucket: bucket.config.bucket, Key: straggler, VersionId: put.VersionId }));
  const done = await deletions(['run', secondId, '--executor-id', 'exec-proof'], env);
  t.equal(done.code, 0, show(done));
  t.match(done.json, { kind: 'completed' });
  t.match(await fingerprint(sql, bucket.store, redis, second.id, { pg: false }), { versions: 0, keys: 0 });
});

t.test('the bystander is byte-identical', async (t) => {
  t.same(await fingerprint(sql, bucket.store, redis, bystander.id), bystanderBefore);
});
