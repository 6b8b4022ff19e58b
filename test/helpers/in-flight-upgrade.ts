// The upgrade test for every migration from 000008 on, written once, run by
// test/upgrade/in-flight-deletions-survive-every-upgrade.test.ts (the write
// fence as migrated) and …-plpgsql-fence.test.ts (the PL/pgSQL fallback), two
// files so that the two climbs run side by side. One database per write fence
// climbs the levels the way a long-lived deployment
// does: built at level 7 (the first with the stable SQL API of
// docs/sql-api.md), and at each level L up to the latest committed level - 1
// it is put in use through the level-L API exactly as a level-L client would
// (positional calls, submit and approve by two different database logins):
//   * a target community fenced, its post-fence key chunks appended and the
//     destructive manifest frozen (its executor stopped before mark_drained),
//   * a community deleted completely (a tombstone, retention_pending), and
//   * a bystander in use;
// then migration L+1 is applied by graphile-migrate. After every migration,
// every scene of every earlier level must still be intact: nothing in flight
// lost, the bystanders' rows unchanged. At the top (current.sql applied too)
// the catalog must equal a freshly migrated one, every guard of every scene
// must hold, and one real CLI drain finishes every level's fenced deletion
// while every bystander stays byte-identical. So a deletion left in flight at
// level L is carried across every later migration, next to deletions left at
// other levels, as on a real deployment. The climb runs twice: with the write
// fence its migrations installed (native where the library is installed) and
// with the PL/pgSQL fallback. A new migration is covered as soon as it is
// committed (latestLevel()); until then this file already tests the upgrade
// through current.sql.
//
// One database per fence rather than one per level keeps the cost linear in
// the number of migrations (each is applied once per fence, not once per
// level below it).
//
// At level L only level-L SQL is used; the SQL fixtures of db/tests follow the
// latest layout and are loaded for good only after the upgrade.
import path from 'node:path';
import type { Test } from 'tap';
import type postgres from 'postgres';
import { enumerateOwnedStorage } from '../../src/inventory.js';
import { Taxonomy, type TaxonomyRow } from '../../src/taxonomy.js';
import type { S3Store } from '../../src/s3.js';
import type { TestDatabase } from './db.js';
import { createTestBucket, type TestBucket } from './moto.js';
import {
  RUNNABLE_STAGES, checkpoints, cliEnv, deletions, expireLease, fingerprint, redisClient, requestRow, show, storesOf, type Fingerprint,
} from './e2e.js';
import {
  appliedMigrations, applicationWrite, catalogSnapshot, committedMigrations, connectAs, databaseAtLatest, databaseAtLevel, dropLevelTemplates,
  ensureLoginRole, latestLevel, migrateToLevel, root, runSqlFile, seedCommunityRows, seedStorageAndCache, snapshotDifference, sqlStateOf,
  onOldColumns, upgradeToLatest,
} from './upgrade.js';

/** The first level whose SQL API (schema community_deletion, docs/sql-api.md) this file drives. */
const FIRST_STABLE_API_LEVEL = 7;
const CHUNK_SIZE = 2;
const LEASE_SECONDS = 3600; // the fake executors' leases: ended by the test, never by the clock
/** seedStorageAndCache: 7 entries under each of the 3 owned prefixes, 4 chunks of at most 2 per prefix. */
const EXPECTED_CHUNKS = 12;
const REQUESTER = 'upgrade_test_requester';
const APPROVER = 'upgrade_test_approver';

const latest = await latestLevel();
const levels = Array.from({ length: Math.max(0, latest - FIRST_STABLE_API_LEVEL) }, (_, i) => FIRST_STABLE_API_LEVEL + i);
const redis = redisClient();
const seeded: string[] = []; // communities whose Redis keys the climb leaves in the shared server

/**
 * One test file's climb (test/upgrade/in-flight-deletions-survive-every-upgrade*.test.ts):
 * every level from 7 to the latest in one database running the given write fence.
 */
export async function climbEveryLevel(t: Test, fence: FenceChoice): Promise<void> {
  t.teardown(dropLevelTemplates);
  t.teardown(async () => {
    for (const id of seeded) {
      const keys = await redis.keys(`buzz:${id}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    redis.disconnect();
  });
  // Two operators with their own database logins: a level may require the
  // approval to come from another login than the submission.
  await ensureLoginRole(REQUESTER, ['community_deletion_operator']);
  await ensureLoginRole(APPROVER, ['community_deletion_operator']);

  t.ok(levels.length > 0 && levels.at(-1) === latest - 1, `level(s) ${levels.join(', ')} each put in use, then carried to level ${latest}`);
  await t.test(`levels ${FIRST_STABLE_API_LEVEL}..${latest} in one database${fence === 'plpgsql' ? ' with the PL/pgSQL write fence' : ''}`,
    (t) => inFlightDeletionsSurviveEveryUpgrade(t, fence));
}

// ---- the level-L API ----------------------------------------------------

interface Operators {
  requester: postgres.Sql;
  approver: postgres.Sql;
  /**
   * The bucket of this database's deletions: one per climb, so a listing
   * (moto scans the whole bucket for a prefix) sees only its own climb's objects.
   */
  bucket: TestBucket;
}

interface Request {
  id: string;
  communityId: string;
}

interface Token extends Request {
  owner: string;
  generation: string;
  fence: string;
}

async function taxonomyOf(sql: postgres.Sql): Promise<Taxonomy> {
  return new Taxonomy(await sql<TaxonomyRow[]>`select name, scope, prefix_template, key_pattern, writer from community_deletion.storage_taxonomy_rules()`);
}

/** The operator side: submit and freeze the inventory from a real listing (requester's login), approve (approver's login). */
async function submitAndApprove(ops: Operators, host: string): Promise<Request> {
  const [request] = await ops.requester<{ id: string; community_id: string }[]>`
    select id, community_id from community_deletion.submit(${host}, 'carol@ops', 'upgrade test')`;
  const taxonomy = await taxonomyOf(ops.requester);
  const summary = await enumerateOwnedStorage(ops.bucket.store, taxonomy, request!.community_id, { chunkSize: CHUNK_SIZE });
  // From level 37 the stores are required (what the executors run with);
  // before it a request frozen without them adopts the first executor's.
  const [row] = await ops.requester<{ required: boolean }[]>`
    select coalesce((select p.prosrc like '%store_identity is required%' from pg_catalog.pg_proc p
                      where p.oid = to_regprocedure('community_deletion.freeze_inventory(uuid,jsonb,jsonb)')), false) as required`;
  if (row!.required) {
    const stores = await storesOf(ops.bucket.store);
    await ops.requester`select 1 from community_deletion.freeze_inventory(${request!.id}::uuid, ${ops.requester.json(jsonOf(summary))},
                                                                         ${ops.requester.json(jsonOf(stores))})`;
  } else {
    await ops.requester`select 1 from community_deletion.freeze_inventory(${request!.id}::uuid, ${ops.requester.json(jsonOf(summary))})`;
  }
  await ops.approver`select 1 from community_deletion.approve(${request!.id}::uuid, 'dave@ops', 'approved before the upgrade')`;
  return { id: request!.id, communityId: request!.community_id };
}

/** An executor of level L: claim, heartbeat, begin quiescing, fence. */
async function claimAndFence(sql: postgres.Sql, request: Request, owner: string): Promise<Token> {
  const [claim] = await sql<{ lease_generation: string }[]>`
    select lease_generation from community_deletion.claim(${owner}, ${request.id}::uuid, ${LEASE_SECONDS}::integer)`;
  if (!claim) throw new Error(`nothing claimed for ${request.id}`);
  const generation = String(claim.lease_generation);
  await sql`select community_deletion.heartbeat(${request.id}::uuid, ${owner}, ${generation}::bigint, 'run', ${LEASE_SECONDS}::integer, false)`;
  await sql`select community_deletion.begin_quiescing(${request.id}::uuid, ${owner}, ${generation}::bigint)`;
  const [fenced] = await sql<{ fence: string }[]>`
    select community_deletion.fence(${request.id}::uuid, ${owner}, ${generation}::bigint) as fence`;
  return { ...request, owner, generation, fence: String(fenced!.fence) };
}

/** The post-fence enumeration into key chunks, then the destructive manifest's freeze. */
async function appendChunksAndFreeze(sql: postgres.Sql, bucket: TestBucket, token: Token): Promise<void> {
  const { id, owner, generation, fence } = token;
  const summary = await enumerateOwnedStorage(bucket.store, await taxonomyOf(sql), token.communityId, {
    chunkSize: CHUNK_SIZE,
    onChunk: async (chunk) => {
      await sql`select community_deletion.append_key_chunk(${id}::uuid, ${owner}, ${generation}::bigint, ${fence}::bigint,
        ${chunk.chunk_no}::integer, ${chunk.prefix}, ${sql.json(jsonOf(chunk.entries))})`;
    },
  });
  await sql`select community_deletion.freeze_destructive_manifest(${id}::uuid, ${owner}, ${generation}::bigint, ${fence}::bigint,
    ${sql.json(jsonOf(summary))})`;
}

/** An executor call presenting the fenced token (and optionally a detail object). */
function stageCall(sql: postgres.Sql, token: Token, fn: string, detail?: postgres.JSONValue): Promise<unknown[]> {
  const args = [token.id, token.owner, token.generation, token.fence, ...(detail ? [sql.json(detail)] : [])];
  return sql.unsafe(`select * from community_deletion.${fn}($1::uuid, $2, $3::bigint, $4::bigint${detail ? ', $5::jsonb' : ''})`, args);
}

/** Every stage after the fence of a community without objects or keys: no chunks, straight to retention_pending. */
async function finishEmptyDeletion(sql: postgres.Sql, bucket: TestBucket, token: Token): Promise<void> {
  await appendChunksAndFreeze(sql, bucket, token);
  await stageCall(sql, token, 'mark_drained');
  if ((await stageCall(sql, token, 'next_key_chunk')).length > 0) throw new Error('a community without objects has a key chunk');
  await stageCall(sql, token, 'mark_bindings_removed', { deleted: 0 });
  await stageCall(sql, token, 'purge_postgres');
  await stageCall(sql, token, 'mark_cache_purged', { unlinked: 0 });
  await stageCall(sql, token, 'verify_postgres_absence');
  await stageCall(sql, token, 'mark_logically_verified', { postgres: 'absent', storage: 'empty', redis: 'empty' });
  await stageCall(sql, token, 'mark_retention_pending', { executor: token.owner });
}

function jsonOf(value: unknown): postgres.JSONValue {
  return JSON.parse(JSON.stringify(value)) as postgres.JSONValue;
}

// ---- what the upgrade must keep -----------------------------------------

type Row = Record<string, unknown>;

/** The control-plane rows of one request, each table in a stable order. */
interface ControlPlane {
  request: Row[];
  approvals: Row[];
  chunks: Row[];
  checkpoints: Row[];
}

async function controlPlaneOf(sql: postgres.Sql, requestId: string): Promise<ControlPlane> {
  const [row] = await sql<ControlPlane[]>`
    select (select coalesce(jsonb_agg(to_jsonb(r)), '[]') from community_deletion.requests r where r.id = ${requestId}) as request,
           (select coalesce(jsonb_agg(to_jsonb(a) order by a.approved_at), '[]')
              from community_deletion.approvals a where a.request_id = ${requestId}) as approvals,
           (select coalesce(jsonb_agg(to_jsonb(k) order by k.chunk_no), '[]')
              from community_deletion.manifest_keys k where k.request_id = ${requestId}) as chunks,
           (select coalesce(jsonb_agg(to_jsonb(c) order by c.sequence), '[]')
              from community_deletion.checkpoints c where c.request_id = ${requestId}) as checkpoints`;
  return row!;
}

/** Every row of public.communities, by id. */
async function communitiesOf(sql: postgres.Sql): Promise<Row[]> {
  const [row] = await sql<{ rows: Row[] }[]>`select coalesce(jsonb_agg(to_jsonb(c) order by c.id), '[]') as rows from public.communities c`;
  return row!.rows;
}

/**
 * A community's rows in every public table with a community_id column (found
 * in the catalog, so at any level) and its communities row, each table's rows
 * as jsonb.
 */
async function communityRows(sql: postgres.Sql, id: string): Promise<Record<string, Row[]>> {
  const tables = await sql<{ name: string }[]>`
    select c.relname as name from pg_class c join pg_attribute a on a.attrelid = c.oid
     where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and a.attname = 'community_id' and not a.attisdropped
     order by 1`;
  const rows: Record<string, Row[]> = {};
  for (const { name } of tables) {
    const [row] = await sql.unsafe<{ rows: Row[] }[]>(
      `select coalesce(jsonb_agg(to_jsonb(x)), '[]') as rows from public."${name.replaceAll('"', '""')}" x where community_id = $1`, [id]);
    rows[name] = row!.rows;
  }
  const [community] = await sql<{ rows: Row[] }[]>`select coalesce(jsonb_agg(to_jsonb(c)), '[]') as rows from public.communities c where c.id = ${id}`;
  rows.communities = community!.rows;
  return rows;
}

/** communityRows after the upgrade on the columns of before, every table's rows in one canonical order. */
function communityRowsOnOldColumns(before: Record<string, Row[]>, after: Record<string, Row[]>): [Record<string, Row[]>, Record<string, Row[]>] {
  const canonical = (r: Row) => JSON.stringify(Object.keys(r).sort().map((k) => [k, r[k]]));
  const sorted = (rows: Row[]) => [...rows].sort((a, b) => canonical(a).localeCompare(canonical(b)));
  const tables = Object.keys(before);
  return [
    Object.fromEntries(tables.map((table) => [table, sorted(onOldColumns(before[table]!, after[table] ?? []))])),
    Object.fromEntries(tables.map((table) => [table, sorted(before[table]!)])),
  ];
}

function controlPlaneOnOldColumns(before: ControlPlane, after: ControlPlane): ControlPlane {
  return {
    request: onOldColumns(before.request, after.request),
    approvals: onOldColumns(before.approvals, after.approvals),
    chunks: onOldColumns(before.chunks, after.chunks),
    checkpoints: onOldColumns(before.checkpoints, after.checkpoints),
  };
}

/**
 * fingerprint() at level L without the fixture functions of
 * db/tests/fixtures/helpers.sql, which follow the latest registry layout: the
 * scoped rows are counted from the catalog instead (every public table whose
 * community_id is NOT NULL — the scoped tables at every level), and the
 * PostgreSQL digest is left out (the rows themselves are compared on their
 * level-L columns elsewhere). The S3 and Redis halves are the real ones.
 */
async function fingerprintWithoutFixtures(sql: postgres.Sql, store: S3Store, id: string): Promise<Fingerprint> {
  const print = await fingerprint(sql, store, redis, id, { pg: false });
  const tables = await sql<{ name: string }[]>`
    select c.relname::text as name from pg_class c join pg_attribute a on a.attrelid = c.oid
     where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' and a.attname = 'community_id' and a.attnotnull`;
  let rows = 0;
  for (const { name } of tables) {
    const [count] = await sql.unsafe<{ n: number }[]>(`select count(*)::int as n from public."${name}" where community_id = $1`, [id]);
    rows += count!.n;
  }
  return { ...print, rows, pg: 'not computed at level L' };
}

// ---- one level ----------------------------------------------------------

/** The write fence the level-L database runs: what its migrations installed, or the PL/pgSQL fallback. */
export type FenceChoice = 'as migrated' | 'plpgsql';

/** The catalog of a freshly migrated database running the chosen fence: built once per fence choice. */
const freshCatalogs = new Map<FenceChoice, Promise<string[]>>();
function freshCatalog(fence: FenceChoice): Promise<string[]> {
  let snapshot = freshCatalogs.get(fence);
  if (!snapshot) {
    snapshot = (async () => {
      const fresh = await databaseAtLatest();
      try {
        await chooseFence(fresh.sql, fence);
        return await catalogSnapshot(fresh.url);
      } finally {
        await fresh.drop();
      }
    })();
    freshCatalogs.set(fence, snapshot);
  }
  return snapshot;
}

async function chooseFence(sql: postgres.Sql, fence: FenceChoice): Promise<string> {
  if (fence === 'plpgsql') await sql`select community_deletion.install_write_fence(false)`;
  const [row] = await sql<{ impl: string }[]>`select community_deletion.write_fence_implementation() as impl`;
  return row!.impl;
}

interface Scene {
  level: number;
  hosts: { target: string; bystander: string; tombstone: string };
  ids: { target: string; bystander: string; tombstone: string };
  target: Token;
  tombstone: Token;
}

/** What a scene held at its own level, before any migration. */
interface Before {
  target: ControlPlane;
  tombstone: ControlPlane;
  bystander: Fingerprint;
  bystanderRows: Record<string, Row[]>;
}

async function inFlightDeletionsSurviveEveryUpgrade(t: Test, fence: FenceChoice): Promise<void> {
  const db = await databaseAtLevel(FIRST_STABLE_API_LEVEL);
  t.teardown(() => db.drop());
  const sql = db.sql;
  const implementation = await chooseFence(sql, fence);
  if (fence === 'plpgsql') t.equal(implementation, 'plpgsql', 'the database runs the PL/pgSQL fence');
  const bucket = await createTestBucket(t);
  const ops: Operators = { requester: connectAs(db.url, REQUESTER), approver: connectAs(db.url, APPROVER), bucket };
  t.teardown(async () => {
    await ops.requester.end();
    await ops.approver.end();
  });
  const scenes: { scene: Scene; before: Before }[] = [];

  /** Every scene's control plane, the communities and the bystanders' rows are as they were; the fence keeps its implementation. */
  const everythingKept = async (t: Test, communities: Row[]): Promise<void> => {
    for (const { scene, before } of scenes) {
      for (const which of ['target', 'tombstone'] as const) {
        const after = await controlPlaneOf(sql, scene[which].id);
        t.same(controlPlaneOnOldColumns(before[which], after), before[which],
          `level ${scene.level}'s ${which} request: its row, approval, key chunks and checkpoints are intact`);
      }
      t.same(...communityRowsOnOldColumns(before.bystanderRows, await communityRows(sql, scene.ids.bystander)),
        `level ${scene.level}'s bystander: its rows in every public table are unchanged`);
    }
    t.same(onOldColumns(communities, await communitiesOf(sql)), communities, 'public.communities is unchanged');
    const [kept] = await sql<{ impl: string }[]>`select community_deletion.write_fence_implementation() as impl`;
    t.equal(kept?.impl, implementation, `the write fence keeps its implementation (${implementation})`);
  };

  for (const level of levels) {
    let driven: Scene | undefined;
    await t.test(`level ${level}: its API takes a deletion to fenced and another to retention_pending`, async (t) => {
      driven = await driveAtLevel(t, db, ops, level);
    });
    if (!driven) {
      t.fail(`level ${level} could not be put in use`);
      return;
    }
    const scene: Scene = driven;
    const before: Before = {
      target: await controlPlaneOf(sql, scene.target.id),
      tombstone: await controlPlaneOf(sql, scene.tombstone.id),
      bystander: await fingerprintWithoutFixtures(sql, bucket.store, scene.ids.bystander),
      bystanderRows: await communityRows(sql, scene.ids.bystander),
    };
    t.same([before.target.chunks.length, before.target.chunks.filter((c) => c.deleted_at !== null).length], [EXPECTED_CHUNKS, 0],
      `level ${level}: the fenced request has ${EXPECTED_CHUNKS} key chunks, none stamped`);
    t.equal(before.target.approvals.length, 1, `level ${level}: and one approval`);
    t.ok(before.bystander.rows > 0 && before.bystander.versions > 0 && before.bystander.keys > 0,
      `level ${level}: the bystander holds rows, objects and keys`);
    await t.test(`level ${level}: the guards hold before any migration`, (t) => guardsHold(t, db, ops, scene));
    scenes.push({ scene, before });

    const communities = await communitiesOf(sql);
    const next = level + 1;
    await t.test(`level ${level} -> ${next}: the migration keeps everything in flight at levels ${FIRST_STABLE_API_LEVEL}..${level}`, async (t) => {
      await migrateToLevel(db, next); // checks that exactly 000001..next are recorded, with their hashes
      await everythingKept(t, communities);
    });
  }

  await t.test(`level ${latest} and current.sql: everything in flight kept, the catalog of a fresh database, every guard`, async (t) => {
    const communities = await communitiesOf(sql);
    await upgradeToLatest(db.url); // the committed migrations are all applied by now: this adds current.sql, if it has content
    t.same((await appliedMigrations(db)).map((m) => m.filename), (await committedMigrations()).map((f) => `${f.slice(0, 6)}.sql`),
      'every committed migration is applied');
    await everythingKept(t, communities);
    t.same(snapshotDifference(await catalogSnapshot(db.url), await freshCatalog(fence)), [],
      'the upgraded catalog equals a freshly migrated one (- upgraded, + fresh)');
    for (const { scene } of scenes) await t.test(`level ${scene.level}'s guards`, (t) => guardsHold(t, db, ops, scene));
  });

  await t.test(`level ${latest}: one run of the real CLI finishes the fenced deletion of every level`, async (t) => {
    // The fixtures follow the latest layout: loaded only now, after the upgrade.
    await runSqlFile(db.url, path.join(root, 'db', 'tests', 'fixtures', 'helpers.sql'));
    // Across the upgrades its S3 objects, Redis keys and row count are identical, its rows are
    // (on the columns they had at level L, checked above); from here on, byte-identical.
    const upgraded = new Map<string, Fingerprint>();
    for (const { scene, before } of scenes) {
      const print = await fingerprint(sql, bucket.store, redis, scene.ids.bystander);
      t.same({ ...print, pg: 'compared on the old columns' }, { ...before.bystander, pg: 'compared on the old columns' },
        `the upgrades left level ${scene.level}'s bystander's objects, keys and row count as they were`);
      upgraded.set(scene.ids.bystander, print);
    }
    await finishWithCli(t, db, bucket, scenes.map((s) => s.scene), upgraded);
  });
}

async function driveAtLevel(t: Test, db: TestDatabase, ops: Operators, level: number): Promise<Scene> {
  const sql = db.sql;
  const loginOf = async (s: postgres.Sql) =>
    (await s<{ login: string; superuser: boolean }[]>`
      select session_user as login, rolsuper as superuser from pg_roles where rolname = session_user`)[0];
  t.same([await loginOf(ops.requester), await loginOf(ops.approver)],
    [{ login: REQUESTER, superuser: false }, { login: APPROVER, superuser: false }],
    'submit and approve run as two different non-superuser logins');
  for (const [role, fn] of [[REQUESTER, 'submit'], [REQUESTER, 'freeze_inventory'], [APPROVER, 'approve'], [REQUESTER, 'storage_taxonomy_rules']]) {
    const [granted] = await sql<{ ok: boolean }[]>`
      select bool_and(has_function_privilege(${role!}, p.oid, 'execute')) as ok
        from pg_proc p where p.pronamespace = 'community_deletion'::regnamespace and p.proname = ${fn!}`;
    t.equal(granted?.ok, true, `${role} may execute community_deletion.${fn} at level ${level}`);
  }

  const tag = `upgrade-from-${level}-${process.pid}`;
  const hosts = { target: `target-${tag}.example`, bystander: `bystander-${tag}.example`, tombstone: `tombstone-${tag}.example` };
  const ids = {
    target: await seedCommunityRows(sql, hosts.target),
    bystander: await seedCommunityRows(sql, hosts.bystander),
    tombstone: await seedCommunityRows(sql, hosts.tombstone),
  };
  for (const which of ['target', 'bystander'] as const) {
    seeded.push(ids[which]);
    await seedStorageAndCache(ops.bucket.store, redis, ids[which], `${tag}:${which}`);
  }

  // Deleted completely (no objects, no keys, no chunks).
  const tombstone = await claimAndFence(sql, await submitAndApprove(ops, hosts.tombstone), `level-${level}-executor-1`);
  await finishEmptyDeletion(sql, ops.bucket, tombstone);
  // Fenced with its key chunks and frozen destructive manifest; the executor stops before mark_drained.
  const target = await claimAndFence(sql, await submitAndApprove(ops, hosts.target), `level-${level}-executor-2`);
  await appendChunksAndFreeze(sql, ops.bucket, target);

  const stages = await sql<{ id: string; stage: string; lease_generation: string }[]>`
    select id, stage, lease_generation from community_deletion.requests where id in (${target.id}, ${tombstone.id})`;
  t.same(Object.fromEntries(stages.map((r) => [r.id, [r.stage, String(r.lease_generation)]])), {
    [target.id]: ['fenced', '1'], [tombstone.id]: ['retention_pending', '1'],
  }, 'one request fenced, one complete, each under lease generation 1');
  const states = await sql<{ id: string; deletion_state: string }[]>`
    select id, deletion_state from public.communities where id in (${ids.target}, ${ids.bystander}, ${ids.tombstone})`;
  t.same(Object.fromEntries(states.map((r) => [r.id, r.deletion_state])), {
    [ids.target]: 'fenced', [ids.bystander]: 'active', [ids.tombstone]: 'tombstone',
  }, 'the communities are fenced, active and a tombstone');
  return { level, hosts, ids, target, tombstone };
}

async function guardsHold(t: Test, db: TestDatabase, ops: Operators, scene: Scene): Promise<void> {
  const { sql } = db;
  const { ids, hosts } = scene;
  t.equal(await applicationWrite(db.url, ids.target), '55000', 'the application cannot write the fenced community');
  t.equal(await applicationWrite(db.url, ids.tombstone), '55000', 'the application cannot write the tombstone');
  t.equal(await applicationWrite(db.url, ids.bystander), 'allowed', 'the application can write the bystander (rolled back)');
  t.equal(await sqlStateOf(sql`insert into public.communities (host) values (${hosts.tombstone.toUpperCase()})`), 'DL8T2',
    "the tombstone's host cannot be reused");
  t.equal(await sqlStateOf(sql`update public.communities set deletion_state = 'active', deleted_at = null where id = ${ids.tombstone}`),
    'DL8T1', 'the tombstone cannot be revived');
  t.equal(await sqlStateOf(sql`delete from public.communities where id = ${ids.tombstone}`), 'DL8T1', 'the tombstone cannot be deleted');
  t.equal(await sqlStateOf(ops.requester`select community_deletion.submit(${hosts.tombstone}, 'carol@ops', 'again')`), 'DL2C1',
    'the tombstoned community cannot be submitted again');
  const [tombstone] = await sql<{ deletion_state: string }[]>`select deletion_state from public.communities where id = ${ids.tombstone}`;
  t.equal(tombstone?.deletion_state, 'tombstone', 'the tombstone stays a tombstone');
}

/** One `deletions drain` takes every scene's fenced request to the end; every bystander stays byte-identical. */
async function finishWithCli(t: Test, db: TestDatabase, bucket: TestBucket, scenes: readonly Scene[], bystandersBefore: ReadonlyMap<string, Fingerprint>): Promise<void> {
  const { sql } = db;
  // The level-L executors are gone: their leases end now, not in an hour.
  for (const { target } of scenes) await expireLease(sql, target.id);
  const run = await deletions(['drain'], cliEnv(db, bucket, { DELETIONS_CHUNK_SIZE: String(CHUNK_SIZE) }));
  t.equal(run.code, 0, show(run));
  t.same([run.json?.claimed, run.json?.completed, run.json?.failed], [scenes.length, scenes.length, 0],
    `the drain claims and completes the ${scenes.length} fenced requests, and nothing else`);
  const outcomes = new Map<string, { kind: string; stages?: { stage: string }[] }>(
    (run.json?.outcomes ?? []).map((o: { request_id: string }) => [o.request_id, o]));
  for (const { target, ids, level } of scenes) {
    const outcome = outcomes.get(target.id);
    t.same([outcome?.kind, outcome?.stages?.map((s) => s.stage)], ['completed', RUNNABLE_STAGES.slice(RUNNABLE_STAGES.indexOf('fenced'))],
      `level ${level}'s request resumes at fenced and runs every later stage once`);
    const row = await requestRow(sql, target.id);
    t.same([row.stage, row.lease_generation, row.lease_owner, row.fence_generation],
      ['retention_pending', String(Number(target.generation) + 1), null, target.fence],
      `level ${level}'s request is complete, under lease generation 2 (released) and the fence generation of level ${level}`);
    const stamps = (await checkpoints(sql, target.id)).filter((c) => c.stage === 'drained' && c.unit_key.startsWith('chunk:'));
    t.same([stamps.length, [...new Set(stamps.map((c) => c.lease_generation))]], [EXPECTED_CHUNKS, ['2']],
      `every key chunk of level ${level} was deleted and stamped by the new executor`);

    const after = await fingerprint(sql, bucket.store, redis, ids.target);
    t.same({ rows: after.rows, versions: after.versions, keys: after.keys }, { rows: 0, versions: 0, keys: 0 },
      `nothing of level ${level}'s target is left in PostgreSQL, S3 or Redis`);
    t.equal(await redis.get(`buzz:${ids.target}`), 'bare key outside the namespace', 'the bare key outside the namespace survives');
    const [community] = await sql<{ deletion_state: string; provenance: number }[]>`
      select c.deletion_state, (select count(*)::int from public.product_feedback f where f.community_id = c.id) as provenance
        from public.communities c where c.id = ${ids.target}`;
    t.same(community, { deletion_state: 'tombstone', provenance: 0 }, `level ${level}'s target is a tombstone and no provenance row points at it`);
  }
  for (const { ids, level } of scenes) {
    t.same(await fingerprint(sql, bucket.store, redis, ids.bystander), bystandersBefore.get(ids.bystander),
      `level ${level}'s bystander is byte-identical in all three stores to what it was before the run`);
    t.equal(await applicationWrite(db.url, ids.bystander), 'allowed', `level ${level}'s bystander is still writable`);
  }
}
