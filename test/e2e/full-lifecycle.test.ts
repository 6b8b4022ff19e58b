// The whole lifecycle through the real CLI (submit as A, approve as B, run)
// against real PostgreSQL, Redis and a versioned S3 bucket: the target is gone
// from all three stores, a bystander with the same kinds of data is
// byte-identical, shared content-addressed keys are untouched, a rerun of the
// terminal request is refused (exit 3), and the CLI's JSON output and exit
// codes hold for usage errors (2), safety refusals (4) and not-runnable (3).
import t from 'tap';
import {
  approverEnv, checkpoints, deletions, e2eStores, fingerprint, keysDigest, redisClient, requestRow, RUNNABLE_STAGES, seedCommunity, seedShared, show,
} from '../helpers/e2e.js';

const { db, sql, bucket, redis, env } = await e2eStores(t);

const tag = `full-${process.pid}`;
const target = await seedCommunity(sql, bucket.store, redis, `target-${tag}.example`, { rows: 3, keys: 3, versions: 3, redisKeys: 25 });
const bystander = await seedCommunity(sql, bucket.store, redis, `bystander-${tag}.example`, { rows: 3, keys: 3, versions: 3, redisKeys: 25 });
const shared = await seedShared(bucket.store, tag);
const before = {
  target: await fingerprint(sql, bucket.store, redis, target.id),
  bystander: await fingerprint(sql, bucket.store, redis, bystander.id),
  shared: await keysDigest(bucket.store, shared),
};
const [provenanceRow] = await sql<{ provenance: number }[]>`
  select ((select count(*) from public.product_feedback) + (select count(*) from public.rate_limit_violations))::int as provenance`;
const provenanceBefore = provenanceRow!.provenance;

t.test('the seeded target has data in every scoped table and every owned prefix', async (t) => {
  const counts = await sql<{ table_name: string; row_count: string }[]>`select * from tests.scoped_row_counts(${target.id})`;
  t.equal(counts.length, 28, '28 scoped tables');
  t.same(counts.filter((c) => Number(c.row_count) === 0).map((c) => c.table_name), [], 'no scoped table is empty for the target');
  const perPrefix: Record<string, { objects: number; markers: number }> = {};
  for (const prefix of [`_meta/${target.id}/`, `_uploads/${target.id}/`, `repos/${target.id}/`]) {
    perPrefix[prefix] = { objects: 0, markers: 0 };
    for await (const e of bucket.store.listVersions(prefix)) perPrefix[prefix]![e.kind === 'object' ? 'objects' : 'markers'] += 1;
  }
  for (const [prefix, n] of Object.entries(perPrefix)) {
    t.equal(n.markers, 3, `${prefix}: a delete marker per key`);
    t.ok(n.objects >= 9, `${prefix}: several versions per key`);
  }
  t.ok(before.target.keys >= 27, 'Redis keys in the namespace');
});

let requestId = '';

t.test('usage errors exit 2', async (t) => {
  const notUuid = await deletions(['run', 'not-a-uuid'], env);
  t.equal(notUuid.code, 2, show(notUuid));
  t.match(notUuid.json, { error: /not a UUID/ }, 'the error is one JSON object on stdout');

  const missingFlag = await deletions(['submit', '--host', target.host], env);
  t.equal(missingFlag.code, 2, show(missingFlag));
  t.match(missingFlag.stderr, /requested-by/, 'the missing option is named on stderr');
  t.match(missingFlag.json, { error: /requested-by/, exit_code: 2 }, 'a usage error is one JSON object on stdout too (nothing but JSON goes there)');

  // An empty shell variable given as --host is refused; it never falls back to RELAY_URL.
  for (const blank of ['', '   ']) {
    const r = await deletions(['submit', '--host', blank, '--requested-by', 'alice@ops'], { ...env, RELAY_URL: `https://${target.host}/` });
    t.equal(r.code, 2, `--host ${JSON.stringify(blank)}: ${show(r)}`);
    t.match(r.json, { error: /--host is empty/ });
  }
  const [opened] = await sql<{ n: number }[]>`select count(*)::int as n from community_deletion.requests`;
  t.equal(opened!.n, 0, 'no request was opened for the relay\'s community');

  const unknownRequest = await deletions(['inspect', '00000000-0000-4000-8000-000000000000'], env);
  t.equal(unknownRequest.code, 2, show(unknownRequest));
  t.match(unknownRequest.json, { sqlstate: 'DL1N1' });

  const badLimit = await deletions(['list', '--limit', '5000'], env);
  t.equal(badLimit.code, 2, show(badLimit));
  t.match(badLimit.json, { error: /--limit 5000 is outside 1\.\.1000/, flag: '--limit' }, 'refused by the CLI, naming the flag');
});

t.test('submit as alice freezes the inventory (JSON request on stdout)', async (t) => {
  const r = await deletions(['submit', '--host', target.host.toUpperCase(), '--requested-by', 'alice@ops', '--reason', 'tenant asked to be forgotten'], env);
  t.equal(r.code, 0, show(r));
  t.equal(r.stdout.trim().split('\n').length, 1, 'exactly one line on stdout');
  t.match(r.json, { stage: 'inventoried', community_id: target.id, requested_by: 'alice@ops', inventory_digest: /^[0-9a-f]{64}$/ });
  t.match(r.stderr, /inventory frozen/, 'logs go to stderr');
  requestId = r.json.id;
  const row = await requestRow(sql, requestId);
  t.same(
    (row as any).storage_manifest.prefixes.map((p: any) => p.object_count),
    [before.target.versions / 3, before.target.versions / 3, before.target.versions / 3],
    'the inventory counts every version and delete marker',
  );
});

t.test('safety refusals exit 4 and not-runnable exits 3', async (t) => {
  const self = await deletions(['approve', requestId, '--approved-by', 'alice@ops'], approverEnv(env));
  t.equal(self.code, 4, show(self));
  t.match(self.json, { sqlstate: 'DL3A1' }, 'self-approval');
  const selfDisguised = await deletions(['approve', requestId, '--approved-by', '  ALICE@OPS '], approverEnv(env));
  t.equal(selfDisguised.code, 4, show(selfDisguised));
  t.match(selfDisguised.json, { sqlstate: 'DL3A1' }, 'self-approval, case and spaces aside');
  const sameLogin = await deletions(['approve', requestId, '--approved-by', 'bob@ops'], env);
  t.equal(sameLogin.code, 4, show(sameLogin));
  t.match(sameLogin.json, { sqlstate: 'DL3A1' }, 'the submitting login approving under another name');

  const second = await deletions(['submit', '--host', target.host, '--requested-by', 'carol@ops'], env);
  t.equal(second.code, 4, show(second));
  t.match(second.json, { sqlstate: 'DL2C2' }, 'a second open request for the community');

  const early = await deletions(['run', requestId], env);
  t.equal(early.code, 3, show(early));
  t.match(early.json, { outcome: 'not_runnable', state: 'waiting_for_approval' });
  t.equal((await requestRow(sql, requestId)).lease_generation, '0', 'nothing was claimed');
});

t.test('approve as bob, then run to retention_pending', async (t) => {
  const approved = await deletions(['approve', requestId, '--approved-by', 'bob@ops', '--note', 'checked with the tenant'], approverEnv(env));
  t.equal(approved.code, 0, show(approved));
  t.match(approved.json, { id: requestId, stage: 'approved' });

  const listed = await deletions(['list'], env);
  t.equal(listed.code, 0, show(listed));
  t.match(listed.json, [{ request_id: requestId, stage: 'approved', state: 'runnable', approved_by: 'bob@ops' }]);

  // Another executor's claim holds the request (its row lock, deterministic):
  // `run` says so — not "waiting for an executor" — and claims nothing.
  const holder = await sql.reserve();
  try {
    await holder`begin`;
    await holder`select 1 from community_deletion.requests where id = ${requestId} for update`;
    const raced = await deletions(['run', requestId], env);
    t.equal(raced.code, 3, show(raced));
    t.match(raced.json, { outcome: 'not_runnable', state: 'runnable', explanation: /another executor's claim held the request/, next_step: /deletions inspect / });
  } finally {
    await holder`rollback`;
    holder.release();
  }
  t.equal((await requestRow(sql, requestId)).lease_generation, '0', 'the raced run claimed nothing');

  // The fenced stage tells every connection of the community to drop.
  const subscriber = redisClient();
  t.teardown(() => subscriber.disconnect());
  const messages: string[] = [];
  subscriber.on('message', (_channel: string, message: string) => messages.push(message));
  await subscriber.subscribe(`buzz:${target.id}:conn-control`);

  // The shipped CLI has no test pause switch: a stray variable of the old
  // test hook must not hold the lease (the tests pause through test/helpers/pausing-cli.ts).
  const run = await deletions(['run', requestId, '--executor-id', 'e2e-executor'], { ...env, DELETIONS_TEST_PAUSE_AT: 'after:fenced' });
  t.equal(run.code, 0, show(run));
  t.equal(run.stdout.trim().split('\n').length, 1, 'exactly one line on stdout');
  t.match(run.json, { kind: 'completed', request_id: requestId });
  t.same(run.json.stages.map((s: { stage: string }) => s.stage), RUNNABLE_STAGES, 'every runnable stage ran once, in order');
  t.same(messages, ['{"op":"DisconnectCommunity"}'], 'disconnect published on conn-control');
});

t.test('the target is gone from all three stores; the tombstone remains', async (t) => {
  const after = await fingerprint(sql, bucket.store, redis, target.id);
  t.equal(after.rows, 0, 'no rows in any scoped table');
  t.equal(after.versions, 0, 'no object version or delete marker under the three prefixes');
  t.equal(after.keys, 0, 'no key in buzz:<id>:*');
  t.equal(await redis.get(`buzz:${target.id}`), 'bare key outside the namespace', 'the bare buzz:<id> key is not in the namespace and survives');
  const [tomb] = await sql`select deletion_state, deleted_at is not null as deleted, archived_at is not null as archived,
                                  signing_key is null as key_cleared, icon is null as icon_cleared, host
                           from public.communities where id = ${target.id}`;
  t.same(tomb, { deletion_state: 'tombstone', deleted: true, archived: true, key_cleared: true, icon_cleared: true, host: target.host });
  const [prov] = await sql<{ total: number; target: number }[]>`
    select ((select count(*) from public.product_feedback) + (select count(*) from public.rate_limit_violations))::int as total,
           ((select count(*) from public.product_feedback where community_id = ${target.id})
            + (select count(*) from public.rate_limit_violations where community_id = ${target.id}))::int as target`;
  t.equal(prov!.target, 0, 'provenance rows no longer name the target');
  t.equal(prov!.total, provenanceBefore, 'provenance rows are kept (their community_id nulled), not deleted');
});

t.test('the bystander is byte-identical and shared keys are untouched', async (t) => {
  const after = await fingerprint(sql, bucket.store, redis, bystander.id);
  t.same(after, before.bystander, 'PostgreSQL, S3 and Redis fingerprints of the bystander are unchanged');
  t.same(await keysDigest(bucket.store, shared), before.shared, 'blobs/, thumbs/, manifests/, packs/, idx/ keep every version');
  t.equal(before.shared.versions, 12);
});

t.test('inspect shows the completed stage; a rerun is refused with exit 3', async (t) => {
  const inspect = await deletions(['inspect', requestId], env);
  t.equal(inspect.code, 0, show(inspect));
  t.match(inspect.json, {
    state: 'completed',
    request: { stage: 'retention_pending', lease_owner: null, lease_generation: 1, completed_at: String },
    community: { deletion_state: 'tombstone' },
    approval: { approved_by: 'bob@ops', inventory_digest: inspect.json.request.inventory_digest },
  });
  const units = (inspect.json.checkpoints as { stage: string; unit_key: string; status: string }[]).map((c) => `${c.stage}/${c.unit_key}:${c.status}`);
  for (const unit of [
    'approved/quiesce_serving_writes:completed',
    'approved/activate_fence:completed',
    'fenced/freeze_destructive_manifest:completed',
    'fenced/serving_writes_drained:completed',
    'drained/chunk:0:completed',
    'drained/chunk:1:completed',
    'drained/chunk:2:completed',
    'drained/remove_storage_bindings:completed',
    'postgres_purged/purge_cache_namespace:completed',
    'cache_purged/verify_cross_store_absence:completed',
    'logically_verified/retention_physical_expiry_pending:completed',
  ]) {
    t.ok(units.includes(unit), `checkpoint ${unit}`);
  }
  t.notOk(units.some((u) => u.endsWith(':failed')), 'no failed checkpoint');

  const rerun = await deletions(['run', requestId], env);
  t.equal(rerun.code, 3, show(rerun));
  t.match(rerun.json, { outcome: 'not_runnable', request_id: requestId, state: 'completed' });
  const abort = await deletions(['abort', requestId, '--aborted-by', 'carol@ops', '--reason', 'too late'], env);
  t.equal(abort.code, 3, show(abort));
  t.match(abort.json, { sqlstate: 'DL2T1' }, 'a terminal request cannot be aborted');
  const row = await requestRow(sql, requestId);
  t.equal(row.stage, 'retention_pending');
  t.equal(row.lease_generation, '1', 'the refused rerun claimed nothing');
  t.same((await checkpoints(sql, requestId)).filter((c) => c.status === 'failed'), []);
});
