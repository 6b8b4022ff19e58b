// The purge group of `npm run bench` (issue 15 §4–7): what the batched
// PostgreSQL purge does to the live fleet, against the naive single-statement-
// per-table deletion on an identical copy, at two tenant sizes (1 M and 5 M
// rows by default; --rows N sets the smaller, the larger is 5 × N; --scale N
// adds an N-million-row run). Per size:
//
//   * one database seeded with the target community, a few bystander
//     communities and bench.churn (a bystander table for the vacuum probe),
//     cloned for the naive run;
//   * a bystander writer — the application role, through the write fence —
//     inserting and updating rows of the bystander communities at a fixed rate
//     (open loop: each statement's latency counts from its scheduled time), for
//     an idle period first, then during the deletion;
//   * a sampler on a second connection reading pg_stat_activity.xact_start and
//     pg_locks (the shared schema-destruction lock) every 25 ms;
//   * the engine (Executor.runOnce, claim → retention_pending) with every
//     purge_postgres_batch / finish_postgres_purge call timed from the client
//     (each is one autocommit statement: one transaction), then the naive
//     script with each DELETE / UPDATE timed the same way;
//   * halfway through each purge, 20,000 rows of bench.churn are updated and
//     the table vacuumed (VACUUM VERBOSE's counts, pgstattuple before/after).
import postgres from 'postgres';
import {
  TimedEngine,
  connectTo,
  log,
  maxOf,
  ownedKeys,
  prepareRequest,
  putObjects,
  quantile,
  runEngine,
  runNaive,
  seedRedis,
  sleep,
  startBucket,
  type Databases,
  type Row,
  type TimedCall,
} from './lib.js';

export interface PurgeSizes {
  /** The smaller tenant (rows); the larger is largeRows. */
  baseRows: number;
  largeRows: number;
  /** --scale: an extra run at this many rows (null: none). */
  scaleRows: number | null;
  bystanders: number;
  bystanderRows: number;
  objects: number;
  keys: number;
  /** Bystander writer statements per second. */
  writerRate: number;
  /** Seconds of idle writer before each deletion (the idle baseline). */
  idleSeconds: number;
  churnRows: number;
  /** --batch-rows: community_deletion.settings.purge_batch_rows in the purge group's databases (null: the migrations' default). */
  batchRows: number | null;
  /** --rest-ratio: community_deletion.settings.purge_batch_rest_ratio in the purge group's databases (null: the default, 0). */
  restRatio: number | null;
}

export interface PurgeContext {
  dbs: Databases;
  template: string;
  sizes: PurgeSizes;
  record: (row: Row) => void;
}

const SAMPLE_MS = 25;
/** The largest table of bench.seed_community (25 % of the rows): the naive run's vacuum probe starts during its DELETE. */
const NAIVE_PROBE_TABLE = 'events';

const ms = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${x.toFixed(x >= 100 ? 0 : 1)} ms`);
const n = (x: number) => x.toLocaleString('en-US');

/**
 * Before each idle baseline: a CHECKPOINT, so the dirty buffers of the
 * seeding and of the clone (CREATE DATABASE ... TEMPLATE writes the whole
 * copy) are flushed before the writer's idle period rather than during it —
 * the engine's and the naive run's baselines start from the same clean state.
 */
async function settle(url: string): Promise<void> {
  const sql = connectTo(url, 1);
  try {
    await sql`checkpoint`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

// ---------------------------------------------------------------------------
// The bystander writer

interface WriterSample {
  due: number;
  latency: number;
  ok: boolean;
}

/** bench.hex(k, n) of scripts/bench/seed.sql, in TypeScript (the application role has no access to schema bench). */
const hex = (k: number, i: number) => k.toString(16).padStart(4, '0') + i.toString(16).padStart(60, '0');

class Writer {
  private readonly sql: postgres.Sql;
  private readonly samples: WriterSample[] = [];
  private readonly tag = Math.random().toString(36).slice(2, 8);
  private stopped = false;
  private loop?: Promise<void>;
  readonly errors: string[] = [];

  constructor(url: string, private readonly communities: string[], private readonly rate: number) {
    // The application role, as serving writers are: every statement goes
    // through the write fence of the table it writes.
    this.sql = postgres(url, { max: 4, onnotice: () => {}, connection: { application_name: 'bench-writer', role: 'community_deletion_app' } });
  }

  /** Statement i: even ones insert a pubkey_allowlist row, odd ones update a user, round-robin over the bystanders. */
  private statement(i: number): Promise<unknown> {
    const community = this.communities[i % this.communities.length]!;
    if (i % 2 === 0) {
      return this.sql`insert into public.pubkey_allowlist (community_id, pubkey, added_by)
                      values (${community}, ${`writer-${this.tag}-${i}`}, 'bench-writer')`;
    }
    return this.sql`update public.users set about = ${`written ${i}`} where community_id = ${community} and pubkey = ${hex(1, 1 + (i % 200))}`;
  }

  async warm(): Promise<void> {
    const [who] = await this.sql<{ role: string }[]>`select current_user as role`;
    if (who?.role !== 'community_deletion_app') throw new Error(`the bystander writer runs as ${who?.role}, not community_deletion_app`);
    for (let i = 0; i < 40; i++) await this.statement(1_000_000_000 + i);
  }

  start(): void {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    const interval = 1000 / this.rate;
    const origin = performance.now();
    const inflight = new Set<Promise<void>>();
    for (let i = 0; !this.stopped; i++) {
      const due = origin + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const p: Promise<void> = this.statement(i).then(
        () => {
          this.samples.push({ due, latency: performance.now() - due, ok: true });
        },
        (error: Error) => {
          this.samples.push({ due, latency: performance.now() - due, ok: false });
          if (this.errors.length < 5) this.errors.push(error.message);
        },
      );
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }
    await Promise.all(inflight);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    await this.sql.end({ timeout: 5 });
  }

  /** p50/p99 latency of the statements scheduled within [from, to]. */
  stats(from: number, to: number): LatencyStats {
    const inWindow = this.samples.filter((s) => s.due >= from && s.due <= to);
    const latencies = inWindow.map((s) => s.latency);
    return {
      statements: inWindow.length,
      failed: inWindow.filter((s) => !s.ok).length,
      p50_ms: quantile(latencies, 0.5),
      p99_ms: quantile(latencies, 0.99),
      max_ms: maxOf(latencies),
    };
  }
}

interface LatencyStats {
  statements: number;
  failed: number;
  p50_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
}

// ---------------------------------------------------------------------------
// The transaction sampler

interface SampledTxn {
  pid: number;
  app: string;
  xactStart: string;
  firstSeen: number;
  lastSeen: number;
  maxAgeMs: number;
  /** Age of the transaction at the last sample that saw it holding the schema-destruction lock (taken first in every destructive transaction). */
  lockHoldMs: number;
}

class Sampler {
  private readonly sql: postgres.Sql;
  private readonly txns = new Map<string, SampledTxn>();
  private stopped = false;
  private loop?: Promise<void>;
  samples = 0;

  constructor(url: string) {
    this.sql = postgres(url, { max: 1, onnotice: () => {}, connection: { application_name: 'bench-sampler' } });
  }

  async start(): Promise<void> {
    const [k] = await this.sql<{ key: string }[]>`select community_deletion._schema_destruction_lock_key()::text as key`;
    const key = BigInt.asUintN(64, BigInt(k!.key));
    // An advisory lock on a bigint key: classid = high 32 bits, objid = low 32 bits, objsubid = 1.
    const classid = String(key >> 32n);
    const objid = String(key & 0xffffffffn);
    this.loop = (async () => {
      while (!this.stopped) {
        const rows = await this.sql<{ pid: number; app: string; xs: string; age_ms: number; holds: boolean }[]>`
          select a.pid, a.application_name as app, a.xact_start::text as xs,
                 (extract(epoch from clock_timestamp() - a.xact_start) * 1000)::float8 as age_ms,
                 exists (select 1 from pg_locks l
                          where l.pid = a.pid and l.locktype = 'advisory' and l.granted
                            and l.classid = ${classid}::oid and l.objid = ${objid}::oid and l.objsubid = 1) as holds
            from pg_stat_activity a
           where a.datname = current_database() and a.pid <> pg_backend_pid() and a.xact_start is not null`;
        const now = performance.now();
        this.samples += 1;
        for (const r of rows) {
          const id = `${r.pid}:${r.xs}`;
          const t = this.txns.get(id) ?? { pid: r.pid, app: r.app, xactStart: r.xs, firstSeen: now, lastSeen: now, maxAgeMs: 0, lockHoldMs: 0 };
          t.lastSeen = now;
          t.maxAgeMs = Math.max(t.maxAgeMs, r.age_ms);
          if (r.holds) t.lockHoldMs = Math.max(t.lockHoldMs, r.age_ms);
          this.txns.set(id, t);
        }
        await sleep(SAMPLE_MS);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    await this.sql.end({ timeout: 5 });
  }

  /** The longest transaction and schema-lock hold seen among the backends whose application_name starts with app, overlapping [from, to]. */
  longest(app: string, from: number, to: number): { txn_ms: number; schema_lock_ms: number; transactions: number } {
    const seen = [...this.txns.values()].filter((t) => t.app.startsWith(app) && t.lastSeen >= from && t.firstSeen <= to);
    return {
      txn_ms: Math.max(0, ...seen.map((t) => t.maxAgeMs)),
      schema_lock_ms: Math.max(0, ...seen.map((t) => t.lockHoldMs)),
      transactions: seen.length,
    };
  }
}

// ---------------------------------------------------------------------------
// The vacuum probe

interface VacuumAttempt {
  removed: number | null;
  dead_not_yet_removable: number | null;
  purge_running_at_vacuum_end: boolean;
  vacuum_ms: number;
  /** The backends of the database whose snapshot was older than the churn when the vacuum started (what holds the horizon). */
  older_snapshots: { pid: number; app: string; backend_type: string; xmin_age: number; xact_ms: number; query: string }[];
  verbose?: string;
}

interface VacuumProbe {
  churned: number;
  dead_before_churn: number;
  dead_before_vacuum: number;
  /** Removed over all attempts. */
  vacuum_removed: number | null;
  /** Still dead but not removable at the last attempt. */
  vacuum_dead_not_yet_removable: number | null;
  dead_after_vacuum: number;
  purge_running_at_vacuum_end: boolean;
  attempts: VacuumAttempt[];
}

/** At most this many VACUUMs per probe while the purge runs, each after `ready` (engine: a new batch boundary; naive: 1 s). */
const VACUUM_ATTEMPTS = 5;

/**
 * Updates every row of bench.churn once (churnRows dead row versions), then
 * VACUUMs it — each attempt after `ready(since, attempt)` — until a VACUUM
 * removes them, the purge ends or VACUUM_ATTEMPTS ran: VACUUM VERBOSE says how
 * many it removed and how many were dead but not yet removable (held back by
 * an older snapshot); pgstattuple counts the dead row versions before and
 * after; the backends whose snapshot was older than the churn are listed
 * before each attempt.
 */
async function churnAndVacuum(url: string, ready: (since: number, attempt: number) => Promise<void>, purgeRunning: () => boolean): Promise<VacuumProbe> {
  const notices: string[] = [];
  const sql = postgres(url, { max: 1, onnotice: (n) => notices.push(String(n.message)), connection: { application_name: 'bench-vacuum' } });
  const dead = async () => {
    const [r] = await sql<{ dead: string }[]>`select dead_tuple_count::text as dead from bench.pgstattuple('bench.churn')`;
    return Number(r!.dead);
  };
  try {
    const deadBeforeChurn = await dead();
    const [churned] = await sql<{ n: number; xid: string }[]>`
      with u as (update bench.churn set v = v + 1 returning 1) select count(*)::int as n, txid_current()::text as xid from u`;
    let since = performance.now();
    let deadBeforeVacuum = 0;
    const attempts: VacuumAttempt[] = [];
    for (let attempt = 0; attempt < VACUUM_ATTEMPTS; attempt++) {
      await ready(since, attempt);
      if (attempt === 0) deadBeforeVacuum = await dead();
      const older = await sql<VacuumAttempt['older_snapshots']>`
        select a.pid, a.application_name as app, a.backend_type, age(a.backend_xmin) as xmin_age,
               coalesce((extract(epoch from clock_timestamp() - a.xact_start) * 1000)::float8, 0) as xact_ms, left(a.query, 100) as query
          from pg_stat_activity a
         where a.datname = current_database() and a.pid <> pg_backend_pid()
           and a.backend_xmin is not null and a.backend_xmin::text::bigint <= ${churned!.xid}::bigint % 4294967296
         order by age(a.backend_xmin) desc`;
      notices.length = 0;
      const started = performance.now();
      await sql.unsafe('vacuum (verbose) bench.churn');
      since = performance.now();
      const running = purgeRunning();
      const verbose = notices.find((m) => /tuples: \d+ removed/.test(m));
      const m = verbose?.match(/tuples: (\d+) removed, (\d+) remain, (\d+) are dead but not yet removable/);
      attempts.push({
        removed: m ? Number(m[1]) : null,
        dead_not_yet_removable: m ? Number(m[3]) : null,
        purge_running_at_vacuum_end: running,
        vacuum_ms: since - started,
        older_snapshots: older,
        ...(verbose ? { verbose } : {}),
      });
      if ((m && Number(m[1]) > 0) || !running) break;
    }
    const last = attempts[attempts.length - 1]!;
    return {
      churned: churned!.n,
      dead_before_churn: deadBeforeChurn,
      dead_before_vacuum: deadBeforeVacuum,
      vacuum_removed: attempts.reduce<number | null>((sum, a) => (a.removed === null ? sum : (sum ?? 0) + a.removed), null),
      vacuum_dead_not_yet_removable: last.dead_not_yet_removable,
      dead_after_vacuum: await dead(),
      purge_running_at_vacuum_end: last.purge_running_at_vacuum_end,
      attempts,
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

// ---------------------------------------------------------------------------
// One tenant size

interface SizeResult {
  label: string;
  rows: number;
  engine: {
    ms: number;
    stages: unknown;
    purge_batch_rows: number;
    /** settings.purge_batch_rest_ratio: the executor rests this times each batch's duration before the next. */
    purge_batch_rest_ratio: number;
    batches: number;
    /** Every batch call: [ms, rows]. */
    batch_calls: [number, number][];
    batch_rows_max: number;
    longest_batch_ms: number;
    finish_ms: number;
    longest_txn_ms: number;
    sampled: ReturnType<Sampler['longest']>;
    purge_ms: number;
    writer_idle: LatencyStats;
    writer_purge: LatencyStats;
    writer_errors: string[];
    vacuum: VacuumProbe | null;
  };
  naive: {
    ms: number;
    pg_ms: number;
    longest_txn_ms: number;
    longest_table: string;
    sampled: ReturnType<Sampler['longest']>;
    writer_idle: LatencyStats;
    writer_purge: LatencyStats;
    writer_errors: string[];
    vacuum: VacuumProbe | null;
  };
}

async function seedStorage(bucket: Awaited<ReturnType<typeof startBucket>>, communityId: string, objects: number, keys: number) {
  await Promise.all([putObjects(bucket, ownedKeys(communityId, objects)), seedRedis(communityId, keys)]);
}

async function purgeSize(ctx: PurgeContext, label: string, rows: number): Promise<SizeResult> {
  const { dbs, template, sizes } = ctx;
  const engineDb = await dbs.clone(template, `purge_${label}_engine`);
  const host = `purge-${label}-target.bench`;
  let target = '';
  let batchRows = 0;
  let restRatio = 0;
  const bystanders: string[] = [];
  const seedStarted = performance.now();
  {
    const sql = connectTo(dbs.url(engineDb), 1);
    try {
      const [t] = await sql<{ id: string }[]>`select bench.seed_community(${host}, ${rows}) as id`;
      target = t!.id;
      for (let i = 0; i < sizes.bystanders; i++) {
        const [b] = await sql<{ id: string }[]>`select bench.seed_community(${`purge-${label}-bystander-${i}.bench`}, ${sizes.bystanderRows}) as id`;
        bystanders.push(b!.id);
      }
      if (sizes.batchRows !== null) await sql`update community_deletion.settings set purge_batch_rows = ${sizes.batchRows}`;
      if (sizes.restRatio !== null) await sql`update community_deletion.settings set purge_batch_rest_ratio = ${sizes.restRatio}`;
      const [setting] = await sql<{ rows: number; rest: string }[]>`
        select purge_batch_rows as rows, purge_batch_rest_ratio::text as rest from community_deletion.settings`;
      batchRows = setting!.rows;
      restRatio = Number(setting!.rest);
      await sql`create extension if not exists pgstattuple with schema bench`;
      await sql`select bench.create_churn_table(${sizes.churnRows})`;
      await sql.unsafe('vacuum analyze');
    } finally {
      await sql.end({ timeout: 5 });
    }
  }
  const counted = await (async () => {
    const sql = connectTo(dbs.url(engineDb), 1);
    try {
      const [r] = await sql<{ n: string }[]>`select bench.scoped_rows(${target}) as n`;
      return Number(r!.n);
    } finally {
      await sql.end({ timeout: 5 });
    }
  })();
  log(`   ${label}: ${n(counted)} rows + ${sizes.bystanders} bystanders × ${n(sizes.bystanderRows)} seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s; cloning for the naive run`);
  const naiveDb = await dbs.clone(engineDb, `purge_${label}_naive`);

  // --- The engine -----------------------------------------------------------
  const engineUrl = dbs.url(engineDb);
  let timed: TimedEngine | undefined;
  let engineResult: SizeResult['engine'];
  {
    const bucket = await startBucket();
    const writer = new Writer(engineUrl, bystanders, sizes.writerRate);
    const sampler = new Sampler(engineUrl);
    try {
      await seedStorage(bucket, target, sizes.objects, sizes.keys);
      const sql = connectTo(engineUrl, 1);
      let requestId: string;
      try {
        ({ requestId } = await prepareRequest(sql, bucket, host));
      } finally {
        await sql.end({ timeout: 5 });
      }
      let purgeDone = false;
      let vacuum: Promise<VacuumProbe> | undefined;
      const engineFactory = (s: postgres.Sql) => {
        const e = new TimedEngine(s);
        timed = e;
        // Halfway through: churn bench.churn, then vacuum it once a batch that
        // started after the churn committed has ended (every purge
        // transaction older than the churn is gone by then).
        e.onBatch = (_call, result) => {
          if (vacuum || result.done || result.purgedRows * 2 < result.inventoriedRows) return;
          vacuum = churnAndVacuum(engineUrl, async (since) => {
            while (!purgeDone && !e.calls.some((c) => c.start > since)) await sleep(5);
          }, () => !purgeDone);
        };
        return e;
      };
      await settle(engineUrl);
      await writer.warm();
      await sampler.start();
      writer.start();
      const idleFrom = performance.now();
      await sleep(sizes.idleSeconds * 1000);
      const idleTo = performance.now();
      log(`   ${label}: engine (Executor.runOnce, claim → retention_pending) with the bystander writer at ${sizes.writerRate}/s`);
      const run = await runEngine(engineUrl, bucket, requestId, { engine: engineFactory, applicationName: 'bench-engine' });
      purgeDone = true;
      await writer.stop();
      await sampler.stop();
      const calls = timed!.calls;
      const batches = calls.filter((c) => c.call === 'purge_postgres_batch');
      const finish = calls.find((c) => c.call === 'finish_postgres_purge');
      if (batches.length === 0 || !finish) throw new Error('the engine did not use the batched purge (no purge_postgres_batch / finish_postgres_purge call)');
      const from = batches[0]!.start;
      const to = finish.end;
      const dur = (c: TimedCall) => c.end - c.start;
      engineResult = {
        ms: run.ms,
        stages: run.stages,
        purge_batch_rows: batchRows,
        purge_batch_rest_ratio: restRatio,
        batches: batches.length,
        batch_calls: batches.map((b) => [Math.round(dur(b) * 10) / 10, b.rows ?? 0]),
        batch_rows_max: maxOf(batches.map((b) => b.rows ?? 0)) ?? 0,
        longest_batch_ms: maxOf(batches.map(dur)) ?? 0,
        finish_ms: dur(finish),
        longest_txn_ms: maxOf(calls.map(dur)) ?? 0,
        sampled: sampler.longest('bench-engine', from, to),
        purge_ms: to - from,
        writer_idle: writer.stats(idleFrom, idleTo),
        writer_purge: writer.stats(from, to),
        writer_errors: writer.errors,
        vacuum: vacuum ? await vacuum : null,
      };
    } finally {
      bucket.stop();
    }
  }
  await dbs.drop(engineDb);
  const e = engineResult;
  log(`   ${label}: engine ${(e.ms / 1000).toFixed(1)} s, purge ${(e.purge_ms / 1000).toFixed(1)} s in ${e.batches} batches of ≤ ${n(e.purge_batch_rows)} rows${e.purge_batch_rest_ratio > 0 ? ` resting ${e.purge_batch_rest_ratio} × each batch between two` : ''}; longest transaction ${ms(e.longest_txn_ms)} (longest batch ${ms(e.longest_batch_ms)}, final ${ms(e.finish_ms)}; sampled ${ms(e.sampled.txn_ms)}, schema lock ${ms(e.sampled.schema_lock_ms)})`);
  log(`   ${label}: writer idle p50 ${ms(e.writer_idle.p50_ms)} p99 ${ms(e.writer_idle.p99_ms)} (${e.writer_idle.statements}); during the purge p50 ${ms(e.writer_purge.p50_ms)} p99 ${ms(e.writer_purge.p99_ms)} (${e.writer_purge.statements})`);

  // --- The naive script ------------------------------------------------------
  const naiveUrl = dbs.url(naiveDb);
  let naiveResult: SizeResult['naive'];
  {
    const bucket = await startBucket();
    const writer = new Writer(naiveUrl, bystanders, sizes.writerRate);
    const sampler = new Sampler(naiveUrl);
    try {
      await seedStorage(bucket, target, sizes.objects, sizes.keys);
      await settle(naiveUrl);
      await writer.warm();
      await sampler.start();
      writer.start();
      const idleFrom = performance.now();
      await sleep(sizes.idleSeconds * 1000);
      const idleTo = performance.now();
      log(`   ${label}: naive script with the bystander writer at ${sizes.writerRate}/s`);
      let vacuum: Promise<VacuumProbe> | undefined;
      let probeTableRunning = false;
      const run = await runNaive(naiveUrl, bucket, target, {
        applicationName: 'bench-naive',
        onStatement: (table) => {
          probeTableRunning = table === NAIVE_PROBE_TABLE;
          // Shortly after the largest DELETE starts, churn and vacuum at once.
          if (table === NAIVE_PROBE_TABLE && !vacuum) {
            vacuum = sleep(300).then(() => churnAndVacuum(naiveUrl, (_since, attempt) => (attempt === 0 ? Promise.resolve() : sleep(1000)), () => probeTableRunning));
          }
        },
      });
      probeTableRunning = false;
      const probe = vacuum ? await vacuum : null;
      await writer.stop();
      await sampler.stop();
      const from = run.statements[0]!.start;
      const to = run.statements[run.statements.length - 1]!.end;
      const longest = run.statements.reduce((a, b) => (b.end - b.start > a.end - a.start ? b : a));
      naiveResult = {
        ms: run.ms,
        pg_ms: run.pgMs,
        longest_txn_ms: longest.end - longest.start,
        longest_table: longest.call,
        sampled: sampler.longest('bench-naive', from, to),
        writer_idle: writer.stats(idleFrom, idleTo),
        writer_purge: writer.stats(from, to),
        writer_errors: writer.errors,
        vacuum: probe,
      };
    } finally {
      bucket.stop();
    }
  }
  await dbs.drop(naiveDb);
  const v = naiveResult;
  log(`   ${label}: naive ${(v.ms / 1000).toFixed(1)} s (PostgreSQL ${(v.pg_ms / 1000).toFixed(1)} s); longest transaction ${ms(v.longest_txn_ms)} (${v.longest_table}; sampled ${ms(v.sampled.txn_ms)})`);
  log(`   ${label}: writer idle p50 ${ms(v.writer_idle.p50_ms)} p99 ${ms(v.writer_idle.p99_ms)}; during the naive deletion p50 ${ms(v.writer_purge.p50_ms)} p99 ${ms(v.writer_purge.p99_ms)} (${v.writer_purge.statements})`);
  for (const [who, p] of [['engine', e.vacuum], ['naive', v.vacuum]] as const) {
    if (p) log(`   ${label}: vacuum during the ${who} purge: ${n(p.churned)} churned, dead before ${n(p.dead_before_vacuum)}, ${p.attempts.length} VACUUM(s) removed ${p.vacuum_removed ?? '?'}, not yet removable ${p.vacuum_dead_not_yet_removable ?? '?'}, dead after ${n(p.dead_after_vacuum)}${p.purge_running_at_vacuum_end ? '' : ' (the purge had ended before the last vacuum did)'}${p.attempts[0]?.older_snapshots.length ? `; older snapshots at the first: ${p.attempts[0].older_snapshots.map((o) => `${o.app || o.backend_type} (${Math.round(o.xact_ms)} ms: ${o.query.slice(0, 40)})`).join(', ')}` : ''}`);
    else log(`   ${label}: no vacuum probe during the ${who} purge (too short)`);
  }
  return { label, rows: counted, engine: e, naive: v };
}

// ---------------------------------------------------------------------------

const sec = (msValue: number) => msValue / 1000;

export async function benchPurge(ctx: PurgeContext): Promise<void> {
  const { sizes, record } = ctx;
  const plan: [string, number][] = [['base', sizes.baseRows], ['large', sizes.largeRows]];
  if (sizes.scaleRows !== null) plan.push(['scale', sizes.scaleRows]);
  log(`purge: tenants of ${plan.map(([, r]) => n(r)).join(', ')} rows (engine batched purge vs naive script), bystander writer ${sizes.writerRate}/s, ${sizes.idleSeconds} s idle baseline`);
  const results: SizeResult[] = [];
  for (const [label, rows] of plan) results.push(await purgeSize(ctx, label, rows));
  const base = results[0]!;
  const rowsLabel = (r: SizeResult) => `${n(r.rows)} rows`;
  const push = (row: Omit<Row, 'met'>, met: boolean | null) => {
    record({ ...row, met });
    log(`${row.measurement}: ${row.baseline_label} ${row.baseline?.toFixed(3) ?? '—'} ${row.unit}, ${row.ours_label} ${row.ours?.toFixed(3) ?? '—'} ${row.unit}, ratio ${row.ratio?.toFixed(3) ?? '—'} (target ${row.target}) ${met === null ? '' : met ? 'PASS' : 'MISS'}`);
  };
  const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : a / b);

  // 4. No transaction grows with the tenant.
  for (const big of results.slice(1)) {
    const suffix = big.label === 'large' ? '' : `_${big.label}`;
    const r = ratio(big.engine.longest_txn_ms, base.engine.longest_txn_ms);
    push({
      id: `purge_longest_txn${suffix}`, measurement: `purge: engine's longest transaction, ${rowsLabel(big)} vs ${rowsLabel(base)}`,
      baseline_label: rowsLabel(base), baseline: sec(base.engine.longest_txn_ms), ours_label: rowsLabel(big), ours: sec(big.engine.longest_txn_ms),
      unit: 's', ratio: r, target: '≤ 1.20, each < 1 s',
      detail: { purge_batch_rows: base.engine.purge_batch_rows, batches: [base.engine.batches, big.engine.batches],
        batch_calls: [base.engine.batch_calls, big.engine.batch_calls], longest_batch_ms: [base.engine.longest_batch_ms, big.engine.longest_batch_ms],
        finish_ms: [base.engine.finish_ms, big.engine.finish_ms], sampled: [base.engine.sampled, big.engine.sampled] },
    }, r === null ? null : r <= 1.2 && base.engine.longest_txn_ms < 1000 && big.engine.longest_txn_ms < 1000);
    const lock = ratio(big.engine.sampled.schema_lock_ms, base.engine.sampled.schema_lock_ms);
    push({
      id: `purge_schema_lock${suffix}`, measurement: `purge: engine's longest schema-destruction-lock hold (sampled), ${rowsLabel(big)} vs ${rowsLabel(base)}`,
      baseline_label: rowsLabel(base), baseline: sec(base.engine.sampled.schema_lock_ms), ours_label: rowsLabel(big), ours: sec(big.engine.sampled.schema_lock_ms),
      unit: 's', ratio: lock, target: '≤ 1.20, each < 1 s',
      detail: { sample_interval_ms: SAMPLE_MS, longest_call_ms: [base.engine.longest_txn_ms, big.engine.longest_txn_ms] },
    }, lock === null ? null : lock <= 1.2 && base.engine.sampled.schema_lock_ms < 1000 && big.engine.sampled.schema_lock_ms < 1000);
    push({
      id: `purge_longest_txn_naive${suffix}`, measurement: `purge: naive script's longest transaction, ${rowsLabel(big)} vs ${rowsLabel(base)}`,
      baseline_label: rowsLabel(base), baseline: sec(base.naive.longest_txn_ms), ours_label: rowsLabel(big), ours: sec(big.naive.longest_txn_ms),
      unit: 's', ratio: ratio(big.naive.longest_txn_ms, base.naive.longest_txn_ms), target: 'informational (grows with the tenant)',
      detail: { longest_table: [base.naive.longest_table, big.naive.longest_table], sampled: [base.naive.sampled, big.naive.sampled] },
    }, null);
  }

  // 5. The live fleet barely notices.
  for (const r of results) {
    const e = r.engine;
    const v = r.naive;
    const idle = ratio(e.writer_purge.p99_ms, e.writer_idle.p99_ms);
    const detail = { engine_idle: e.writer_idle, engine_purge: e.writer_purge, naive_idle: v.writer_idle, naive_purge: v.writer_purge,
      writer_errors: [...e.writer_errors, ...v.writer_errors], rate_per_second: sizes.writerRate };
    push({
      id: `purge_writer_p99_vs_idle_${r.label}`, measurement: `purge: bystander writer p99 during the engine's purge vs idle, ${rowsLabel(r)} (p50 ${ms(e.writer_purge.p50_ms)} vs ${ms(e.writer_idle.p50_ms)})`,
      baseline_label: 'idle', baseline: e.writer_idle.p99_ms, ours_label: 'engine purge', ours: e.writer_purge.p99_ms, unit: 'ms', ratio: idle, target: '≤ 1.50', detail,
    }, idle === null ? null : idle <= 1.5);
    const naive = ratio(e.writer_purge.p99_ms, v.writer_purge.p99_ms);
    push({
      id: `purge_writer_p99_vs_naive_${r.label}`, measurement: `purge: bystander writer p99 during the engine's purge vs the naive deletion, ${rowsLabel(r)} (p50 ${ms(e.writer_purge.p50_ms)} vs ${ms(v.writer_purge.p50_ms)})`,
      baseline_label: 'naive', baseline: v.writer_purge.p99_ms, ours_label: 'engine purge', ours: e.writer_purge.p99_ms, unit: 'ms', ratio: naive, target: '< 1.00', detail,
    }, naive === null ? null : naive < 1);
  }

  // 6. Still as fast as the naive way (the whole deletion, the writer running in both).
  {
    const r = ratio(base.engine.ms, base.naive.ms);
    push({
      id: 'purge_deletion_vs_naive', measurement: `purge: whole deletion of ${rowsLabel(base)} + ${n(sizes.objects)} versions + ${n(sizes.keys)} keys, engine (batched purge, ${base.engine.batches} batches) vs naive`,
      baseline_label: 'naive script', baseline: sec(base.naive.ms), ours_label: 'engine', ours: sec(base.engine.ms), unit: 's', ratio: r, target: '≤ 1.20',
      detail: { engine_stages_ms: base.engine.stages, engine_purge_ms: base.engine.purge_ms, naive_pg_ms: base.naive.pg_ms },
    }, r === null ? null : r <= 1.2);
  }

  // 7. Vacuum keeps working (informational).
  for (const r of results) {
    const e = r.engine.vacuum;
    const v = r.naive.vacuum;
    push({
      id: `purge_vacuum_${r.label}`, measurement: `purge: VACUUM of a churned bystander table during the purge, ${rowsLabel(r)}: dead rows left (removed: engine ${e?.vacuum_removed ?? '—'}, naive ${v?.vacuum_removed ?? '—'})`,
      baseline_label: 'naive', baseline: v ? v.dead_after_vacuum : null, ours_label: 'engine', ours: e ? e.dead_after_vacuum : null, unit: 'dead rows',
      ratio: null, target: 'informational', detail: { engine: e, naive: v },
    }, null);
  }
}
