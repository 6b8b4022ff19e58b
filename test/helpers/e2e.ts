// Shared plumbing of the end-to-end tests (test/e2e): run the real CLI
// (bin/deletions) as a child process against real PostgreSQL, Redis and an
// S3-compatible server, seed communities in all three stores, and fingerprint
// what a community holds so a bystander can be proven byte-identical.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Redis } from 'ioredis';
import type postgres from 'postgres';
import { enumerateOwnedStorage, loadTaxonomy } from '../../src/inventory.js';
import { EngineClient } from '../../src/engine.js';
import type { S3Store } from '../../src/s3.js';
import { storeIdentityFromConfig, type StoreIdentity } from '../../src/store-identity.js';
import { approveAsSecondLogin, APPROVER_LOGIN, createTestDatabase, urlAs, type TestDatabase } from './db.js';
import { createTestBucket, type TestBucket, type Teardown } from './moto.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const bin = path.join(root, 'bin', 'deletions');
/** The test-only entry that pauses the executor at a named boundary (pausing-cli.ts). */
const pausingCli = path.join(root, 'test', 'helpers', 'pausing-cli.ts');
const tsxLoader = `file://${path.join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')}`;
export const REDIS_URL = process.env.REDIS_URL?.trim() || 'redis://127.0.0.1:6379';
export const RUNNABLE_STAGES = ['approved', 'fenced', 'drained', 'bindings_removed', 'postgres_purged', 'cache_purged', 'logically_verified'] as const;

export const hex = (seed: string): string => createHash('sha256').update(seed).digest('hex');
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `condition` until it holds. The budget is deliberately wide (a busy
 * machine is slow, not wrong): it only turns a hang into a failure.
 */
export async function waitFor(condition: () => Promise<boolean>, what: string, budgetMs = 120_000): Promise<void> {
  const deadline = Date.now() + budgetMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${budgetMs} ms`);
    await sleep(50);
  }
}

/** How long a CLI child may run before the harness kills it: a hang guard, far beyond any real run. */
export const CHILD_BUDGET_MS = 480_000;

export type Env = Record<string, string | undefined>;

/**
 * The environment an operator would give the CLI: the test's database,
 * bucket and Redis, and nothing inherited from tap (its loader options) or
 * from the outer shell's deletion settings.
 */
export function cliEnv(db: Pick<TestDatabase, 'url'>, bucket: Pick<TestBucket, 'config'>, extra: Env = {}): Env {
  const env: Env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k === 'NODE_OPTIONS' || k.startsWith('TAP') || k.startsWith('BUZZ_S3_') || k.startsWith('DELETIONS_')) continue;
    if (k === 'AWS_MAX_ATTEMPTS' || k === 'AWS_REGION') continue;
    env[k] = v;
  }
  const c = bucket.config;
  Object.assign(env, {
    DATABASE_URL: db.url,
    REDIS_URL,
    BUZZ_S3_ENDPOINT: c.endpoint,
    BUZZ_S3_BUCKET: c.bucket,
    BUZZ_S3_REGION: c.region,
    BUZZ_S3_ADDRESSING_STYLE: c.addressingStyle,
    BUZZ_S3_ACCESS_KEY: c.credentials?.accessKeyId,
    BUZZ_S3_SECRET_KEY: c.credentials?.secretAccessKey,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env;
}

/** The same environment for the second operator: DATABASE_URL as the approving login. */
export function approverEnv(env: Env): Env {
  return { ...env, DATABASE_URL: urlAs(env.DATABASE_URL!, APPROVER_LOGIN) };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON when it is exactly one line of JSON, else undefined. */
  json: any;
}

export interface Running {
  child: ChildProcess;
  pid: number;
  /** Resolves with the boundary named by the first `PAUSED <boundary>` stderr line. */
  paused: Promise<string>;
  done: Promise<CliResult>;
  stderr(): string;
}

function parseJsonLine(stdout: string): unknown {
  const text = stdout.trim();
  if (text === '' || text.includes('\n')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// Children still running when the test process exits (a failed assertion
// before a kill) are killed, so no paused executor outlives its test.
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * Starts bin/deletions; the caller may wait for a test pause, kill it, or
 * await it. With pauseAt, the CLI runs through the test-only entry point
 * that stops the executor at that boundary (the shipped CLI has no such switch).
 */
export function startDeletions(args: string[], env: Env, options: { timeoutMs?: number; pauseAt?: string } = {}): Running {
  const child =
    options.pauseAt === undefined
      ? spawn(bin, args, { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(process.execPath, ['--import', tsxLoader, pausingCli, options.pauseAt, ...args], {
          env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'],
        });
  live.add(child);
  let stdout = '';
  let stderr = '';
  let pausedResolve!: (boundary: string) => void;
  let pausedReject!: (error: Error) => void;
  const paused = new Promise<string>((resolve, reject) => {
    pausedResolve = resolve;
    pausedReject = reject;
  });
  paused.catch(() => {});
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
    const m = /^PAUSED (\S+)$/m.exec(stderr);
    if (m) pausedResolve(m[1]!);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? CHILD_BUDGET_MS);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      pausedReject(new Error(`deletions ${args.join(' ')} ended (${code ?? signal}) without pausing:\n${stderr}\n${stdout}`));
      resolve({ code, signal, stdout, stderr, json: parseJsonLine(stdout) });
    });
  });
  if (child.pid === undefined) throw new Error('could not start bin/deletions');
  return { child, pid: child.pid, paused, done, stderr: () => stderr };
}

/** Runs bin/deletions to its end. */
export function deletions(args: string[], env: Env, options: { timeoutMs?: number } = {}): Promise<CliResult> {
  return startDeletions(args, env, options).done;
}

/** A short description of a CLI result for assertion messages. */
export function show(r: CliResult): string {
  return `exit ${r.code ?? r.signal}\nstdout: ${r.stdout.trim().slice(0, 2000)}\nstderr: ${r.stderr.trim().slice(-3000)}`;
}

/** SIGKILL (no cleanup, no release) and wait until the process is gone. */
export async function killHard(running: Running): Promise<CliResult> {
  process.kill(running.pid, 'SIGKILL');
  return running.done;
}

export function redisClient(): Redis {
  return new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 2 });
}

/**
 * What an end-to-end test file runs against: its own database (cloned from
 * the test template), its own versioned bucket, a Redis client, and the CLI's
 * environment for the first two — each torn down when the file ends.
 */
export async function e2eStores(t: Teardown): Promise<{ db: TestDatabase; sql: TestDatabase['sql']; bucket: TestBucket; redis: Redis; env: Env }> {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const bucket = await createTestBucket(t);
  const redis = redisClient();
  t.teardown(() => redis.disconnect());
  return { db, sql: db.sql, bucket, redis, env: cliEnv(db, bucket) };
}

export interface Seeded {
  id: string;
  host: string;
}

export interface SeedOptions {
  /** Rows per bulk table (tests.seed_community's n). */
  rows?: number;
  /** Keys per owned prefix. */
  keys?: number;
  /** Versions per key before its delete marker. */
  versions?: number;
  /** Redis string keys besides the hash and list. */
  redisKeys?: number;
}

/**
 * A community with rows in every scoped and provenance table, objects under
 * all three owned prefixes (several versions per key, then a delete marker,
 * and for every other key one more version on top of the marker), and Redis
 * keys of several types in its namespace plus the bare `buzz:<id>` key, which
 * is NOT in the namespace (`buzz:<id>:*`) and must survive.
 */
export async function seedCommunity(sql: postgres.Sql, store: S3Store, redis: Redis, host: string, options: SeedOptions = {}): Promise<Seeded> {
  const { rows = 2, keys = 2, versions = 2, redisKeys = 5 } = options;
  const [row] = await sql<{ id: string }[]>`select tests.seed_community(${host}, ${rows}::integer) as id`;
  const id = row!.id;
  const put = (key: string, body: string) => store.client.send(new PutObjectCommand({ Bucket: store.bucket, Key: key, Body: body }));
  const ops: Promise<unknown>[] = [];
  for (let i = 0; i < keys; i++) {
    const blob = hex(`${host}:blob:${i}`);
    const perKey = [`_meta/${id}/${blob}.json`, `_uploads/${id}/${blob}.json`, `repos/${id}/repo-${i}.json`];
    for (const key of perKey) {
      ops.push(
        (async () => {
          for (let v = 0; v < versions; v++) await put(key, JSON.stringify({ key, v, host }));
          await store.client.send(new DeleteObjectCommand({ Bucket: store.bucket, Key: key }));
          if (i % 2 === 0) await put(key, JSON.stringify({ key, v: 'after-marker', host }));
        })(),
      );
    }
  }
  await Promise.all(ops);
  const pipeline = redis.pipeline();
  for (let i = 0; i < redisKeys; i++) pipeline.set(`buzz:${id}:session:${i}`, `s${i}`);
  pipeline.hset(`buzz:${id}:presence`, { alice: 'online', bob: 'away' });
  pipeline.rpush(`buzz:${id}:fanout`, 'a', 'b', 'c');
  pipeline.set(`buzz:${id}`, 'bare key outside the namespace');
  await pipeline.exec();
  return { id, host };
}

/** Shared content-addressed keys (never deleted per community), two versions each. */
export async function seedShared(store: S3Store, tag: string): Promise<string[]> {
  const keys = [
    `blobs/${hex(`${tag}:blob:0`)}`,
    `blobs/${hex(`${tag}:blob:1`)}`,
    `thumbs/${hex(`${tag}:thumb`)}`,
    `manifests/${hex(`${tag}:manifest`)}`,
    `packs/${hex(`${tag}:pack`)}.pack`,
    `idx/${hex(`${tag}:pack`)}.idx`,
  ];
  for (const key of keys) {
    for (let v = 0; v < 2; v++) await store.client.send(new PutObjectCommand({ Bucket: store.bucket, Key: key, Body: `${key}:${v}` }));
  }
  return keys;
}

/** Digest of every version of the given keys (key, version id, kind, size), from a whole-bucket listing. */
export async function keysDigest(store: S3Store, keys: readonly string[]): Promise<{ versions: number; digest: string }> {
  const wanted = new Set(keys);
  const h = createHash('sha256');
  let versions = 0;
  for await (const e of store.listWholeBucket()) {
    if (!wanted.has(e.key)) continue;
    versions += 1;
    h.update(`${e.key}\t${e.version_id}\t${e.kind}\t${e.size}\n`);
  }
  return { versions, digest: h.digest('hex') };
}

export { fingerprint, type Fingerprint } from '../../src/dev/fingerprint.js';

/**
 * Submit (as alice@ops) and approve (as bob@ops, from the second login) through the same SQL calls
 * and storage enumeration the CLI's submit/approve make, without paying two
 * CLI start-ups per request (test/e2e/full-lifecycle covers the CLI path).
 */
export async function submitAndApprove(
  sql: postgres.Sql, store: S3Store, host: string,
  options: { chunkSize?: number; redisUrl?: string; s3Endpoint?: string } = {},
): Promise<string> {
  const [req] = await sql<{ id: string; community_id: string }[]>`
    select id, community_id from community_deletion.submit(${host}, 'alice@ops', 'e2e test')`;
  const taxonomy = await loadTaxonomy(new EngineClient(sql));
  const summary = await enumerateOwnedStorage(store, taxonomy, req!.community_id, { chunkSize: options.chunkSize ?? 10_000 });
  // The stores recorded are the ones the test's executor will be run with
  // (options: an endpoint or Redis that stalls, say), listed from the real ones.
  const stores = await storesOf(store, options.redisUrl ?? REDIS_URL, options.s3Endpoint);
  await sql`select 1 from community_deletion.freeze_inventory(${req!.id}::uuid, ${sql.json(JSON.parse(JSON.stringify(summary)))},
                                                              ${sql.json(JSON.parse(JSON.stringify(stores)))})`;
  await approveAsSecondLogin(sql, req!.id, 'bob@ops', 'e2e approval');
  return req!.id;
}

/**
 * The store identity of a test bucket's client and a Redis URL — what an
 * executor configured with them presents (freeze_inventory requires it).
 */
export async function storesOf(store: S3Store, redisUrl: string = REDIS_URL, s3Endpoint?: string): Promise<StoreIdentity> {
  let url = s3Endpoint;
  if (url === undefined) {
    const endpoint = await store.client.config.endpoint?.();
    if (!endpoint) throw new Error(`the test bucket ${store.bucket} has no endpoint`);
    url = `${endpoint.protocol}//${endpoint.hostname}${endpoint.port ? `:${endpoint.port}` : ''}${endpoint.path}`;
  }
  return storeIdentityFromConfig({ endpoint: url, bucket: store.bucket }, { url: redisUrl });
}

export interface RequestRow {
  id: string;
  stage: string;
  lease_owner: string | null;
  lease_generation: string;
  lease_until: Date | null;
  attempts: number;
  retry_count: number;
  retry_stage: string | null;
  blocked_at: Date | null;
  blocked_reason: string | null;
  last_error: string | null;
  last_error_at: Date | null;
  next_attempt_at: Date;
  fence_generation: string | null;
  destructive_storage_manifest: any;
  completed_at: Date | null;
}

export async function requestRow(sql: postgres.Sql, id: string): Promise<RequestRow> {
  const [row] = await sql<RequestRow[]>`select * from community_deletion.requests where id = ${id}`;
  if (!row) throw new Error(`no request ${id}`);
  return row;
}

export interface CheckpointRow {
  stage: string;
  unit_key: string;
  status: string;
  attempts: number;
  lease_generation: string;
  detail: any;
  error: string | null;
}

export async function checkpoints(sql: postgres.Sql, id: string): Promise<CheckpointRow[]> {
  return sql<CheckpointRow[]>`
    select stage, unit_key, status, attempts, lease_generation, detail, error
    from community_deletion.checkpoints where request_id = ${id} order by sequence`;
}

/**
 * Ends a dead executor's lease now, as its expiry would, instead of waiting
 * for it: tests give victims long leases (so a busy machine can never lose
 * one early) and expire them here once the process is gone. The heartbeat
 * renews only an unexpired lease, so a late beat of the dead process that
 * was still in flight cannot bring it back.
 */
export async function expireLease(sql: postgres.Sql, id: string): Promise<void> {
  const rows = await sql`
    update community_deletion.requests set lease_until = now() - interval '1 hour'
     where id = ${id} and lease_owner is not null returning id`;
  if (rows.length !== 1) throw new Error(`request ${id} has no lease to expire`);
}

/** Environment for a victim executor: a lease no busy machine can lose, and heartbeats (pause it with startDeletions' pauseAt). */
export function victimEnv(env: Env): Env {
  return { ...env, DELETIONS_LEASE_SECONDS: '3600', DELETIONS_HEARTBEAT_SECONDS: '5' };
}

/** PutObject many keys with modest concurrency; returns each key's new version id. */
export async function putMany(client: S3Client, bucket: string, keys: readonly string[], body: (key: string) => string, concurrency = 6): Promise<Map<string, string>> {
  const versions = new Map<string, string>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < keys.length) {
        const key = keys[next++]!;
        const out = await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body(key) }));
        if (!out.VersionId) throw new Error(`no version id for ${key}`);
        versions.set(key, out.VersionId);
      }
    }),
  );
  return versions;
}

/** A loopback TCP listener that accepts every connection and never writes a byte (a stalled store). */
export async function blackhole(t: { teardown(fn: () => unknown): void }): Promise<{ port: number; connections: () => number }> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return { port: (server.address() as net.AddressInfo).port, connections: () => accepted };
}
