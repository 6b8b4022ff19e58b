// Migration 000007 moves the engine from public into schema
// community_deletion and renames its API. An upgrade, not a rewrite: a
// database at level 6 with deletions in flight (driven by the level-6 API
// against real S3 and Redis) is upgraded the way a deployment does it, and
// then the CLI of today finishes those deletions from where the old executor
// stopped, while every guard held on both sides of the upgrade.
//
// At level 6 only level-6 SQL is used (public.deletion_*, public.community_
// deletion_*), written here once and never to change: the SQL fixtures of
// db/tests follow the latest layout and are loaded only after the upgrade.
import t, { type Test } from 'tap';
import type postgres from 'postgres';
import path from 'node:path';
import { enumerateOwnedStorage } from '../../src/inventory.js';
import type { ManifestEntry } from '../../src/manifest.js';
import { Taxonomy, type TaxonomyRow } from '../../src/taxonomy.js';
import { createTestBucket } from '../helpers/moto.js';
import {
  RUNNABLE_STAGES, checkpoints, cliEnv, deletions, expireLease, fingerprint, redisClient, requestRow, show, type Fingerprint,
} from '../helpers/e2e.js';
import {
  appliedMigrations, applicationWrite, catalogSnapshot, committedMigrations, communityRowsDigest, databaseAtLatest,
  databaseAtLevel, dropLevelTemplates, root, runSqlFile, seedCommunityRows, seedStorageAndCache, snapshotDifference, sqlStateOf, tableRows, onOldColumns, upgradeToLatest,
} from '../helpers/upgrade.js';

const CHUNK_SIZE = 2;
const LEASE_SECONDS = 3600; // the fake executors' leases: no busy machine outlives them by accident

// The control plane at level 6 and where 000007 puts each table.
const MOVED_TABLES: readonly (readonly [string, string])[] = [
  ['public.community_deletion_requests', 'community_deletion.requests'],
  ['public.community_deletion_approvals', 'community_deletion.approvals'],
  ['public.community_deletion_checkpoints', 'community_deletion.checkpoints'],
  ['public.community_deletion_executor_heartbeats', 'community_deletion.executor_heartbeats'],
  ['public.community_deletion_manifest_keys', 'community_deletion.manifest_keys'],
  ['public.community_deletion_serving_write_grants', 'community_deletion.serving_write_grants'],
  ['public.community_deletion_settings', 'community_deletion.settings'],
  ['public.community_deletion_storage_taxonomy', 'community_deletion.storage_taxonomy'],
  ['public.community_deletion_tables', 'community_deletion.registered_tables'],
  ['public.community_serving_write_leases', 'community_deletion.serving_write_leases'],
  ['public.storage_taxonomy_sweeps', 'community_deletion.taxonomy_sweeps'],
];

const db = await databaseAtLevel(6);
t.teardown(() => db.drop());
t.teardown(dropLevelTemplates);
const sql = db.sql;
const bucket = await createTestBucket(t);
const redis = redisClient();
const seeded: string[] = []; // communities whose Redis keys this file leaves behind in the shared server
t.teardown(async () => {
  for (const id of seeded) {
    const keys = await redis.keys(`buzz:${id}*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis.disconnect();
});

// ---- level-6 SQL --------------------------------------------------------

async function level6Taxonomy(): Promise<Taxonomy> {
  return new Taxonomy(await sql<TaxonomyRow[]>`select name, scope, prefix_template, key_pattern, writer from public.deletion_storage_taxonomy()`);
}

/** submit (carol), freeze the inventory from a real listing, approve (dave): level-6 API. */
async function submitAndApproveLevel6(host: string, taxonomy: Taxonomy): Promise<{ id: string; communityId: string }> {
  const [request] = await sql<{ id: string; community_id: string }[]>`
    select id, community_id from public.deletion_submit(${host}, 'carol@ops', 'upgrade test')`;
  const summary = await enumerateOwnedStorage(bucket.store, taxonomy, request!.community_id, { chunkSize: CHUNK_SIZE });
  await sql`select 1 from public.deletion_freeze_inventory(${request!.id}::uuid, ${sql.json(JSON.parse(JSON.stringify(summary)))})`;
  await sql`select 1 from public.deletion_approve(${request!.id}::uuid, 'dave@ops', 'approved before the upgrade')`;
  return { id: request!.id, communityId: request!.community_id };
}

interface Lease {
  id: string;
  communityId: string;
  owner: string;
  generation: string;
}

/** claim, heartbeat, begin quiescing: level-6 API, as an executor of level 6 would. */
async function claimAndQuiesceLevel6(request: { id: string; communityId: string }, owner: string): Promise<Lease> {
  const [claim] = await sql<{ lease_generation: string }[]>`
    select lease_generation from public.deletion_claim(${owner}, ${request.id}::uuid, ${LEASE_SECONDS}::integer)`;
  if (!claim) throw new Error(`level 6 claimed nothing for ${request.id}`);
  const generation = String(claim.lease_generation);
  await sql`select public.deletion_heartbeat(${request.id}::uuid, ${owner}, ${generation}::bigint, 'run', ${LEASE_SECONDS}::integer, false)`;
  await sql`select public.deletion_begin_quiescing(${request.id}::uuid, ${owner}, ${generation}::bigint)`;
  return { ...request, owner, generation };
}

/** The fence, once no serving lease is live: level-6 API. */
async function fenceLevel6(lease: Lease): Promise<Token> {
  const [fenced] = await sql<{ fence: string }[]>`
    select public.deletion_fence(${lease.id}::uuid, ${lease.owner}, ${lease.generation}::bigint) as fence`;
  return { ...lease, fence: String(fenced!.fence) };
}

/** The post-fence enumeration into key chunks and the destructive manifest's freeze: level-6 API. */
async function freezeDestructiveLevel6(token: Token, taxonomy: Taxonomy): Promise<void> {
  const { id, owner, generation, fence } = token;
  const summary = await enumerateOwnedStorage(bucket.store, taxonomy, token.communityId, {
    chunkSize: CHUNK_SIZE,
    onChunk: async (chunk) => {
      await sql`select public.deletion_append_key_chunk(${id}::uuid, ${owner}, ${generation}::bigint, ${fence}::bigint,
        ${chunk.chunk_no}::integer, ${chunk.prefix}, ${sql.json(JSON.parse(JSON.stringify(chunk.entries)))})`;
    },
  });
  await sql`select public.deletion_freeze_destructive_manifest(${id}::uuid, ${owner}, ${generation}::bigint, ${fence}::bigint,
    ${sql.json(JSON.parse(JSON.stringify(summary)))})`;
}

interface Token extends Lease {
  fence: string;
}

/** A level-6 executor call that presents the fenced token (and optionally a detail object). */
async function executorCall(token: Token, fn: string, detail?: postgres.JSONValue): Promise<unknown[]> {
  const args = [token.id, token.owner, token.generation, token.fence, ...(detail ? [sql.json(detail)] : [])];
  return sql.unsafe(`select * from public.${fn}($1::uuid, $2, $3::bigint, $4::bigint${detail ? ', $5::jsonb' : ''})`, args);
}

/** Every remaining stage of a deletion of a community without objects or keys: level-6 API. */
async function finishEmptyDeletionLevel6(token: Token): Promise<void> {
  await executorCall(token, 'deletion_mark_drained');
  if ((await executorCall(token, 'deletion_next_key_chunk')).length > 0) throw new Error('a community without objects has a key chunk');
  await executorCall(token, 'deletion_mark_bindings_removed', { deleted: 0 });
  await executorCall(token, 'deletion_purge_postgres');
  await executorCall(token, 'deletion_mark_cache_purged', { unlinked: 0 });
  await executorCall(token, 'deletion_verify_postgres_absence');
  await executorCall(token, 'deletion_mark_logically_verified', { postgres: 'absent', storage: 'empty', redis: 'empty' });
  await executorCall(token, 'deletion_mark_retention_pending', { executor: token.owner });
}

interface ServingLease {
  id: string;
  owner: string;
  generation: string;
  fence_generation: string;
}

/** A serving-write lease for an upload, as the application takes it: level-6 API. */
async function acquireServingLeaseLevel6(communityId: string, owner: string): Promise<ServingLease> {
  const [lease] = await sql<ServingLease[]>`
    select id, owner, generation, fence_generation
      from public.deletion_serving_lease_acquire(${communityId}::uuid, 'upload', ${owner}, ${LEASE_SECONDS}::integer)`;
  return lease!;
}

// ---- the scene at level 6 -----------------------------------------------

const tag = `upgrade7-${process.pid}`;
const hosts = {
  quiescing: `quiescing-${tag}.example`,
  fenced: `fenced-${tag}.example`,
  drained: `drained-${tag}.example`,
  bystander: `bystander-${tag}.example`,
  deleted: `deleted-${tag}.example`,
};
const ids = {
  quiescing: await seedCommunityRows(sql, hosts.quiescing),
  fenced: await seedCommunityRows(sql, hosts.fenced),
  drained: await seedCommunityRows(sql, hosts.drained),
  bystander: await seedCommunityRows(sql, hosts.bystander),
  deleted: await seedCommunityRows(sql, hosts.deleted),
};
for (const which of ['quiescing', 'fenced', 'drained', 'bystander'] as const) {
  seeded.push(ids[which]);
  await seedStorageAndCache(bucket.store, redis, ids[which], `${tag}:${which}`);
}

const [registry] = await sql<{ scoped: string[]; provenance: string[] }[]>`
  select array_agg(table_name order by table_name) filter (where kind = 'scoped') as scoped,
         array_agg(table_name order by table_name) filter (where kind = 'provenance') as provenance
    from public.community_deletion_tables`;
const tenantTables = [...registry!.scoped, ...registry!.provenance];

const tokens: Record<'fenced' | 'drained' | 'deleted', Token> = {} as Record<'fenced' | 'drained' | 'deleted', Token>;
let quiescing: Lease;
const servingLeases: Record<'bystander' | 'quiescing', ServingLease> = {} as Record<'bystander' | 'quiescing', ServingLease>;

interface Level6State {
  tables: Map<string, unknown[]>;
  communities: unknown[];
  bystanderRows: string;
  fenceImplementation: string;
  lockKey: string;
  lastCheckpoint: string;
}
let level6: Level6State;

t.test('level 6: the old API takes four deletions to where an upgrade may find them', async (t) => {
  const taxonomy = await level6Taxonomy();

  // Deleted completely before the upgrade (no objects, no keys).
  tokens.deleted = await fenceLevel6(await claimAndQuiesceLevel6(await submitAndApproveLevel6(hosts.deleted, taxonomy), 'old-executor-3'));
  await sql`select public.deletion_freeze_destructive_manifest(${tokens.deleted.id}::uuid, ${tokens.deleted.owner},
    ${tokens.deleted.generation}::bigint, ${tokens.deleted.fence}::bigint,
    ${sql.json(JSON.parse(JSON.stringify(await enumerateOwnedStorage(bucket.store, taxonomy, ids.deleted, { chunkSize: CHUNK_SIZE }))))})`;
  await finishEmptyDeletionLevel6(tokens.deleted);

  // Fenced, key chunks appended and the destructive manifest frozen; the executor stops before mark_drained.
  tokens.fenced = await fenceLevel6(await claimAndQuiesceLevel6(await submitAndApproveLevel6(hosts.fenced, taxonomy), 'old-executor'));
  await freezeDestructiveLevel6(tokens.fenced, taxonomy);

  // One step further: drained, and the executor deleted chunk 0's versions and stamped it.
  tokens.drained = await fenceLevel6(await claimAndQuiesceLevel6(await submitAndApproveLevel6(hosts.drained, taxonomy), 'old-executor-2'));
  await freezeDestructiveLevel6(tokens.drained, taxonomy);
  {
    const { id, owner, generation, fence } = tokens.drained;
    await sql`select public.deletion_mark_drained(${id}::uuid, ${owner}, ${generation}::bigint, ${fence}::bigint)`;
    const [chunk] = await sql<{ chunk_no: number; prefix: string; entries: ManifestEntry[] }[]>`
      select chunk_no, prefix, entries from public.deletion_next_key_chunk(${id}::uuid, ${owner}, ${generation}::bigint, ${fence}::bigint)`;
    t.equal(chunk?.chunk_no, 0, 'the chunk loop starts at chunk 0');
    const outcome = await bucket.store.deleteVersions(chunk!.prefix, chunk!.entries);
    t.equal(outcome.deleted, CHUNK_SIZE, "chunk 0's versions are deleted from S3");
    await sql`select public.deletion_stamp_key_chunk(${id}::uuid, ${owner}, ${generation}::bigint, ${fence}::bigint, 0,
      ${sql.json({ deleted: outcome.deleted, already_missing: outcome.alreadyMissing, requests: outcome.requests })})`;
  }

  // Quiescing: an upload admitted while the community was active still holds
  // its serving lease, so the executor waits for it before fencing (DL5D1).
  servingLeases.quiescing = await acquireServingLeaseLevel6(ids.quiescing, 'app-2');
  quiescing = await claimAndQuiesceLevel6(await submitAndApproveLevel6(hosts.quiescing, taxonomy), 'old-executor-4');
  t.equal(await sqlStateOf(sql`select public.deletion_fence(${quiescing.id}::uuid, ${quiescing.owner}, ${quiescing.generation}::bigint)`),
    'DL5D1', 'the fence waits for the admitted upload');

  // The application holds a serving-write lease on the bystander across the upgrade.
  servingLeases.bystander = await acquireServingLeaseLevel6(ids.bystander, 'app-1');

  const stages = await sql<{ id: string; stage: string }[]>`
    select id, stage from public.community_deletion_requests order by stage`;
  t.same(Object.fromEntries(stages.map((r) => [r.id, r.stage])), {
    [quiescing.id]: 'approved',
    [tokens.deleted.id]: 'retention_pending',
    [tokens.fenced.id]: 'fenced',
    [tokens.drained.id]: 'drained',
  }, 'one request completed, one approved (quiescing), one fenced, one drained');
  const chunks = await sql<{ request_id: string; chunks: number; stamped: number }[]>`
    select request_id, count(*)::int as chunks, count(deleted_at)::int as stamped
      from public.community_deletion_manifest_keys group by request_id`;
  t.same(Object.fromEntries(chunks.map((r) => [r.request_id, [r.chunks, r.stamped]])), {
    [tokens.fenced.id]: [12, 0],
    [tokens.drained.id]: [12, 1],
  }, '7 entries per prefix in chunks of 2: 12 chunks each, one of them stamped on the drained request');
  const states = await sql<{ id: string; deletion_state: string }[]>`select id, deletion_state from public.communities`;
  t.same(Object.fromEntries(states.map((r) => [r.id, r.deletion_state])), {
    [ids.quiescing]: 'quiescing', [ids.fenced]: 'fenced', [ids.drained]: 'fenced', [ids.bystander]: 'active', [ids.deleted]: 'tombstone',
  }, 'the communities are quiescing, fenced, active and a tombstone');

  const [facts] = await sql<{ impl: string; lock_key: string; last_checkpoint: string }[]>`
    select public.deletion_write_fence_implementation() as impl,
           public._deletion_community_lock_key(${ids.bystander}::uuid) as lock_key,
           (select max(sequence) from public.community_deletion_checkpoints) as last_checkpoint`;
  level6 = {
    tables: new Map(await Promise.all(MOVED_TABLES.map(async ([old]) => [old, await tableRows(sql, old)] as const))),
    communities: await tableRows(sql, 'public.communities'),
    bystanderRows: await communityRowsDigest(sql, tenantTables, ids.bystander),
    fenceImplementation: facts!.impl,
    lockKey: facts!.lock_key,
    lastCheckpoint: facts!.last_checkpoint,
  };
});

t.test('level 6: the guards hold before the upgrade', async (t) => {
  await guardsHold(t);
});

async function guardsHold(t: Test): Promise<void> {
  t.equal(await applicationWrite(db.url, ids.quiescing), '55000', 'the application cannot write the quiescing community without a lease');
  t.equal(await applicationWrite(db.url, ids.fenced), '55000', 'the application cannot write the fenced community');
  t.equal(await applicationWrite(db.url, ids.drained), '55000', 'the application cannot write the drained community');
  t.equal(await applicationWrite(db.url, ids.deleted), '55000', 'the application cannot write the tombstone');
  t.equal(await applicationWrite(db.url, ids.bystander), 'allowed', 'the application can write the bystander (rolled back)');
  t.equal(await sqlStateOf(sql`insert into public.communities (host) values (${hosts.deleted.toUpperCase()})`), 'DL8T2',
    "the tombstone's host cannot be reused");
  t.equal(await sqlStateOf(sql`update public.communities set deletion_state = 'active', deleted_at = null where id = ${ids.deleted}`),
    'DL8T1', 'the tombstone cannot be revived');
}

// ---- the upgrade --------------------------------------------------------

t.test('the upgrade applies the remaining migrations and yields the schema of a fresh database', async (t) => {
  await upgradeToLatest(db.url);
  const applied = await appliedMigrations(db);
  t.same(applied.map((m) => m.filename), (await committedMigrations()).map((f) => `${f.slice(0, 6)}.sql`), 'every committed migration is applied');

  const fresh = await databaseAtLatest();
  try {
    const difference = snapshotDifference(await catalogSnapshot(db.url), await catalogSnapshot(fresh.url));
    t.same(difference, [], 'the catalog of the upgraded database equals a freshly migrated one (- upgraded, + fresh)');
    const registryOf = (s: postgres.Sql) => s`select table_name, kind, purge_order, note from community_deletion.registered_tables order by table_name`;
    t.same(await registryOf(sql), await registryOf(fresh.sql), 'the table registry equals a fresh one');
    const taxonomyOf = (s: postgres.Sql) => s`select * from community_deletion.storage_taxonomy order by name`;
    t.same(await taxonomyOf(sql), await taxonomyOf(fresh.sql), 'the storage taxonomy equals a fresh one');
  } finally {
    await fresh.drop();
  }
});

t.test('every row of the control plane moved with its table, unchanged', async (t) => {
  for (const [old, moved] of MOVED_TABLES) {
    const [gone] = await sql<{ gone: boolean }[]>`select to_regclass(${old}) is null as gone`;
    t.ok(gone!.gone, `${old} is gone`);
    let expected = level6.tables.get(old)!;
    // 000007 drops the registry's entries for the engine's own tables, which left public.
    if (old === 'public.community_deletion_tables') expected = expected.filter((r) => (r as { kind: string }).kind !== 'control_plane');
    // (on the columns it had at level 6: later migrations may add columns)
    t.same(onOldColumns(expected, await tableRows(sql, moved)), expected, `${moved} holds exactly the rows ${old} held`);
  }
  t.equal(level6.tables.get('public.community_deletion_manifest_keys')!.length, 24, 'the comparison covered the 24 key chunks');
  t.same(onOldColumns(level6.communities, await tableRows(sql, 'public.communities')), level6.communities, 'public.communities is unchanged');
  t.equal(await communityRowsDigest(sql, tenantTables, ids.bystander), level6.bystanderRows, "the bystander's rows are unchanged");
  const [facts] = await sql<{ impl: string; lock_key: string }[]>`
    select community_deletion.write_fence_implementation() as impl, community_deletion._community_lock_key(${ids.bystander}::uuid) as lock_key`;
  t.equal(facts!.impl, level6.fenceImplementation, 'the write fence keeps its implementation');
  t.equal(facts!.lock_key, level6.lockKey, 'the community lock key is the same (old and new code must agree on it)');
});

t.test('nothing of the engine is left in public', async (t) => {
  const functions = await sql<{ fn: string }[]>`
    select p.oid::regprocedure::text as fn from pg_proc p
     where p.pronamespace = 'public'::regnamespace and (p.proname like 'deletion\\_%' or p.proname like '\\_deletion\\_%')`;
  t.same(functions, [], 'no function deletion_% or _deletion_% in public');
  const { id, owner, generation } = tokens.fenced;
  t.equal(await sqlStateOf(sql`select public.deletion_verify_token(${id}::uuid, ${owner}, ${generation}::bigint, 'fenced')`), '42883',
    'an executor of level 6 still running cannot act: its API is gone');
  const triggers = await sql<{ trigger: string }[]>`
    select tg.tgname || ' on ' || tg.tgrelid::regclass || ' executes ' || tg.tgfoid::regprocedure as trigger
      from pg_trigger tg join pg_proc p on p.oid = tg.tgfoid
     where not tg.tgisinternal and p.pronamespace <> 'community_deletion'::regnamespace`;
  t.same(triggers, [], 'every trigger executes a community_deletion function');
  const eventTriggers = await sql<{ evtname: string }[]>`
    select e.evtname from pg_event_trigger e join pg_proc p on p.oid = e.evtfoid
     where p.pronamespace <> 'community_deletion'::regnamespace`;
  t.same(eventTriggers, [], 'every event trigger executes a community_deletion function');
});

t.test('latest level: the guards still hold', async (t) => {
  await guardsHold(t);
  t.equal(await sqlStateOf(sql`select community_deletion.submit(${hosts.deleted}, 'carol@ops', 'again')`), 'DL2C1',
    'the tombstoned community cannot be submitted again');
  t.equal(await sqlStateOf(sql`delete from public.communities where id = ${ids.deleted}`), 'DL8T1', 'the tombstone cannot be deleted');
  const [deleted] = await sql<{ deletion_state: string }[]>`select deletion_state from public.communities where id = ${ids.deleted}`;
  t.equal(deleted?.deletion_state, 'tombstone', 'the tombstone stays a tombstone');
});

t.test('the tokens issued at level 6 are still current under the new API', async (t) => {
  for (const [which, stage] of [['fenced', 'fenced'], ['drained', 'drained']] as const) {
    const { id, owner, generation, fence } = tokens[which];
    t.equal(await sqlStateOf(sql`select community_deletion.verify_token(${id}::uuid, ${owner}, ${generation}::bigint, ${stage})`), 'ok',
      `the old executor's lease on the ${which} request verifies`);
    const [state] = await sql<{ stage: string; fence_generation: string; destructive_manifest_frozen: boolean }[]>`
      select stage, fence_generation, destructive_manifest_frozen from community_deletion.lease_state(${id}::uuid, ${owner}, ${generation}::bigint)`;
    t.same(state, { stage, fence_generation: fence, destructive_manifest_frozen: true }, `lease_state resumes the ${which} request`);
    const [inspected] = await sql<{ state: string }[]>`select community_deletion.inspect(${id}::uuid) ->> 'state' as state`;
    t.equal(inspected?.state, 'leased', 'inspect reports it leased');
  }
  const [progress] = await sql<{ total: number; deleted: number }[]>`
    select total::int, deleted::int from community_deletion.key_chunk_progress(${tokens.drained.id}::uuid)`;
  t.same(progress, { total: 12, deleted: 1 }, "the drained request's stamp survived");
  const [completed] = await sql<{ state: string }[]>`select community_deletion.inspect(${tokens.deleted.id}::uuid) ->> 'state' as state`;
  t.equal(completed?.state, 'completed', 'inspect reports the deletion finished at level 6 completed');

  const verifyServingLease = ({ id, owner, generation, fence_generation }: ServingLease) =>
    sqlStateOf(sql`select community_deletion.verify_serving_lease(${id}::uuid, ${owner}, ${generation}::bigint, ${fence_generation}::bigint)`);
  const releaseServingLease = async ({ id, owner, generation, fence_generation }: ServingLease) => {
    const [row] = await sql<{ released: boolean }[]>`
      select community_deletion.release_serving_lease(${id}::uuid, ${owner}, ${generation}::bigint, ${fence_generation}::bigint) as released`;
    return row?.released;
  };
  t.equal(await verifyServingLease(servingLeases.bystander), 'ok', "the application's serving lease on the bystander is still live");
  t.equal(await releaseServingLease(servingLeases.bystander), true, 'and is released through the new API');

  const { id, owner, generation } = quiescing;
  t.equal(await sqlStateOf(sql`select community_deletion.verify_token(${id}::uuid, ${owner}, ${generation}::bigint, 'approved')`), 'ok',
    "the old executor's lease on the quiescing request verifies");
  t.equal(await sqlStateOf(sql`select community_deletion.fence(${id}::uuid, ${owner}, ${generation}::bigint)`), 'DL5D1',
    'the new fence still waits for the upload admitted at level 6');
  t.equal(await verifyServingLease(servingLeases.quiescing), 'ok', 'that upload may still finish');
  t.equal(await releaseServingLease(servingLeases.quiescing), true, 'and releases its lease through the new API');
});

// ---- the CLI of today finishes what level 6 started ---------------------

t.test('the real CLI finishes the three deletions; the bystander is byte-identical', async (t) => {
  await runSqlFile(db.url, path.join(root, 'db', 'tests', 'fixtures', 'helpers.sql'));
  const bystanderBefore: Fingerprint = await fingerprint(sql, bucket.store, redis, ids.bystander);
  const env = cliEnv(db, bucket, { DELETIONS_CHUNK_SIZE: String(CHUNK_SIZE) });

  const leases = { quiescing, fenced: tokens.fenced, drained: tokens.drained };
  for (const [which, resumeAt] of [['quiescing', 'approved'], ['fenced', 'fenced'], ['drained', 'drained']] as const) {
    const { id, generation } = leases[which];
    await expireLease(sql, id);
    const run = await deletions(['run', id, '--executor-id', 'new-executor'], env);
    t.equal(run.code, 0, show(run));
    t.same(run.json?.stages?.map((s: { stage: string }) => s.stage), RUNNABLE_STAGES.slice(RUNNABLE_STAGES.indexOf(resumeAt)),
      `the ${which} request resumes at ${resumeAt} and runs every later stage once`);
    const row = await requestRow(sql, id);
    t.equal(row.stage, 'retention_pending', 'the request is complete');
    t.equal(row.lease_generation, String(Number(generation) + 1), 'the new executor held lease generation 2');
    t.equal(row.lease_owner, null, 'and released its lease');

    const stamps = (await checkpoints(sql, id)).filter((c) => c.stage === 'drained' && c.unit_key.startsWith('chunk:'));
    t.equal(stamps.length, 12, 'one stamp checkpoint per chunk');
    t.same(stamps.filter((c) => c.lease_generation !== '2').map((c) => [c.unit_key, c.lease_generation]),
      which === 'drained' ? [['chunk:0', '1']] : [], 'the chunks stamped at level 6 were not deleted again');

    const after = await fingerprint(sql, bucket.store, redis, ids[which]);
    t.same({ rows: after.rows, versions: after.versions, keys: after.keys }, { rows: 0, versions: 0, keys: 0 },
      `nothing of the ${which} community is left in PostgreSQL, S3 or Redis`);
    t.equal(await redis.get(`buzz:${ids[which]}`), 'bare key outside the namespace', 'the bare key outside the namespace survives');
    const [community] = await sql<{ deletion_state: string }[]>`select deletion_state from public.communities where id = ${ids[which]}`;
    t.equal(community?.deletion_state, 'tombstone', 'the community is a tombstone');
    const [provenance] = await sql<{ n: number }[]>`
      select count(*)::int as n from public.product_feedback where community_id = ${ids[which]}`;
    t.equal(provenance?.n, 0, 'its provenance rows no longer point at it');
  }

  // Checkpoints are listed by sequence: every one written since is numbered after level 6's (re-recorded ones keep theirs).
  const [numbering] = await sql<{ level6: number; all: number }[]>`
    select count(*) filter (where sequence <= ${level6.lastCheckpoint}::bigint)::int as level6, count(*)::int as all
      from community_deletion.checkpoints`;
  t.equal(numbering!.level6, level6.tables.get('public.community_deletion_checkpoints')!.length,
    'no checkpoint written after the upgrade is numbered among those of level 6');
  t.ok(numbering!.all > numbering!.level6, 'the new executor wrote checkpoints');

  t.same(await fingerprint(sql, bucket.store, redis, ids.bystander), bystanderBefore, 'the bystander is byte-identical in all three stores');
  t.equal(await communityRowsDigest(sql, tenantTables, ids.bystander), level6.bystanderRows, 'and its rows are those it had at level 6');
  t.equal(await applicationWrite(db.url, ids.bystander), 'allowed', 'the bystander is still writable');
});
