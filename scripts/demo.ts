// npm run demo — the whole product on local defaults, end to end:
// seeds a target and a bystander community in PostgreSQL, S3 (versioned) and
// Redis, then drives the real CLI: submit (operator A), approve (operator B —
// a second database login, as the two-person rule requires), run to
// retention_pending; and reports what each store held before and after.
//
// Uses DATABASE_URL / REDIS_URL / BUZZ_S3_* when set. Otherwise: PostgreSQL on
// 127.0.0.1:5432 (database community_deletion_demo, recreated each run),
// Redis on 127.0.0.1:6379, and a moto_server it starts on a free port.
// At the end — also when it fails — it removes what it put in Redis (both
// communities' keys) and in S3 (the bucket it created, or, in a bucket named
// by BUZZ_S3_BUCKET, every version of the keys it wrote); the database is kept
// so the request can still be inspected. A problem it can name (a database
// that does not exist, a service that does not answer) is one line on stderr
// and a non-zero exit, without a stack trace.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { DeleteBucketCommand, DeleteObjectCommand, DeleteObjectsCommand, ListObjectVersionsCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Redis } from 'ioredis';
import { migrate } from '../src/migrate.js';
import { loadS3Config } from '../src/config.js';
import { createS3Client, S3Store } from '../src/s3.js';
import { checkConnection, describeDatabase } from '../src/db.js';
import { ensureVersionedBucket, startMoto, type LocalS3 } from '../src/dev/local-s3.js';
import { fingerprint } from '../src/dev/fingerprint.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const say = (m: string) => process.stderr.write(`\x1b[1m▸ ${m}\x1b[0m\n`);
const hex = (s: string) => createHash('sha256').update(s).digest('hex');

/** A problem the demo explains itself: reported as one message, no stack trace. */
class DemoError extends Error {}

function fail(message: string): never {
  throw new DemoError(message);
}

/** Undo steps, run in reverse order at the end of the demo, whatever happened. */
const cleanups: Array<{ what: string; run: () => Promise<string | void> }> = [];

async function cleanUp(): Promise<void> {
  for (const step of cleanups.reverse()) {
    try {
      const done = await step.run();
      if (done) say(`cleaned up: ${done}`);
    } catch (error) {
      process.stderr.write(`demo: could not clean up ${step.what}: ${(error as Error).message}\n`);
    }
  }
}

/** Every key of a community in Redis: its namespace buzz:<id>:* and the bare buzz:<id> key. */
async function deleteCommunityKeys(redis: Redis, id: string): Promise<number> {
  let removed = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `buzz:${id}:*`, 'COUNT', 1000);
    if (keys.length > 0) removed += await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
  return removed + (await redis.unlink(`buzz:${id}`));
}

/** Every version and delete marker of the given keys (or of the whole bucket with keys undefined). */
async function deleteVersions(client: S3Client, bucket: string, keys?: ReadonlySet<string>): Promise<number> {
  let removed = 0;
  let keyMarker: string | undefined;
  let versionIdMarker: string | undefined;
  for (;;) {
    const page = await client.send(new ListObjectVersionsCommand({ Bucket: bucket, KeyMarker: keyMarker, VersionIdMarker: versionIdMarker }));
    const objects = [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])]
      .filter((v) => keys === undefined || keys.has(v.Key ?? ''))
      .map((v) => ({ Key: v.Key, VersionId: v.VersionId }));
    if (objects.length > 0) {
      await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }));
      removed += objects.length;
    }
    if (!page.IsTruncated) return removed;
    keyMarker = page.NextKeyMarker;
    versionIdMarker = page.NextVersionIdMarker;
  }
}

/**
 * Login roles for the demo's two operators (members of
 * community_deletion_operator), created when missing. The default database
 * (local, trust authentication) lets them connect without a password.
 */
async function ensureOperatorLogins(sql: postgres.Sql, logins: string[]): Promise<string[]> {
  for (const login of logins) {
    try {
      await sql.unsafe(`do $$ begin
          if not exists (select 1 from pg_roles where rolname = '${login}') then create role ${login} login; end if;
          if not pg_has_role('${login}', 'community_deletion_operator', 'member') then grant community_deletion_operator to ${login}; end if;
        end $$`);
    } catch (error) {
      fail(`could not create the demo's operator login ${login} (${(error as Error).message}).\n` +
        'The demo needs a role that may create roles; run it with the local default DATABASE_URL (unset) or as a superuser.');
    }
  }
  return logins;
}

async function main() {
  const t0 = Date.now();
  // PostgreSQL ---------------------------------------------------------------
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const admin = postgres('postgres://postgres@127.0.0.1:5432/postgres', { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe('drop database if exists community_deletion_demo with (force)');
      await admin.unsafe('create database community_deletion_demo');
    } catch (error) {
      fail(`PostgreSQL is not reachable on 127.0.0.1:5432 as postgres (${(error as Error).message}).\n` +
        `Start it (Debian: pg_ctlcluster --skip-systemctl-redirect 15 main start) or set DATABASE_URL.`);
    } finally {
      await admin.end();
    }
    databaseUrl = 'postgres://postgres@127.0.0.1:5432/community_deletion_demo';
  }
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => {}, connect_timeout: 10 });
  cleanups.push({ what: 'the PostgreSQL connections', run: () => sql.end({ timeout: 5 }) });
  try {
    await checkConnection(sql, databaseUrl);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    fail(code === '3D000'
      ? `the ${describeDatabase(databaseUrl)} (DATABASE_URL) does not exist.\n` +
        'Create it first (e.g. createdb), or unset DATABASE_URL to let the demo create and use community_deletion_demo on 127.0.0.1:5432.'
      : `${(error as Error).message}\nStart PostgreSQL, or fix DATABASE_URL.`);
  }
  say(`PostgreSQL: ${databaseUrl.replace(/\/\/[^@]*@/, '//')} — applying migrations`);
  await migrate(databaseUrl);
  const [fence] = await sql<{ impl: string }[]>`select community_deletion.write_fence_implementation() as impl`;
  say(`write fence: ${fence!.impl}${fence!.impl === 'native' ? '' : ' (the faster native path needs db/native installed on the server: make -C db/native install)'}`);
  // The demo seeds with the same fixture functions the tests use.
  await sql.unsafe(readFileSync(path.join(root, 'db/tests/fixtures/helpers.sql'), 'utf8'));
  // Two operators, two logins: the approval is refused from the login that submitted.
  const operators = await ensureOperatorLogins(sql, ['deletions_demo_alice', 'deletions_demo_bob']);
  const asLogin = (login: string) => {
    const u = new URL(databaseUrl!);
    u.username = login;
    u.password = '';
    return u.toString();
  };

  // Redis --------------------------------------------------------------------
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 10_000, commandTimeout: 30_000 });
  redis.on('error', () => {});
  cleanups.push({ what: 'the Redis connection', run: async () => void redis.disconnect() });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    fail(`Redis is not reachable at ${redisUrl} (${(error as Error).message}).\nStart it (redis-server --daemonize yes --port 6379) or set REDIS_URL.`);
  }

  // S3 -----------------------------------------------------------------------
  let moto: LocalS3 | undefined;
  if (!process.env.BUZZ_S3_ENDPOINT) {
    try {
      moto = await startMoto();
    } catch (error) {
      fail(`${(error as Error).message}`);
    }
    const started = moto;
    cleanups.push({ what: 'moto_server', run: async () => started.stop() });
    process.env.BUZZ_S3_ENDPOINT = moto.endpoint;
    process.env.BUZZ_S3_ACCESS_KEY ??= 'demo';
    process.env.BUZZ_S3_SECRET_KEY ??= 'demo';
  }
  const ownBucket = !process.env.BUZZ_S3_BUCKET?.trim();
  if (ownBucket) process.env.BUZZ_S3_BUCKET = `community-deletion-demo-${Date.now()}`;
  const s3Config = loadS3Config();
  const s3 = createS3Client(s3Config);
  cleanups.push({ what: 'the S3 client', run: async () => s3.destroy() });
  // What the demo wrote into a bucket it did not create: removed again at the end.
  const written = new Set<string>();
  const store = new S3Store(s3, s3Config.bucket);
  await ensureVersionedBucket(s3, s3Config.bucket);
  cleanups.push(ownBucket
    ? {
        what: `bucket ${s3Config.bucket}`,
        run: async () => {
          const versions = await deleteVersions(s3, s3Config.bucket);
          await s3.send(new DeleteBucketCommand({ Bucket: s3Config.bucket }));
          return `S3 bucket ${s3Config.bucket} deleted (${versions} versions left in it)`;
        },
      }
    : {
        what: `the demo's objects in ${s3Config.bucket}`,
        run: async () => `S3: ${await deleteVersions(s3, s3Config.bucket, written)} versions the demo wrote in ${s3Config.bucket} deleted`,
      });
  say(`S3: ${s3Config.endpoint} bucket ${s3Config.bucket} (versioned)${moto ? ' — local moto_server' : ''}`);

  // Seed -------------------------------------------------------------------
  say('seeding a target and a bystander community in all three stores');
  const suffix = Date.now().toString(36);
  const seeded: string[] = [];
  cleanups.push({
    what: 'the Redis keys of the demo communities',
    run: async () => {
      let removed = 0;
      for (const id of seeded) removed += await deleteCommunityKeys(redis, id);
      return `Redis: ${removed} keys of ${seeded.length === 2 ? `the target ${seeded[0]} and the bystander ${seeded[1]}` : 'the demo communities'} deleted`;
    },
  });
  const target = await seedCommunity(sql, store, redis, `target-${suffix}.demo.example`, seeded, written);
  const bystander = await seedCommunity(sql, store, redis, `bystander-${suffix}.demo.example`, seeded, written);
  const shared = await seedSharedBlobs(store, written);

  const before = { target: await fingerprint(sql, store, redis, target.id), bystander: await fingerprint(sql, store, redis, bystander.id) };
  const sharedBefore = await listingDigest(store, shared);

  // The real lifecycle through the real CLI ---------------------------------
  const env = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl };
  say(`submit (as alice@ops, login ${operators[0]}): ${target.host}`);
  const submitted = await cli(['submit', '--host', target.host, '--requested-by', 'alice@ops', '--reason', 'demo: tenant asked to be forgotten', '--json'],
    { ...env, DATABASE_URL: asLogin(operators[0]!) });
  const requestId = String(submitted.id);
  say(`inventory frozen, digest ${String(submitted.inventory_digest).slice(0, 16)}…`);
  say(`approve (as bob@ops — a second person, login ${operators[1]})`);
  await cli(['approve', requestId, '--approved-by', 'bob@ops', '--note', 'verified with the tenant', '--json'],
    { ...env, DATABASE_URL: asLogin(operators[1]!) });
  say('run to retention_pending');
  const outcome = await cli(['run', requestId, '--json'], env);
  if (outcome.kind !== 'completed') fail(`run did not complete: ${JSON.stringify(outcome)}`);

  const after = { target: await fingerprint(sql, store, redis, target.id), bystander: await fingerprint(sql, store, redis, bystander.id) };
  const sharedAfter = await listingDigest(store, shared);
  const [tomb] = await sql`select host, deletion_state, deleted_at, signing_key is null as key_cleared, icon is null as icon_cleared
                            from public.communities where id = ${target.id}`;

  // Report -----------------------------------------------------------------
  const ok = (b: boolean) => (b ? '✓' : '✗ DIFFERENT');
  const rows = [
    ['PostgreSQL rows (28 scoped tables)', before.target.rows, after.target.rows, before.bystander.rows, after.bystander.rows, ok(before.bystander.pg === after.bystander.pg)],
    ['S3 object versions (3 owned prefixes)', before.target.versions, after.target.versions, before.bystander.versions, after.bystander.versions, ok(before.bystander.s3 === after.bystander.s3)],
    ['Redis keys (buzz:<id>:*)', before.target.keys, after.target.keys, before.bystander.keys, after.bystander.keys, ok(before.bystander.redis === after.bystander.redis)],
  ];
  const head = ['store', 'target before', 'target now', 'bystander before', 'bystander now', 'bystander byte-identical'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells: unknown[]) => cells.map((c, i) => String(c).padEnd(widths[i]!)).join('  ');
  const out: string[] = [];
  out.push('', line(head), line(widths.map((w) => '─'.repeat(w))), ...rows.map(line));
  out.push('', `shared content-addressed blobs (blobs/, manifests/, packs/, idx/): ${shared.length} versions, ${ok(sharedBefore === sharedAfter)} untouched`);
  out.push(`tombstone: ${tomb?.host} state=${tomb?.deletion_state} deleted_at=${(tomb?.deleted_at as Date | undefined)?.toISOString()} signing_key cleared=${tomb?.key_cleared} icon cleared=${tomb?.icon_cleared}`);
  out.push('', 'time per stage:');
  for (const s of outcome.stages as { stage: string; ms: number }[]) out.push(`  ${s.stage.padEnd(20)} ${String(s.ms).padStart(6)} ms`);
  out.push('', `request ${requestId} finished in ${((Date.now() - t0) / 1000).toFixed(1)} s (whole demo). Inspect it with:`);
  out.push(`  DATABASE_URL=${databaseUrl} bin/deletions inspect ${requestId}`);
  process.stdout.write(`${out.join('\n')}\n`);
  const clean =
    after.target.rows === 0 && after.target.versions === 0 && after.target.keys === 0 &&
    before.bystander.pg === after.bystander.pg && before.bystander.s3 === after.bystander.s3 &&
    before.bystander.redis === after.bystander.redis && sharedBefore === sharedAfter;
  if (!clean) fail('the target is not fully gone or a bystander changed — see the table above');
}

interface Seeded {
  id: string;
  host: string;
}

async function seedCommunity(sql: postgres.Sql, store: S3Store, redis: Redis, host: string, seeded: string[], written: Set<string>): Promise<Seeded> {
  const [row] = await sql<{ id: string }[]>`select tests.seed_community(${host}, 20) as id`;
  const id = row!.id;
  seeded.push(id);
  const put = (key: string, body: string) => {
    written.add(key);
    return store.client.send(new PutObjectCommand({ Bucket: store.bucket, Key: key, Body: body }));
  };
  for (let i = 0; i < 6; i++) {
    const blob = hex(`${host}:blob:${i}`);
    for (let v = 0; v < 3; v++) await put(`_meta/${id}/${blob}.json`, JSON.stringify({ v, mime: 'image/png' }));
    for (let v = 0; v < 2; v++) await put(`_uploads/${id}/${blob}.json`, JSON.stringify({ v, uploader: hex(`${host}:user:1`) }));
  }
  for (let i = 0; i < 3; i++) for (let v = 0; v < 2; v++) await put(`repos/${id}/repo-${i}.json`, JSON.stringify({ v, head: hex(`${host}:${i}:${v}`) }));
  // A delete marker: a deleted upload record keeps its old versions underneath.
  await store.client.send(new DeleteObjectCommand({ Bucket: store.bucket, Key: `_uploads/${id}/${hex(`${host}:blob:0`)}.json` }));
  const pipeline = redis.pipeline();
  for (let i = 0; i < 40; i++) pipeline.set(`buzz:${id}:session:${i}`, `s${i}`);
  pipeline.hset(`buzz:${id}:presence`, { alice: 'online', bob: 'away' });
  pipeline.rpush(`buzz:${id}:fanout`, 'a', 'b', 'c');
  pipeline.set(`buzz:${id}`, 'bare namespace key (not part of the namespace: no colon)');
  await pipeline.exec();
  return { id, host };
}

async function seedSharedBlobs(store: S3Store, written: Set<string>): Promise<string[]> {
  const keys = [
    ...Array.from({ length: 4 }, (_, i) => `blobs/${hex(`shared:${i}`)}`),
    `thumbs/${hex('shared:thumb')}`,
    `manifests/${hex('shared:manifest')}`,
    `packs/${hex('shared:pack')}.pack`,
    `idx/${hex('shared:pack')}.idx`,
  ];
  for (const key of keys) {
    written.add(key);
    await store.client.send(new PutObjectCommand({ Bucket: store.bucket, Key: key, Body: key }));
  }
  return keys;
}

async function listingDigest(store: S3Store, keys: readonly string[]): Promise<string> {
  const wanted = new Set(keys);
  const h = createHash('sha256');
  for await (const e of store.listWholeBucket()) if (wanted.has(e.key)) h.update(`${e.key}\t${e.version_id}\t${e.kind}\n`);
  return h.digest('hex');
}

/** Runs bin/deletions with --json, streaming its logs/progress, returning its JSON result. */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(root, 'bin/deletions'), args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').pop() ?? '';
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(last);
      } catch {
        /* reported below */
      }
      if (code !== 0) reject(new Error(`deletions ${args[0]} exited ${code}: ${last}`));
      else resolve(parsed);
    });
  });
}

try {
  await main();
} catch (error) {
  // A DemoError is explained; anything else is unexpected and keeps its
  // stack only with DEMO_DEBUG=1.
  const detail = error instanceof DemoError || process.env.DEMO_DEBUG !== '1'
    ? (error instanceof Error ? error.message : String(error))
    : (error as Error).stack ?? String(error);
  process.stderr.write(`demo: ${detail}\n`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
