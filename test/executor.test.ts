// Executor control flow on fakes and a manual clock: stage order, a token
// check before every external effect, the heartbeat (one renewal at a time,
// local lease deadline measured from the send time), abandoning in-flight
// effects when the lease is lost, failure classification and shutdown.
//
// No wall-clock time: every fake resolves through promises only, so one
// macrotask turn (settle) runs every continuation that is not waiting on a
// promise the test holds; time moves only through ManualClock.advance.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import redisErrors from 'redis-errors';
import t from 'tap';
import type { FailureRecorded, KeyChunk, LeaseState, LeaseToken, Stage } from '../src/engine.js';
import type { StoreIdentity } from '../src/store-identity.js';
import { Executor, type Clock, type ExecutorEngine, type ObjectStore, type RunOutcome } from '../src/executor.js';
import { compareEntries, type ManifestEntry, type SizedEntry, type StorageSummary } from '../src/manifest.js';
import { CacheError, classifyRedisError, RedisNotEmptyError, RedisScopeError, type Cache } from '../src/redis.js';
import { PermanentStorageError, StorageNotEmptyError, TransientStorageError } from '../src/s3.js';
import { Taxonomy, type TaxonomyRow } from '../src/taxonomy.js';

const { AbortError } = redisErrors;
const ROWS = JSON.parse(readFileSync(new URL('./fixtures/taxonomy.json', import.meta.url), 'utf8')) as TaxonomyRow[];
const taxonomy = new Taxonomy(ROWS);

// ---- plumbing ---------------------------------------------------------------

/** One macrotask turn: every pending promise continuation of the fakes has run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Timers fire only in advance(), in due-time order (ties: the earlier set first). */
class ManualClock implements Clock {
  private time = 0;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.time + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    if (typeof handle === 'number') this.timers.delete(handle);
  }

  /** Moves time forward by ms, firing every timer due on the way and settling after each. */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    await settle();
    for (;;) {
      let due: [number, { at: number; fn: () => void }] | undefined;
      // Map iteration is in insertion (= id) order, so the first of equal due times wins.
      for (const entry of this.timers) if (entry[1].at <= target && (due === undefined || entry[1].at < due[1].at)) due = entry;
      if (due === undefined) break;
      this.timers.delete(due[0]);
      this.time = due[1].at;
      due[1].fn();
      await settle();
    }
    this.time = target;
    await settle();
  }
}

interface Call {
  op: string;
  arg: string;
  /** The request's stage (in the fake engine) when the call was made. */
  stage: Stage;
  at: number;
}

type Interceptor = () => Promise<unknown> | void;

/**
 * The shared call log of the fake engine, store, cache and heartbeat, plus
 * interceptors: a function run when an operation is entered, before its
 * default behaviour; it may throw, or return a promise the test resolves later.
 */
class World {
  readonly calls: Call[] = [];
  stage: Stage = 'approved';
  private readonly queued = new Map<string, Interceptor[]>();
  private readonly standing = new Map<string, Interceptor>();

  constructor(readonly clock: ManualClock) {}

  /** Intercept the next call of op only. */
  next(op: string, fn: Interceptor): void {
    const list = this.queued.get(op) ?? [];
    list.push(fn);
    this.queued.set(op, list);
  }

  /** Intercept every call of op (after any queued one-shot interceptors). */
  every(op: string, fn: Interceptor | undefined): void {
    if (fn === undefined) this.standing.delete(op);
    else this.standing.set(op, fn);
  }

  /** Make the next call of op hang until the returned deferred is resolved. */
  hang(op: string): Deferred<void> {
    const gate = deferred();
    this.next(op, () => gate.promise);
    return gate;
  }

  async enter(op: string, arg = ''): Promise<void> {
    this.calls.push({ op, arg, stage: this.stage, at: this.clock.now() });
    const fn = this.queued.get(op)?.shift() ?? this.standing.get(op);
    if (fn) await fn();
  }

  count(op: string): number {
    return this.calls.filter((c) => c.op === op).length;
  }

  label(c: Call): string {
    return c.arg === '' ? c.op : `${c.op}(${c.arg})`;
  }

  labels(from = 0): string[] {
    return this.calls.slice(from).map((c) => this.label(c));
  }
}

/** Engine reads that have no effect (they run without a cancellation check). */
const READS = new Set(['engine.leaseState', 'engine.keyChunkProgress', 'engine.verifyStoreIdentity']);
const isExternal = (c: Call) => c.op.startsWith('store.') || c.op.startsWith('cache.');
/** Anything that changes state somewhere: store, cache, or an engine write. */
const isEffect = (c: Call) => isExternal(c) || (c.op.startsWith('engine.') && !READS.has(c.op));

const sqlError = (code: string, message = `sqlstate ${code}`) => Object.assign(new Error(message), { code });
const STAGE_MOVES = [
  'engine.fence', 'engine.markDrained', 'engine.markBindingsRemoved', 'engine.finishPostgresPurge',
  'engine.markCachePurged', 'engine.markLogicallyVerified', 'engine.markRetentionPending',
];

// ---- fakes ------------------------------------------------------------------

class FakeEngine implements ExecutorEngine {
  readonly requestId = randomUUID();
  fenceGeneration: string | null = null;
  frozen = false;
  summary: StorageSummary | undefined;
  chunks: Array<{ chunk: KeyChunk; stamped: boolean }> = [];
  readonly recorded: Array<{ stage: Stage; unitKey: string; error: string }> = [];
  readonly blocked: Array<{ stage: Stage; unitKey: string; error: string }> = [];
  failureResult: FailureRecorded = { blocked: false, retry_count: 1, next_attempt_at: '2030-01-01T00:00:00+00:00' };

  constructor(
    private readonly w: World,
    readonly communityId: string,
  ) {}

  private checkToken(t: LeaseToken): void {
    if (t.requestId !== this.requestId || t.leaseGeneration !== '1') throw sqlError('DL4L1', 'stale deletion lease');
  }

  private checkFence(fg: string): void {
    if (fg !== this.fenceGeneration) throw sqlError('DL4L1', `fence generation ${fg} is not ${this.fenceGeneration}`);
  }

  private move(from: Stage, to: Stage): void {
    if (this.w.stage !== from) throw sqlError('DL2S1', `request is at ${this.w.stage}, not ${from}`);
    this.w.stage = to;
  }

  async claim(a: { executorId: string; requestId?: string | null; leaseSeconds: number }) {
    await this.w.enter('engine.claim');
    return { requestId: this.requestId, communityId: this.communityId, executorId: a.executorId, leaseGeneration: '1', stage: this.w.stage };
  }

  async leaseState(t: LeaseToken): Promise<LeaseState> {
    await this.w.enter('engine.leaseState');
    this.checkToken(t);
    return {
      stage: this.w.stage, communityId: this.communityId, fenceGeneration: this.fenceGeneration,
      leaseUntil: new Date(0), destructiveManifestFrozen: this.frozen,
    };
  }

  async verifyToken(t: LeaseToken, stage: Stage): Promise<void> {
    await this.w.enter('engine.verifyToken', stage);
    this.checkToken(t);
    if (stage !== this.w.stage) throw sqlError('DL2S1', `request is at ${this.w.stage}, not ${stage}`);
  }

  async verifyStoreIdentity(t: LeaseToken, identity: StoreIdentity): Promise<StoreIdentity> {
    await this.w.enter('engine.verifyStoreIdentity');
    this.checkToken(t);
    return identity;
  }

  async release(t: LeaseToken): Promise<boolean> {
    await this.w.enter('engine.release');
    this.checkToken(t);
    return true;
  }

  async recordFailure(t: LeaseToken, a: { stage: Stage; unitKey: string; error: string }): Promise<FailureRecorded> {
    await this.w.enter('engine.recordFailure', `${a.stage} ${a.unitKey}`);
    this.checkToken(t);
    this.recorded.push(a);
    return this.failureResult;
  }

  async block(t: LeaseToken, a: { stage: Stage; unitKey: string; error: string }): Promise<void> {
    await this.w.enter('engine.block', `${a.stage} ${a.unitKey}`);
    this.checkToken(t);
    this.blocked.push(a);
  }

  async beginQuiescing(t: LeaseToken): Promise<void> {
    await this.w.enter('engine.beginQuiescing');
    this.checkToken(t);
  }

  async fence(t: LeaseToken): Promise<string> {
    await this.w.enter('engine.fence');
    this.checkToken(t);
    this.move('approved', 'fenced');
    this.fenceGeneration = '7';
    return this.fenceGeneration;
  }

  async clearKeyChunks(t: LeaseToken, fg: string): Promise<number> {
    await this.w.enter('engine.clearKeyChunks');
    this.checkToken(t);
    this.checkFence(fg);
    const removed = this.chunks.length;
    this.chunks = [];
    return removed;
  }

  async appendKeyChunk(t: LeaseToken, fg: string, chunk: { chunkNo: number; prefix: string; entries: readonly ManifestEntry[] }): Promise<void> {
    await this.w.enter('engine.appendKeyChunk', String(chunk.chunkNo));
    this.checkToken(t);
    this.checkFence(fg);
    this.chunks.push({ chunk: { chunkNo: chunk.chunkNo, prefix: chunk.prefix, entries: [...chunk.entries] }, stamped: false });
  }

  async freezeDestructiveManifest(t: LeaseToken, fg: string, manifest: StorageSummary): Promise<void> {
    await this.w.enter('engine.freezeDestructiveManifest');
    this.checkToken(t);
    this.checkFence(fg);
    this.frozen = true;
    this.summary = manifest;
  }

  async markDrained(t: LeaseToken, fg: string): Promise<void> {
    await this.w.enter('engine.markDrained');
    this.checkToken(t);
    this.checkFence(fg);
    this.move('fenced', 'drained');
  }

  async nextKeyChunk(t: LeaseToken, fg: string): Promise<KeyChunk | null> {
    await this.w.enter('engine.nextKeyChunk');
    this.checkToken(t);
    this.checkFence(fg);
    return this.chunks.find((c) => !c.stamped)?.chunk ?? null;
  }

  async stampKeyChunk(t: LeaseToken, fg: string, chunkNo: number, _detail: Record<string, number>): Promise<void> {
    await this.w.enter('engine.stampKeyChunk', String(chunkNo));
    this.checkToken(t);
    this.checkFence(fg);
    const entry = this.chunks.find((c) => c.chunk.chunkNo === chunkNo);
    if (!entry) throw sqlError('DL6K1', `no chunk ${chunkNo}`);
    entry.stamped = true;
  }

  async keyChunkProgress(_requestId: string): Promise<{ total: number; deleted: number; entriesTotal: number; entriesDeleted: number }> {
    await this.w.enter('engine.keyChunkProgress');
    const stamped = this.chunks.filter((c) => c.stamped).length;
    return { total: this.chunks.length, deleted: stamped, entriesTotal: this.chunks.length, entriesDeleted: stamped };
  }

  async markBindingsRemoved(t: LeaseToken, fg: string, _detail: Record<string, number>): Promise<void> {
    await this.w.enter('engine.markBindingsRemoved');
    this.checkToken(t);
    this.checkFence(fg);
    this.move('drained', 'bindings_removed');
  }

  /** Batches the fake purge takes before it is done (the real one: ceil(rows / settings.purge_batch_rows)). */
  purgeBatches = 3;
  purgeBatchesRun = 0;
  /** rest_ms of every batch not done (settings.purge_batch_rest_ratio × the batch's duration in the real one). */
  purgeRestMs = 0;

  async purgePostgresBatch(t: LeaseToken, fg: string) {
    await this.w.enter('engine.purgePostgresBatch');
    this.checkToken(t);
    this.checkFence(fg);
    if (this.w.stage !== 'bindings_removed') throw sqlError('DL4L1', `request is at ${this.w.stage}`);
    this.purgeBatchesRun += 1;
    const done = this.purgeBatchesRun >= this.purgeBatches;
    return { rows: done ? 0 : 10, done, purgedRows: Math.min(this.purgeBatchesRun, this.purgeBatches - 1) * 10, inventoriedRows: (this.purgeBatches - 1) * 10,
      restMs: done ? 0 : this.purgeRestMs };
  }

  async finishPostgresPurge(t: LeaseToken, fg: string) {
    await this.w.enter('engine.finishPostgresPurge');
    this.checkToken(t);
    this.checkFence(fg);
    if (this.purgeBatchesRun < this.purgeBatches) throw sqlError('DL6P1', 'the purge is not finished');
    this.move('bindings_removed', 'postgres_purged');
    return { deleted: {}, provenance_cleared: {} };
  }

  async markCachePurged(t: LeaseToken, fg: string, _detail: Record<string, number>): Promise<void> {
    await this.w.enter('engine.markCachePurged');
    this.checkToken(t);
    this.checkFence(fg);
    this.move('postgres_purged', 'cache_purged');
  }

  async verifyPostgresAbsence(t: LeaseToken, fg: string): Promise<void> {
    await this.w.enter('engine.verifyPostgresAbsence');
    this.checkToken(t);
    this.checkFence(fg);
  }

  async markLogicallyVerified(t: LeaseToken, fg: string, _detail: Record<string, unknown>): Promise<void> {
    await this.w.enter('engine.markLogicallyVerified');
    this.checkToken(t);
    this.checkFence(fg);
    this.move('cache_purged', 'logically_verified');
  }

  async markRetentionPending(t: LeaseToken, fg: string, _detail: Record<string, unknown>): Promise<void> {
    await this.w.enter('engine.markRetentionPending');
    this.checkToken(t);
    this.checkFence(fg);
    this.move('logically_verified', 'retention_pending');
  }
}

class FakeStore implements ObjectStore {
  readonly objects = new Map<string, SizedEntry[]>();

  constructor(private readonly w: World) {}

  async preflight(prefixes: readonly string[]): Promise<void> {
    await this.w.enter('store.preflight', String(prefixes.length));
  }

  async *listVersions(prefix: string): AsyncGenerator<SizedEntry> {
    await this.w.enter('store.listVersions', prefix.split('/')[0]!);
    yield* [...(this.objects.get(prefix) ?? [])];
  }

  async deleteVersions(prefix: string, entries: readonly ManifestEntry[]) {
    await this.w.enter('store.deleteVersions', `${prefix.split('/')[0]!} ${entries.length}`);
    const gone = new Set(entries.map((e) => `${e.key}@${e.version_id}`));
    this.objects.set(prefix, (this.objects.get(prefix) ?? []).filter((e) => !gone.has(`${e.key}@${e.version_id}`)));
    return { deleted: entries.length, alreadyMissing: 0, requests: 1 };
  }

  async assertPrefixEmpty(prefix: string): Promise<void> {
    await this.w.enter('store.assertPrefixEmpty', prefix.split('/')[0]!);
    const first = this.objects.get(prefix)?.[0];
    if (first) throw new StorageNotEmptyError(prefix, first);
  }
}

class FakeCache implements Cache {
  readonly keys = new Set<string>();

  constructor(private readonly w: World) {}

  async publishDisconnect(_communityId: string): Promise<number> {
    await this.w.enter('cache.publishDisconnect');
    return 1;
  }

  async purgeNamespace(communityId: string): Promise<number> {
    await this.w.enter('cache.purgeNamespace');
    const own = [...this.keys].filter((k) => k.startsWith(`buzz:${communityId}:`));
    for (const k of own) this.keys.delete(k);
    return own.length;
  }

  async verifyAbsence(communityId: string): Promise<void> {
    await this.w.enter('cache.verifyAbsence');
    const own = [...this.keys].filter((k) => k.startsWith(`buzz:${communityId}:`));
    if (own.length > 0) throw new RedisNotEmptyError(communityId, own);
  }
}

interface Run {
  readonly settled: boolean;
  readonly outcome: RunOutcome | undefined;
  readonly promise: Promise<RunOutcome>;
}

function harness(options: { leaseSeconds?: number; heartbeatSeconds?: number; stepTimeoutMs?: number; sqlDeadlineMs?: number } = {}) {
  const clock = new ManualClock();
  const world = new World(clock);
  const community = randomUUID();
  const engine = new FakeEngine(world, community);
  const store = new FakeStore(world);
  const cache = new FakeCache(world);
  const hex = () => randomBytes(32).toString('hex');
  const entry = (key: string, version: string): SizedEntry => ({ key, version_id: version, kind: 'object', size: 3 });
  // chunkSize 2: _meta/ holds chunks 0 (2 entries) and 1 (1 entry), _uploads/
  // is empty, repos/ holds chunk 2 (two versions of one key).
  store.objects.set(`_meta/${community}/`, [0, 1, 2].map(() => entry(`_meta/${community}/${hex()}.json`, 'v1')).sort(compareEntries));
  store.objects.set(`_uploads/${community}/`, []);
  store.objects.set(`repos/${community}/`, [entry(`repos/${community}/alpha.json`, 'v1'), entry(`repos/${community}/alpha.json`, 'v2')]);
  cache.keys.add(`buzz:${community}:a`).add(`buzz:${community}:b`).add(`buzz:${randomUUID()}:other`);
  const heartbeatEngine = {
    async heartbeat(_t: LeaseToken, a: { mode: 'run' | 'drain' | 'worker'; leaseSeconds: number; draining: boolean }): Promise<Date> {
      await world.enter('heartbeat', a.draining ? 'draining' : '');
      return new Date(0);
    },
  };
  const logs: string[] = [];
  const executor = new Executor({
    engine, heartbeatEngine, store, cache, taxonomy, clock,
    storeIdentity: { s3_endpoint: 'http://s3.test', s3_bucket: 'bucket', redis_server: 'redis.test:6379', redis_db: 0 },
    executorId: 'executor-under-test', mode: 'run', chunkSize: 2,
    leaseSeconds: options.leaseSeconds ?? 60, heartbeatSeconds: options.heartbeatSeconds ?? 10,
    log: (m) => logs.push(m),
    ...(options.stepTimeoutMs === undefined ? {} : { stepTimeoutMs: options.stepTimeoutMs }),
    ...(options.sqlDeadlineMs === undefined ? {} : { sqlDeadlineMs: options.sqlDeadlineMs }),
  });
  const start = (): Run => {
    let outcome: RunOutcome | undefined;
    let failure: unknown;
    let settled = false;
    const promise = executor.runOnce().then(
      (o) => {
        settled = true;
        outcome = o;
        return o;
      },
      (e: unknown) => {
        settled = true;
        failure = e;
        throw e;
      },
    );
    promise.catch(() => undefined);
    return {
      get settled() {
        return settled;
      },
      get outcome() {
        if (failure !== undefined) throw failure;
        return outcome;
      },
      promise,
    };
  };
  return { clock, world, community, engine, store, cache, executor, logs, start };
}

/** Index of the first call of op (optionally with arg), -1 when there is none. */
function indexOf(world: World, op: string, arg?: string): number {
  return world.calls.findIndex((c) => c.op === op && (arg === undefined || c.arg === arg));
}

// ---- a. the happy path --------------------------------------------------------

t.test('happy path: every stage in order, each external effect after a token check for its stage', async (t) => {
  const h = harness();
  const run = h.start();
  await settle();
  t.ok(run.settled, 'with nothing hanging the run completes without the clock moving');
  const outcome = run.outcome!;
  t.equal(outcome.kind, 'completed');
  if (outcome.kind === 'completed') {
    t.same(outcome.stages.map((s) => s.stage), ['approved', 'fenced', 'drained', 'bindings_removed', 'postgres_purged', 'cache_purged', 'logically_verified']);
  }
  const { calls } = h.world;
  t.same(calls.filter((c) => STAGE_MOVES.includes(c.op)).map((c) => c.op), STAGE_MOVES, 'stage moves in order, once each');
  t.same(
    calls.filter(isExternal).map((c) => `${c.stage}: ${h.world.label(c)}`),
    [
      'approved: store.preflight(3)',
      'fenced: cache.publishDisconnect',
      'fenced: store.listVersions(_meta)',
      'fenced: store.listVersions(_uploads)',
      'fenced: store.listVersions(repos)',
      'drained: store.deleteVersions(_meta 2)',
      'drained: store.deleteVersions(_meta 1)',
      'drained: store.deleteVersions(repos 2)',
      'postgres_purged: cache.purgeNamespace',
      'cache_purged: store.assertPrefixEmpty(_meta)',
      'cache_purged: store.assertPrefixEmpty(_uploads)',
      'cache_purged: store.assertPrefixEmpty(repos)',
      'cache_purged: cache.verifyAbsence',
    ],
    'external effects in stage order',
  );
  calls.forEach((c, i) => {
    if (!isExternal(c)) return;
    const before = calls.slice(0, i);
    const lastCheck = before.map((b) => b.op).lastIndexOf('engine.verifyToken');
    t.ok(lastCheck >= 0, `${h.world.label(c)} has a token check before it`);
    t.equal(calls[lastCheck]!.arg, c.stage, `${h.world.label(c)}: the last token check was for ${c.stage}`);
    t.notOk(before.slice(lastCheck).some((b) => STAGE_MOVES.includes(b.op)), `${h.world.label(c)}: no stage move since the check`);
    if (c.op === 'store.deleteVersions') t.equal(h.world.label(calls[i - 1]!), 'engine.verifyToken(drained)', 'each bulk delete right after its own token check');
  });
  // Each chunk is stamped after its delete and before the next chunk's delete.
  const order = calls.filter((c) => c.op === 'store.deleteVersions' || c.op === 'engine.stampKeyChunk').map((c) => h.world.label(c));
  t.same(order, [
    'store.deleteVersions(_meta 2)', 'engine.stampKeyChunk(0)',
    'store.deleteVersions(_meta 1)', 'engine.stampKeyChunk(1)',
    'store.deleteVersions(repos 2)', 'engine.stampKeyChunk(2)',
  ]);
  t.ok(h.engine.frozen, 'destructive manifest frozen');
  t.same(h.engine.summary?.prefixes.map((p) => p.object_count), [3, 0, 2]);
  t.same([...h.store.objects.values()].flat(), [], 'every owned version deleted');
  t.same([...h.cache.keys].filter((k) => k.includes(h.community)), [], 'namespace purged');
  t.equal([...h.cache.keys].length, 1, 'another community\'s key survives');
  t.equal(h.world.count('engine.recordFailure') + h.world.count('engine.block'), 0);
  t.equal(h.world.count('heartbeat'), 0, 'no heartbeat was due');
  await h.clock.advance(3_600_000);
  t.equal(h.world.calls.length, calls.length, 'nothing runs after the end (heartbeat stopped)');
});

t.test('the fence waits for serving writes on the clock: DL5D1 is retried every 500 ms', async (t) => {
  const h = harness();
  h.world.next('engine.fence', () => {
    throw sqlError('DL5D1', 'serving writes not drained');
  });
  h.world.next('engine.fence', () => {
    throw sqlError('DL5D1', 'serving writes not drained');
  });
  const run = h.start();
  await settle();
  t.equal(h.world.count('engine.fence'), 1);
  await h.clock.advance(499);
  t.equal(h.world.count('engine.fence'), 1, 'no retry before 500 ms');
  await h.clock.advance(1);
  t.equal(h.world.count('engine.fence'), 2, 'retried at 500 ms');
  t.notOk(run.settled);
  await h.clock.advance(500);
  t.equal(h.world.count('engine.fence'), 3);
  t.equal(run.outcome?.kind, 'completed');
  t.equal(h.world.count('engine.recordFailure'), 0, 'waiting is not a recorded failure');
});

// ---- b. a refused heartbeat abandons the in-flight effect ---------------------

t.test('heartbeat refused (DL4L1) while a bulk delete hangs: lease_lost at once, nothing afterwards', async (t) => {
  const h = harness();
  const hung = h.world.hang('store.deleteVersions');
  const run = h.start();
  await settle();
  t.equal(h.world.count('store.deleteVersions'), 1, 'the first bulk delete is in flight');
  h.world.every('heartbeat', () => {
    throw sqlError('DL4L1', 'stale deletion lease');
  });
  await h.clock.advance(9_999);
  t.notOk(run.settled, 'no heartbeat before heartbeatSeconds');
  await h.clock.advance(1);
  t.equal(h.world.count('heartbeat'), 1);
  t.ok(run.settled, 'the run ends without waiting for the hung request');
  t.match(run.outcome, { kind: 'lease_lost', stage: 'drained', error: /stale deletion lease/ });
  const mark = h.world.calls.length;
  hung.resolve();
  await settle();
  await h.clock.advance(3_600_000);
  t.same(h.world.labels(mark), [], 'no call of any kind after the loss, even once the hung request returned');
  t.equal(h.world.count('engine.stampKeyChunk'), 0, 'the abandoned chunk is not stamped');
  t.equal(h.world.count('engine.recordFailure') + h.world.count('engine.block') + h.world.count('engine.release'), 0, 'no failure recorded, nothing released');
});

t.test('lease lost while a SQL report hangs: no external effect starts after it returns', async (t) => {
  const h = harness();
  const hung = h.world.hang('engine.stampKeyChunk');
  const run = h.start();
  await settle();
  t.same(h.world.labels().slice(-1), ['engine.stampKeyChunk(0)'], 'stamping chunk 0');
  h.world.every('heartbeat', () => {
    throw sqlError('DL4L1', 'stale deletion lease');
  });
  await h.clock.advance(10_000);
  const mark = h.world.calls.length;
  hung.resolve();
  await settle();
  t.match(run.outcome, { kind: 'lease_lost', stage: 'drained' });
  t.same(h.world.calls.slice(mark).filter(isEffect).map((c) => h.world.label(c)), [], 'no delete, stamp, token check or report after the loss');
  t.equal(h.world.count('store.deleteVersions'), 1, 'chunk 1 was never deleted');
});

t.test('lease lost while the token check before a bulk delete hangs: the delete never starts', async (t) => {
  const h = harness();
  const gate = deferred();
  let drainedChecks = 0;
  // The second token check of the drained stage is the one right before chunk 0's bulk delete.
  h.world.every('engine.verifyToken', () => (h.world.stage === 'drained' && ++drainedChecks === 2 ? gate.promise : undefined));
  const run = h.start();
  await settle();
  t.equal(drainedChecks, 2, 'the token check before the first bulk delete is in flight');
  h.world.every('heartbeat', () => {
    throw sqlError('DL4L1', 'stale deletion lease');
  });
  await h.clock.advance(10_000);
  gate.resolve();
  await settle();
  t.match(run.outcome, { kind: 'lease_lost', stage: 'drained' });
  t.equal(h.world.count('store.deleteVersions'), 0, 'the check passed, but the lease was lost meanwhile: no delete');
});

// ---- c. one heartbeat at a time ------------------------------------------------

t.test('heartbeats never overlap: the next is scheduled heartbeatSeconds after the previous settled', async (t) => {
  const h = harness({ leaseSeconds: 1000, heartbeatSeconds: 10 });
  const beats: Array<Deferred<void>> = [];
  h.world.every('heartbeat', () => {
    const beat = deferred();
    beats.push(beat);
    return beat.promise;
  });
  const hung = h.world.hang('store.deleteVersions');
  const run = h.start();
  await settle();
  await h.clock.advance(10_000);
  t.equal(h.world.count('heartbeat'), 1, 'first heartbeat at 10 s');
  for (let i = 0; i < 20; i++) await h.clock.advance(10_000);
  t.equal(h.world.count('heartbeat'), 1, 'a hung heartbeat: no second one in 200 s (20 intervals)');
  beats[0]!.resolve();
  await settle();
  t.equal(h.world.count('heartbeat'), 1, 'settling does not send the next one at once');
  await h.clock.advance(9_999);
  t.equal(h.world.count('heartbeat'), 1);
  await h.clock.advance(1);
  t.equal(h.world.count('heartbeat'), 2, 'the next one heartbeatSeconds after the previous settled');
  t.same(h.world.calls.filter((c) => c.op === 'heartbeat').map((c) => c.at), [10_000, 220_000]);
  beats[1]!.resolve();
  await h.clock.advance(10_000);
  t.equal(h.world.count('heartbeat'), 3);
  t.notOk(run.settled, 'the lease was never lost');
  // The run ends while the third heartbeat is still in flight; when it
  // returns, no further heartbeat is scheduled.
  hung.resolve();
  await settle();
  t.equal(run.outcome?.kind, 'completed');
  beats[2]!.resolve();
  await h.clock.advance(3_600_000);
  t.equal(h.world.count('heartbeat'), 3, 'a heartbeat that returns after the run ended schedules none');
});

// ---- d. the local lease deadline ----------------------------------------------

t.test('no heartbeat gets through: the lease is lost at claim send time + leaseSeconds', async (t) => {
  for (const failure of ['refused', 'hung'] as const) {
    await t.test(`heartbeats ${failure}`, async (t) => {
      const h = harness({ leaseSeconds: 60, heartbeatSeconds: 10 });
      if (failure === 'refused') {
        h.world.every('heartbeat', () => {
          throw sqlError('CONNECTION_CLOSED', 'write CONNECTION_CLOSED');
        });
      } else {
        h.world.every('heartbeat', () => new Promise<never>(() => undefined));
      }
      // The claim is sent at 0 but only answered at 5 s: the server's lease
      // may have started at 0, so the local deadline counts from the send.
      const claim = h.world.hang('engine.claim');
      const hung = h.world.hang('store.deleteVersions');
      const run = h.start();
      await h.clock.advance(5_000);
      claim.resolve();
      await settle();
      t.equal(h.world.count('store.deleteVersions'), 1, 'a bulk delete is in flight');
      await h.clock.advance(54_999);
      t.notOk(run.settled, 'still held 1 ms before the deadline');
      t.equal(h.world.count('heartbeat'), failure === 'refused' ? 5 : 1, failure === 'refused' ? 'a failed beat is retried every interval' : 'a hung beat is not repeated');
      await h.clock.advance(1);
      t.ok(run.settled, 'lost at claim sent + 60 s, without waiting for the hung request');
      t.match(run.outcome, { kind: 'lease_lost', stage: 'drained', error: /would have expired/ });
      const mark = h.world.calls.length;
      hung.resolve();
      await settle();
      await h.clock.advance(3_600_000);
      t.same(h.world.labels(mark), [], 'nothing starts after the deadline, not even a heartbeat');
      t.equal(h.world.count('engine.recordFailure') + h.world.count('engine.block'), 0);
    });
  }
});

t.test('a SQL call that never answers is abandoned at the local lease deadline when no heartbeat gets through either', async (t) => {
  const h = harness({ leaseSeconds: 60, heartbeatSeconds: 10 });
  h.world.every('heartbeat', () => new Promise<never>(() => undefined));
  h.world.hang('engine.markDrained'); // PostgreSQL stalled: the answer never comes
  const run = h.start();
  await h.clock.advance(59_999);
  t.equal(h.world.count('engine.markDrained'), 1, 'the call was sent');
  t.notOk(run.settled, 'still waiting 1 ms before the deadline');
  await h.clock.advance(1);
  t.ok(run.settled, 'abandoned at claim sent + 60 s');
  t.match(run.outcome, { kind: 'lease_lost', stage: 'fenced', error: /would have expired/ });
  const mark = h.world.calls.length;
  await h.clock.advance(3_600_000);
  t.same(h.world.labels(mark), [], 'nothing starts afterwards');
});

t.test('a SQL call that never answers while heartbeats get through: abandoned at sqlDeadlineMs, the lease given up', async (t) => {
  const h = harness({ leaseSeconds: 60, heartbeatSeconds: 10, sqlDeadlineMs: 910_000 });
  h.world.hang('engine.markDrained');
  const run = h.start();
  await h.clock.advance(909_999);
  t.notOk(run.settled, 'the lease stays live (heartbeats get through) and the call is waited for until its deadline');
  const beats = h.world.count('heartbeat');
  t.ok(beats >= 90, `heartbeats kept the lease (${beats})`);
  await h.clock.advance(1);
  t.ok(run.settled, 'abandoned at statement_timeout + margin');
  t.match(run.outcome, { kind: 'lease_lost', stage: 'fenced', error: /PostgreSQL did not answer serving_writes_drained within 910 s/ });
  t.equal(h.world.count('engine.recordFailure') + h.world.count('engine.block'), 0, 'nothing is recorded through the stalled database');
  const mark = h.world.calls.length;
  await h.clock.advance(3_600_000);
  t.same(h.world.labels(mark), [], 'no heartbeat after the run ended: the lease expires for a successor');
});

t.test('a transient failure whose recording never answers: abandoned at the lease deadline, lease_lost', async (t) => {
  const h = harness({ leaseSeconds: 60, heartbeatSeconds: 10, sqlDeadlineMs: 910_000 });
  h.world.every('heartbeat', () => new Promise<never>(() => undefined));
  h.world.every('engine.markDrained', () => {
    throw sqlError('CONNECT_TIMEOUT', 'write CONNECT_TIMEOUT'); // a new connection to the stalled server
  });
  h.world.hang('engine.recordFailure');
  const run = h.start();
  await h.clock.advance(59_999);
  t.equal(h.world.count('engine.recordFailure'), 1, 'the failure is being recorded');
  t.notOk(run.settled);
  await h.clock.advance(1);
  t.ok(run.settled, 'not held until sqlDeadlineMs: the lost lease ends the wait');
  t.match(run.outcome, { kind: 'lease_lost', stage: 'fenced', error: /CONNECT_TIMEOUT.*then .*would have expired/ });
});

t.test('a renewal that gets through pushes the deadline to its send time + leaseSeconds', async (t) => {
  const h = harness({ leaseSeconds: 60, heartbeatSeconds: 10 });
  let gate: Deferred<void> | undefined;
  h.world.every('heartbeat', () => {
    // Beats at 10..40 s fail; the one sent at 50 s hangs until the test lets it through.
    if (h.clock.now() === 50_000) {
      gate = deferred();
      return gate.promise;
    }
    throw sqlError('CONNECTION_CLOSED', 'write CONNECTION_CLOSED');
  });
  const hung = h.world.hang('store.deleteVersions');
  const run = h.start();
  await settle();
  await h.clock.advance(55_000);
  t.ok(gate, 'the beat sent at 50 s is in flight');
  gate!.resolve();
  await settle();
  await h.clock.advance(10_000);
  t.notOk(run.settled, 'past the claim deadline (60 s): still held');
  await h.clock.advance(44_999);
  t.notOk(run.settled, 'at 109.999 s: still held');
  await h.clock.advance(1);
  t.ok(run.settled, 'lost at 110 s: the renewal counts from when it was sent (50 s), not when it returned (55 s)');
  t.match(run.outcome, { kind: 'lease_lost', stage: 'drained' });
  const mark = h.world.calls.length;
  hung.resolve();
  await h.clock.advance(60_000);
  t.same(h.world.labels(mark), []);
});

// ---- e. classification ----------------------------------------------------------

interface FailureCase {
  name: string;
  op: string;
  error: () => unknown;
  stage: Stage;
  unitKey: string;
  transient: boolean;
  /** A fragment the recorded error text must contain (the code, where there is one). */
  shows?: string;
}

const CASES: FailureCase[] = [
  { name: 'TransientStorageError (SlowDown)', op: 'store.deleteVersions', error: () => new TransientStorageError('SlowDown', 'S3 DeleteObjects failed'), stage: 'drained', unitKey: 'chunk:0', transient: true, shows: '[SlowDown]' },
  { name: 'CacheError with transient=true', op: 'cache.purgeNamespace', error: () => new CacheError('LOADING', true, 'Redis SCAN failed (LOADING)'), stage: 'postgres_purged', unitKey: 'purge_cache_namespace', transient: true, shows: '[LOADING]' },
  {
    name: 'ioredis AbortError (MaxRetriesPerRequestError) through classifyRedisError', op: 'cache.verifyAbsence',
    error: () => classifyRedisError(new AbortError('Reached the max retries per request limit'), 'reconnecting', 'SCAN'),
    stage: 'cache_purged', unitKey: 'verify_cache_absence', transient: true, shows: '[aborted_while_reconnecting]',
  },
  { name: 'RedisNotEmptyError', op: 'cache.verifyAbsence', error: () => new RedisNotEmptyError(randomUUID(), ['k']), stage: 'cache_purged', unitKey: 'verify_cache_absence', transient: true },
  { name: 'postgres.js CONNECTION_CLOSED', op: 'engine.purgePostgresBatch', error: () => sqlError('CONNECTION_CLOSED', 'write CONNECTION_CLOSED 127.0.0.1:5432'), stage: 'bindings_removed', unitKey: 'purge_postgres_batch', transient: true, shows: '[CONNECTION_CLOSED]' },
  { name: 'serialization failure 40001', op: 'engine.markDrained', error: () => sqlError('40001'), stage: 'fenced', unitKey: 'serving_writes_drained', transient: true, shows: '[40001]' },
  { name: 'socket ECONNRESET from the engine', op: 'engine.nextKeyChunk', error: () => sqlError('ECONNRESET', 'read ECONNRESET'), stage: 'drained', unitKey: 'next_key_chunk', transient: true },
  { name: 'PermanentStorageError (AccessDenied)', op: 'store.preflight', error: () => new PermanentStorageError('AccessDenied', 'S3 ListObjectVersions failed', { httpStatus: 403 }), stage: 'approved', unitKey: 'storage_preflight', transient: false, shows: '[AccessDenied]' },
  { name: 'an unknown plain Error', op: 'cache.publishDisconnect', error: () => new Error('something nobody classified'), stage: 'fenced', unitKey: 'disconnect_published', transient: false },
  { name: 'CacheError with transient=false (WRONGTYPE)', op: 'cache.purgeNamespace', error: () => new CacheError('WRONGTYPE', false, 'Redis UNLINK failed'), stage: 'postgres_purged', unitKey: 'purge_cache_namespace', transient: false },
  { name: 'RedisScopeError', op: 'cache.purgeNamespace', error: () => new RedisScopeError('SCAN returned keys outside the namespace'), stage: 'postgres_purged', unitKey: 'purge_cache_namespace', transient: false },
  { name: 'manifest mismatch DL6K1 on the stamp', op: 'engine.stampKeyChunk', error: () => sqlError('DL6K1'), stage: 'drained', unitKey: 'chunk:0', transient: false, shows: '[DL6K1]' },
];

t.test('failures are classified: transient → recordFailure (retryable), permanent → block', async (t) => {
  for (const c of CASES) {
    await t.test(c.name, async (t) => {
      const h = harness();
      h.world.next(c.op, () => {
        throw c.error();
      });
      const run = h.start();
      await settle();
      const outcome = run.outcome;
      t.match(outcome, { kind: 'failure_recorded', stage: c.stage, retryable: c.transient, blocked: !c.transient });
      if (outcome?.kind !== 'failure_recorded') return;
      if (c.shows !== undefined) t.ok(outcome.error.includes(c.shows), `error text names ${c.shows}: ${outcome.error}`);
      if (c.transient) {
        t.same(h.engine.recorded, [{ stage: c.stage, unitKey: c.unitKey, error: outcome.error }], 'recorded for retry with stage and unit');
        t.same(h.engine.blocked, []);
        t.equal(outcome.nextAttemptAt, h.engine.failureResult.next_attempt_at);
      } else {
        t.same(h.engine.blocked, [{ stage: c.stage, unitKey: c.unitKey, error: outcome.error }], 'blocked with stage and unit');
        t.same(h.engine.recorded, []);
      }
      const failedAt = h.world.calls.findIndex((x) => x.op === c.op);
      t.same(h.world.calls.slice(failedAt + 1).filter(isExternal).map((x) => h.world.label(x)), [], 'no external effect after the failure');
    });
  }
});

t.test('SQL decides when repeated transient failures block', async (t) => {
  const h = harness();
  h.engine.failureResult = { blocked: true, retry_count: 5 };
  h.world.next('store.deleteVersions', () => {
    throw new TransientStorageError('InternalError', 'S3 DeleteObjects failed');
  });
  const run = h.start();
  await settle();
  t.match(run.outcome, { kind: 'failure_recorded', blocked: true, retryable: true });
  t.equal(h.world.count('engine.block'), 0, 'the driver does not block a transient failure itself');
});

t.test('an owned key no writer produces blocks the enumeration (TaxonomyError)', async (t) => {
  const h = harness();
  h.store.objects.get(`repos/${h.community}/`)!.push({ key: `repos/${h.community}/sub/dir.json`, version_id: 'v1', kind: 'object', size: 1 });
  const run = h.start();
  await settle();
  t.match(run.outcome, { kind: 'failure_recorded', stage: 'fenced', retryable: false, blocked: true, error: /malformed_owned_key/ });
  t.same(h.engine.blocked.map((b) => b.unitKey), ['enumerate_storage']);
  t.equal(h.world.count('store.deleteVersions'), 0, 'nothing deleted');
  t.notOk(h.engine.frozen, 'nothing frozen');
});

t.test('serving writes that never drain: DL5D1 becomes a recorded transient failure after leaseSeconds', async (t) => {
  const h = harness({ leaseSeconds: 60, heartbeatSeconds: 10 });
  h.world.every('engine.fence', () => {
    throw sqlError('DL5D1', 'serving writes not drained');
  });
  const run = h.start();
  for (let i = 0; i < 120 && !run.settled; i++) await h.clock.advance(500);
  t.notOk(run.settled, 'still waiting at the deadline (60 s)');
  t.equal(h.world.count('engine.recordFailure'), 0);
  await h.clock.advance(500);
  t.match(run.outcome, { kind: 'failure_recorded', stage: 'approved', retryable: true, error: /\[DL5D1\]/ });
  t.same(h.engine.recorded.map((r) => r.unitKey), ['activate_fence']);
  const fences = h.world.calls.filter((c) => c.op === 'engine.fence').map((c) => c.at);
  t.same(fences, Array.from({ length: 122 }, (_, i) => i * 500), 'one attempt every 500 ms of the clock, up to the deadline');
});

t.test('a failure report refused with DL4L1 is a lost lease, not an error', async (t) => {
  const h = harness();
  h.world.next('store.deleteVersions', () => {
    throw new TransientStorageError('SlowDown', 'S3 DeleteObjects failed');
  });
  h.world.next('engine.recordFailure', () => {
    throw sqlError('DL4L1', 'stale deletion lease');
  });
  const run = h.start();
  await settle();
  t.match(run.outcome, { kind: 'lease_lost', stage: 'drained' });
});

// ---- f. shutdown ----------------------------------------------------------------

t.test('shutdown abandons the in-flight request (aborting it), then releases the lease: stopped', async (t) => {
  const h = harness();
  const hung = h.world.hang('store.deleteVersions');
  const run = h.start();
  await settle();
  t.equal(h.world.count('store.deleteVersions'), 1);
  const signal = h.executor.effectSignal;
  t.ok(signal && !signal.aborted, 'the in-flight effect has a live signal');
  const mark = h.world.calls.length;
  h.executor.requestShutdown();
  await settle();
  t.ok(signal?.aborted, 'its signal is aborted (S3Store sends every request with it)');
  t.match(run.outcome, { kind: 'stopped', stage: 'drained' }, 'stopped without waiting for the hung request');
  t.same(h.world.labels(mark), ['engine.release'], 'released, and nothing else');
  t.equal(h.world.count('engine.recordFailure') + h.world.count('engine.block'), 0, 'shutdown is not a failure');
  hung.resolve();
  await settle();
  await h.clock.advance(3_600_000);
  t.same(h.world.labels(mark), ['engine.release'], 'the late answer and the heartbeat change nothing');
});

t.test('a hung external effect past the step deadline is a transient failure, recorded', async (t) => {
  const h = harness({ stepTimeoutMs: 30_000 });
  h.world.hang('store.deleteVersions');
  const run = h.start();
  await settle();
  const mark = h.world.calls.length;
  await h.clock.advance(29_000);
  t.notOk(run.settled, 'still within the deadline');
  await h.clock.advance(2_000);
  await settle();
  t.match(run.outcome, { kind: 'failure_recorded', stage: 'drained', retryable: true, error: /step_timeout.*no progress for 30 s/ });
  t.same(h.world.labels(mark).filter((l) => l !== 'heartbeat'), ['engine.recordFailure(drained chunk:0)'], 'recorded on the normal retry path');
});

t.test('the purge rests between batches as long as SQL says, on the clock; none after the last', async (t) => {
  const h = harness();
  h.engine.purgeRestMs = 5_000;
  const stopAtPurge = h.world.hang('engine.purgePostgresBatch');
  const run = h.start();
  await settle();
  t.equal(h.engine.purgeBatchesRun, 0, 'the first batch is in flight');
  stopAtPurge.resolve();
  await settle();
  t.equal(h.world.count('engine.purgePostgresBatch'), 1, 'one batch ran');
  await h.clock.advance(4_999);
  t.equal(h.world.count('engine.purgePostgresBatch'), 1, 'no batch while it rests');
  await h.clock.advance(1);
  t.equal(h.world.count('engine.purgePostgresBatch'), 2, 'the next batch once the rest is over');
  t.equal(h.world.count('engine.finishPostgresPurge'), 0);
  await h.clock.advance(5_000);
  t.equal(h.world.count('engine.purgePostgresBatch'), 3, 'the third (done) after another rest');
  await settle();
  t.equal(h.world.count('engine.finishPostgresPurge'), 1, 'finished right after the batch that said done: no rest');
  t.equal(run.outcome?.kind, 'completed');
});

t.test('a lease lost while the purge rests ends the run at once: no further batch', async (t) => {
  const h = harness({ heartbeatSeconds: 10 });
  h.engine.purgeRestMs = 3_600_000;
  const run = h.start();
  await settle();
  t.equal(h.world.count('engine.purgePostgresBatch'), 1, 'resting after the first batch');
  h.world.every('heartbeat', () => {
    throw sqlError('DL4L1', 'stale deletion lease');
  });
  const mark = h.world.calls.length;
  await h.clock.advance(10_000);
  t.ok(run.settled, 'the refused heartbeat ends the rest');
  t.match(run.outcome, { kind: 'lease_lost', stage: 'bindings_removed' });
  await h.clock.advance(3_600_000);
  t.same(h.world.labels(mark), ['heartbeat'], 'no batch, report or release after the loss');
});

t.test('shutdown while the purge rests stops between batches and releases the lease', async (t) => {
  const h = harness();
  h.engine.purgeRestMs = 3_600_000;
  const run = h.start();
  await settle();
  t.equal(h.world.count('engine.purgePostgresBatch'), 1, 'resting after the first batch');
  const mark = h.world.calls.length;
  h.executor.requestShutdown();
  await settle();
  t.match(run.outcome, { kind: 'stopped', stage: 'bindings_removed' }, 'stopped without waiting out the rest');
  t.same(h.world.labels(mark), ['engine.release'], 'released, and no further batch');
});

t.test('shutdown requested between stages stops before the next stage', async (t) => {
  const h = harness();
  const hung = h.world.hang('engine.markDrained');
  const run = h.start();
  await settle();
  h.executor.requestShutdown();
  hung.resolve();
  await settle();
  t.match(run.outcome, { kind: 'stopped', stage: 'drained' }, 'stopped at the stage it would have run next');
  t.equal(indexOf(h.world, 'engine.verifyToken', 'drained'), -1, 'the drained stage never started');
  t.equal(h.world.count('store.deleteVersions'), 0);
  t.equal(h.world.count('engine.release'), 1);
});
