// Shared plumbing of `npm run bench`: throwaway databases cloned from a
// freshly migrated template, a private moto_server per measurement, Redis
// seeding, the engine driven in-process (submit/freeze/approve untimed, then
// Executor.runOnce timed) and the naive "no safety" deletion it is compared to.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { Redis } from 'ioredis';
import { DeleteObjectsCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from '../../src/config.js';
import { createS3Client, S3Store } from '../../src/s3.js';
import { RedisCache } from '../../src/redis.js';
import { storeIdentity, storeIdentityFromConfig } from '../../src/store-identity.js';
import { enumerateOwnedStorage, loadTaxonomy } from '../../src/inventory.js';
import { Executor, type RunOutcome } from '../../src/executor.js';
import { EngineClient, type LeaseToken, type PurgeBatch, type PurgeTotals } from '../../src/engine.js';
import { ensureVersionedBucket, startMoto, type LocalS3 } from '../../src/dev/local-s3.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

// ---------------------------------------------------------------------------
// PostgreSQL

/** The server: DATABASE_URL's when set, otherwise postgres@127.0.0.1:5432. */
export interface PgServer {
  host: string;
  port: string;
  user: string;
  password?: string;
}

export function pgServer(): PgServer {
  const raw = process.env.DATABASE_URL?.trim();
  if (!raw) {
    return { host: process.env.PGHOST ?? '127.0.0.1', port: process.env.PGPORT ?? '5432', user: process.env.PGUSER ?? 'postgres' };
  }
  const url = new URL(raw);
  return {
    host: url.hostname || '127.0.0.1',
    port: url.port || '5432',
    user: decodeURIComponent(url.username || 'postgres'),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}

export function dbUrl(server: PgServer, database: string): string {
  const auth = server.password === undefined ? encodeURIComponent(server.user) : `${encodeURIComponent(server.user)}:${encodeURIComponent(server.password)}`;
  return `postgres://${auth}@${server.host}:${server.port}/${database}`;
}

export function connectTo(url: string, max = 1): postgres.Sql {
  return postgres(url, { max, onnotice: () => {}, idle_timeout: 30 });
}

export class Databases {
  private readonly created = new Set<string>();
  readonly prefix = `cd_bench_${process.pid}_${randomBytes(2).toString('hex')}`;

  constructor(readonly server: PgServer) {}

  name(label: string): string {
    return `${this.prefix}_${label}`;
  }

  url(name: string): string {
    return dbUrl(this.server, name);
  }

  private async admin<T>(body: (sql: postgres.Sql) => Promise<T>): Promise<T> {
    const sql = connectTo(this.url('postgres'));
    try {
      return await body(sql);
    } finally {
      await sql.end({ timeout: 5 });
    }
  }

  /** Builds a database from the migrations (committed, then current.sql) exactly as scripts/test.sh does. */
  buildFromMigrations(name: string): void {
    const env = { ...process.env, PGHOST: this.server.host, PGPORT: this.server.port, PGUSER: this.server.user, ...(this.server.password ? { PGPASSWORD: this.server.password } : {}) };
    const result = spawnSync('bash', ['-c', 'source scripts/lib.sh && build_from_migrations "$1"', 'bench', name], { cwd: root, env, encoding: 'utf8' });
    this.created.add(name);
    if (result.status !== 0) throw new Error(`building ${name} from the migrations failed:\n${result.stdout}\n${result.stderr}`);
  }

  async clone(template: string, label: string): Promise<string> {
    const name = this.name(label);
    await this.drop(name);
    await this.admin((sql) => sql.unsafe(`create database "${name}" template "${template}"`));
    this.created.add(name);
    return name;
  }

  async drop(name: string): Promise<void> {
    await this.admin((sql) => sql.unsafe(`drop database if exists "${name}" with (force)`));
    this.created.delete(name);
  }

  async dropAll(): Promise<void> {
    for (const name of [...this.created]) await this.drop(name).catch(() => {});
  }
}

// ---------------------------------------------------------------------------
// S3 (moto_server) and Redis

export interface Bucket {
  moto: LocalS3;
  config: S3Config;
  client: S3Client;
  store: S3Store;
  stop(): void;
}

export async function startBucket(): Promise<Bucket> {
  const moto = await startMoto();
  const config: S3Config = {
    endpoint: moto.endpoint,
    bucket: `bench-${randomBytes(4).toString('hex')}`,
    region: 'us-east-1',
    addressingStyle: 'path',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  };
  const client = createS3Client(config);
  await ensureVersionedBucket(client, config.bucket);
  return {
    moto,
    config,
    client,
    store: new S3Store(client, config.bucket),
    stop() {
      client.destroy();
      moto.stop();
    },
  };
}

/** The owned keys of a community: 60 % _meta/, 30 % _uploads/, 10 % repos/ (taxonomy shapes). */
export function ownedKeys(communityId: string, count: number): string[] {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const hex = i.toString(16).padStart(64, '0');
    const slot = i % 10;
    if (slot < 6) keys.push(`_meta/${communityId}/${hex}.json`);
    else if (slot < 9) keys.push(`_uploads/${communityId}/${hex}.json`);
    else keys.push(`repos/${communityId}/repo-${i}.json`);
  }
  return keys;
}

/** PUTs the keys with bounded concurrency (one version each). */
export async function putObjects(bucket: Pick<Bucket, 'client' | 'config'>, keys: readonly string[], concurrency = 16): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++]!;
      await bucket.client.send(new PutObjectCommand({ Bucket: bucket.config.bucket, Key: key, Body: `{"k":"${key.length}"}` }));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export function redisUrl(): string {
  return process.env.REDIS_URL?.trim() || 'redis://127.0.0.1:6379';
}

export async function withRedis<T>(body: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(redisUrl(), { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    return await body(redis);
  } finally {
    redis.disconnect();
  }
}

/** count keys in the community's namespace buzz:<id>:… (unique per run: the id is fresh). */
export async function seedRedis(communityId: string, count: number): Promise<void> {
  await withRedis(async (redis) => {
    for (let start = 0; start < count; start += 1000) {
      const pipeline = redis.pipeline();
      for (let i = start; i < Math.min(count, start + 1000); i++) pipeline.set(`buzz:${communityId}:k:${i}`, `value-${i}`);
      await pipeline.exec();
    }
  });
}

export async function countRedis(communityId: string): Promise<number> {
  return withRedis(async (redis) => {
    let cursor = '0';
    let n = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `buzz:${communityId}:*`, 'COUNT', 1000);
      n += keys.length;
      cursor = next;
    } while (cursor !== '0');
    return n;
  });
}

export async function countVersions(bucket: Bucket, communityId: string): Promise<number> {
  let n = 0;
  for (const prefix of [`_meta/${communityId}/`, `_uploads/${communityId}/`, `repos/${communityId}/`]) {
    for await (const _entry of bucket.store.listVersions(prefix)) n += 1;
  }
  return n;
}

// ---------------------------------------------------------------------------
// The engine, in-process

/** submit → freeze inventory (S3 enumerated as the CLI does) → approve by a second operator. Untimed. */
export async function prepareRequest(sql: postgres.Sql, bucket: Bucket, host: string): Promise<{ requestId: string; communityId: string }> {
  const [submitted] = await sql<{ id: string; community_id: string }[]>`
    select id, community_id from community_deletion.submit(${host}, 'bench-requester@ops', 'benchmark')`;
  if (!submitted) throw new Error(`submit returned nothing for ${host}`);
  const taxonomy = await loadTaxonomy(new EngineClient(sql));
  const summary = await enumerateOwnedStorage(bucket.store, taxonomy, submitted.community_id, { chunkSize: 10_000 });
  const stores = storeIdentityFromConfig(bucket.config, { url: redisUrl() });
  await sql`select community_deletion.freeze_inventory(${submitted.id}::uuid, ${sql.json(JSON.parse(JSON.stringify(summary)))},
                                                        ${sql.json(JSON.parse(JSON.stringify(stores)))})`;
  await approveAsSecondLogin(sql, submitted.id);
  return { requestId: submitted.id, communityId: submitted.community_id };
}

/**
 * The two-person rule refuses an approval from the login that submitted: the
 * benchmark approves from a second login role (created when missing; the
 * local benchmark server trusts loopback connections).
 */
async function approveAsSecondLogin(sql: postgres.Sql, requestId: string): Promise<void> {
  const login = 'deletions_bench_approver';
  await sql.unsafe(`do $$ begin
      if not exists (select 1 from pg_roles where rolname = '${login}') then create role ${login} login; end if;
      if not pg_has_role('${login}', 'community_deletion_operator', 'member') then grant community_deletion_operator to ${login}; end if;
    end $$`);
  const o = sql.options as unknown as { host: string[]; port: number[]; database: string };
  const approver = postgres(`postgres://${login}@${o.host[0]}:${o.port[0]}/${o.database}`, { max: 1, onnotice: () => {} });
  try {
    await approver`select community_deletion.approve(${requestId}::uuid, 'bench-approver@ops', 'benchmark')`;
  } finally {
    await approver.end({ timeout: 5 });
  }
}

export interface EngineRun {
  ms: number;
  outcome: RunOutcome;
  stages: { stage: string; ms: number }[];
}

/** One timed call from the client: start and end on performance.now()'s clock. */
export interface TimedCall {
  call: string;
  start: number;
  end: number;
  rows?: number;
}

/**
 * The typed client with the PostgreSQL purge's calls timed from the client:
 * each purge_postgres_batch and the final finish_postgres_purge is one
 * autocommit statement, i.e. one transaction, so a call's duration bounds that
 * transaction (and its hold of the shared schema-destruction lock, taken first
 * thing) from above. onBatch runs after each batch call returns.
 */
export class TimedEngine extends EngineClient {
  readonly calls: TimedCall[] = [];
  onBatch?: (call: TimedCall, result: PurgeBatch) => Promise<void> | void;

  override async purgePostgresBatch(t: LeaseToken, fenceGeneration: string): Promise<PurgeBatch> {
    const start = performance.now();
    const result = await super.purgePostgresBatch(t, fenceGeneration);
    const call: TimedCall = { call: 'purge_postgres_batch', start, end: performance.now(), rows: result.rows };
    this.calls.push(call);
    await this.onBatch?.(call, result);
    return result;
  }

  override async finishPostgresPurge(t: LeaseToken, fenceGeneration: string): Promise<PurgeTotals> {
    const start = performance.now();
    const result = await super.finishPostgresPurge(t, fenceGeneration);
    this.calls.push({ call: 'finish_postgres_purge', start, end: performance.now() });
    return result;
  }
}

export interface EngineOptions {
  /** Builds the typed client of the executor's main connection (e.g. a TimedEngine). */
  engine?: (sql: postgres.Sql) => EngineClient;
  /** application_name of the executor's connections (the heartbeat's gets "-heartbeat"). */
  applicationName?: string;
}

/** Executor.runOnce for one request, timed: claim to retention_pending. */
export async function runEngine(url: string, bucket: Bucket, requestId: string, options: EngineOptions = {}): Promise<EngineRun> {
  const app = options.applicationName ?? 'bench-engine';
  const sql = postgres(url, { max: 2, onnotice: () => {}, connection: { application_name: app } });
  const heartbeatSql = postgres(url, { max: 1, onnotice: () => {}, connection: { application_name: `${app}-heartbeat` } });
  const redis = new Redis(redisUrl(), { lazyConnect: true, maxRetriesPerRequest: 3 });
  await redis.connect();
  try {
    const engine = options.engine ? options.engine(sql) : new EngineClient(sql);
    const taxonomy = await loadTaxonomy(engine);
    const executor = new Executor({
      engine,
      heartbeatEngine: new EngineClient(heartbeatSql),
      store: bucket.store,
      cache: new RedisCache(redis),
      storeIdentity: storeIdentity(bucket.config, redis),
      taxonomy,
      executorId: `bench:${os.hostname()}:${process.pid}`,
      mode: 'run',
      chunkSize: 10_000,
      leaseSeconds: 120,
      heartbeatSeconds: 10,
      log: () => {},
    });
    const started = performance.now();
    const outcome = await executor.runOnce(requestId);
    const ms = performance.now() - started;
    if (outcome.kind !== 'completed') throw new Error(`the engine did not complete: ${JSON.stringify(outcome)}`);
    return { ms, outcome, stages: outcome.stages };
  } finally {
    redis.disconnect();
    await Promise.all([sql.end({ timeout: 5 }), heartbeatSql.end({ timeout: 5 })]);
  }
}

/**
 * The naive deletion the engine is compared with: no request, no fence, no
 * lease, no manifest, no verification. One DELETE per registered table in
 * purge order (autocommit), provenance nulled, the three prefixes listed and
 * deleted with DeleteObjects (1,000 versions per request), SCAN + UNLINK.
 */
export interface NaiveRun {
  ms: number;
  pgMs: number;
  s3Ms: number;
  redisMs: number;
  /** Each PostgreSQL statement (autocommit: one transaction each), timed from the client. */
  statements: TimedCall[];
}

export interface NaiveOptions {
  applicationName?: string;
  /** Called as each PostgreSQL statement is sent (not awaited). */
  onStatement?: (table: string) => void;
}

export async function runNaive(url: string, bucket: Bucket, communityId: string, options: NaiveOptions = {}): Promise<NaiveRun> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connection: { application_name: options.applicationName ?? 'bench-naive' } });
  const statements: TimedCall[] = [];
  const timed = async (table: string, body: () => Promise<{ count: number }>) => {
    options.onStatement?.(table);
    const start = performance.now();
    const result = await body();
    statements.push({ call: table, start, end: performance.now(), rows: result.count });
  };
  const redis = new Redis(redisUrl(), { lazyConnect: true, maxRetriesPerRequest: 3 });
  await redis.connect();
  try {
    const tables = await sql<{ table_name: string; kind: string }[]>`
      select table_name, kind from community_deletion.registered_tables where kind in ('scoped', 'provenance') order by kind, purge_order`;
    // The read-state guard on events admits only the engine's role with the
    // opt-in setting; a DBA deleting by hand has to do the same.
    await sql`set role community_deletion_owner`;
    await sql`select set_config('community_deletion.read_state_hard_delete', 'on', false)`;
    const started = performance.now();
    for (const t of tables.filter((x) => x.kind === 'provenance')) {
      await timed(t.table_name, () => sql.unsafe(`update public.${t.table_name} set community_id = null where community_id = $1`, [communityId]));
    }
    for (const t of tables.filter((x) => x.kind === 'scoped')) {
      await timed(t.table_name, () => sql.unsafe(`delete from public.${t.table_name} where community_id = $1`, [communityId]));
    }
    const pgDone = performance.now();
    for (const prefix of [`_meta/${communityId}/`, `_uploads/${communityId}/`, `repos/${communityId}/`]) {
      const batch: { Key: string; VersionId: string }[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        await bucket.client.send(new DeleteObjectsCommand({ Bucket: bucket.config.bucket, Delete: { Objects: batch.splice(0), Quiet: true } }));
      };
      // Listing while deleting would move the markers; collect the prefix first.
      const entries: { Key: string; VersionId: string }[] = [];
      for await (const e of bucket.store.listVersions(prefix)) entries.push({ Key: e.key, VersionId: e.version_id });
      for (const e of entries) {
        batch.push(e);
        if (batch.length === 1000) await flush();
      }
      await flush();
    }
    const s3Done = performance.now();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `buzz:${communityId}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    const done = performance.now();
    return { ms: done - started, pgMs: pgDone - started, s3Ms: s3Done - pgDone, redisMs: done - s3Done, statements };
  } finally {
    redis.disconnect();
    await sql.end({ timeout: 5 });
  }
}

/** Runs bin/deletions with the given arguments; resolves with exit code, stdout, stderr and wall time. */
export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(path.join(root, 'bin/deletions'), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
  });
}

/** One figure of the run (a table row on stdout, an object in the JSON). */
export interface Row {
  id: string;
  measurement: string;
  baseline_label: string;
  baseline: number | null;
  ours_label: string;
  ours: number | null;
  unit: string;
  ratio: number | null;
  target: string;
  met: boolean | null;
  detail?: unknown;
}

/** The q-quantile (0..1) of the values, nearest rank; null when there are none. */
export function quantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** The largest of the values (null when there are none); no spread, so any number of them (a 20 M-row run's writer has ~300,000). */
export function maxOf(values: readonly number[]): number | null {
  let max: number | null = null;
  for (const v of values) if (max === null || v > max) max = v;
  return max;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
