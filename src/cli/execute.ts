// Executor commands: run ID, drain, worker; and the fleet taxonomy sweep.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Argv, CommandModule } from 'yargs';
import { connect, type Sql } from '../db.js';
import { ConfigError, loadRedisConfig, loadS3Config, loadTuning, type Tuning } from '../config.js';
import { createS3Store } from '../s3.js';
import { createRedisCache } from '../redis.js';
import { loadTaxonomy } from '../inventory.js';
import { Executor, pollLoop, type ExecutorMode, type RunOutcome } from '../executor.js';
import { CliError, requireDatabaseUrl, run, type Output } from './common.js';
import { EXIT } from './exit-codes.js';
import { Progress, table } from './format.js';

function defaultExecutorId(): string {
  return `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

interface Services {
  sql: Sql;
  heartbeatSql: Sql;
  close(): Promise<void>;
}

/**
 * Loads S3/Redis/tuning configuration. With a named request, a configuration
 * failure is recorded durably against it (pre_claim:service_setup + block) so
 * `inspect` explains why the request is stranded.
 */
async function buildExecutor(out: Output, services: Services, mode: ExecutorMode, executorId: string, requestId?: string) {
  let s3Config, redisConfig, tuning: Tuning;
  try {
    s3Config = loadS3Config();
    redisConfig = loadRedisConfig();
    tuning = loadTuning();
  } catch (error) {
    if (error instanceof ConfigError && requestId) {
      try {
        await services.sql`select community_deletion.block_preclaim(${requestId}::uuid, 'pre_claim:service_setup', ${`service configuration: ${error.message}`})`;
        out.log(`recorded pre_claim:service_setup block on ${requestId}: ${error.message}`);
      } catch (recordError) {
        // SQL refused to record it (terminal, leased elsewhere, unknown id):
        // the configuration problem is still what this command reports.
        out.log(`could not record the configuration failure against ${requestId}: ${(recordError as Error).message}`);
      }
    }
    throw error;
  }
  const s3 = createS3Store(s3Config);
  const redis = createRedisCache(redisConfig);
  const taxonomy = await loadTaxonomy(services.sql);
  const progress = new Progress();
  const pauseAt = testPauseBoundary();
  const executor: Executor = new Executor({
    sql: services.sql,
    heartbeatSql: services.heartbeatSql,
    s3,
    redis,
    taxonomy,
    executorId,
    mode,
    chunkSize: tuning.chunkSize,
    leaseSeconds: tuning.leaseSeconds,
    heartbeatSeconds: tuning.heartbeatSeconds,
    log: out.log,
    progress: (label, done, total) => progress.update(label, done, total),
    ...(pauseAt === undefined ? {} : { onBoundary: (boundary: string) => pauseForTest(boundary, pauseAt, executor.shutdownSignal) }),
  });
  const close = async () => {
    progress.done();
    redis.client.disconnect();
    s3.client.destroy();
  };
  return { executor, close };
}

/**
 * TEST-ONLY hook, used by the crash/resume tests (test/e2e): with
 * DELETIONS_TEST_PAUSE_AT=<boundary> the executor, on reaching that step
 * boundary (`after:<stage>`, `destructive_manifest_frozen`,
 * `chunk_deleted:<n>`), writes the line `PAUSED <boundary>` to stderr and
 * waits — still heartbeating its lease — until it is killed (the test sends
 * SIGKILL to simulate a crash at exactly that point) or asked to shut down
 * (SIGTERM/SIGINT, which then releases the claim as usual). It changes no
 * decision: it only stops time between two steps. Operators never set it.
 */
function testPauseBoundary(): string | undefined {
  const value = process.env.DELETIONS_TEST_PAUSE_AT?.trim();
  return value ? value : undefined;
}

async function pauseForTest(boundary: string, pauseAt: string, shutdown: AbortSignal): Promise<void> {
  if (boundary !== pauseAt) return;
  process.stderr.write(`PAUSED ${boundary}\n`);
  // A referenced timer keeps the event loop (and the heartbeat) alive.
  const keepAlive = setInterval(() => {}, 60_000);
  try {
    if (!shutdown.aborted) await new Promise<void>((resolve) => shutdown.addEventListener('abort', () => resolve(), { once: true }));
  } finally {
    clearInterval(keepAlive);
  }
}

function openServices(): Services {
  const url = requireDatabaseUrl();
  const sql = connect(url, { max: 2, applicationName: 'deletions-executor' });
  const heartbeatSql = connect(url, { max: 1, applicationName: 'deletions-heartbeat' });
  return {
    sql,
    heartbeatSql,
    async close() {
      await Promise.all([sql.end({ timeout: 5 }), heartbeatSql.end({ timeout: 5 })]);
    },
  };
}

/** SIGTERM/SIGINT: finish nothing new, release the claim, exit cleanly. */
function onShutdown(executor: Executor, out: Output): () => void {
  const handler = (signal: string) => {
    out.log(`${signal} received: releasing the claim and stopping`);
    executor.requestShutdown();
  };
  const term = () => handler('SIGTERM');
  const int = () => handler('SIGINT');
  process.on('SIGTERM', term);
  process.on('SIGINT', int);
  return () => {
    process.off('SIGTERM', term);
    process.off('SIGINT', int);
  };
}

function exitFor(outcome: RunOutcome): number {
  switch (outcome.kind) {
    case 'completed':
    case 'stopped':
      return EXIT.ok;
    case 'failure_recorded':
      return EXIT.failureRecorded;
    case 'lease_lost':
    case 'nothing_claimable':
      return EXIT.notRunnable;
  }
}

async function explainNotRunnable(sql: Sql, requestId: string): Promise<{ state: string; explanation: string }> {
  const [{ inspection }] = (await sql`select community_deletion.inspect(${requestId}::uuid) as inspection`) as unknown as [
    { inspection: { state: string; explanation: string } },
  ];
  return { state: inspection.state, explanation: inspection.explanation };
}

export const runCommand: CommandModule<object, { id: string; 'executor-id'?: string }> = {
  command: 'run <id>',
  describe: 'Claim one request and drive it to retention_pending (or to a recorded failure)',
  builder: (y: Argv) =>
    y
      .positional('id', { type: 'string', demandOption: true, describe: 'deletion request id' })
      .option('executor-id', { type: 'string', describe: 'executor identity (default host:pid:random)' }) as Argv<{ id: string; 'executor-id'?: string }>,
  handler: (args) =>
    run(async (out) => {
      if (!/^[0-9a-f-]{36}$/i.test(args.id)) throw new CliError(`request id ${JSON.stringify(args.id)} is not a UUID`, EXIT.usage);
      const id = args.id.toLowerCase();
      const services = openServices();
      try {
        const { executor, close } = await buildExecutor(out, services, 'run', args['executor-id'] ?? defaultExecutorId(), id);
        const detach = onShutdown(executor, out);
        try {
          const outcome = await executor.runOnce(id);
          if (outcome.kind === 'nothing_claimable') {
            const why = await explainNotRunnable(services.sql, id);
            out.result({ outcome: 'not_runnable', request_id: id, ...why }, `not runnable (${why.state}): ${why.explanation}`);
            process.exitCode = EXIT.notRunnable;
            return;
          }
          out.result(outcome, humanOutcome(outcome));
          process.exitCode = exitFor(outcome);
        } finally {
          detach();
          await close();
        }
      } finally {
        await services.close();
      }
    }),
};

function humanOutcome(o: RunOutcome): string {
  switch (o.kind) {
    case 'completed':
      return `${o.requestId}: retention_pending\n${table(o.stages as unknown as Record<string, unknown>[], ['stage', 'ms'])}`;
    case 'failure_recorded':
      return `${o.requestId}: ${o.stage} failed (${o.retryable ? 'transient' : 'permanent'}${o.blocked ? ', blocked' : `, retry at ${o.nextAttemptAt}`}): ${o.error}`;
    case 'lease_lost':
      return `${o.requestId}: lease lost at ${o.stage}: ${o.error}`;
    case 'stopped':
      return `${o.requestId}: released at ${o.stage} (shutdown)`;
    case 'nothing_claimable':
      return 'nothing claimable';
  }
}

interface LoopArgs {
  'executor-id'?: string;
  'idle-min-seconds': number;
  'idle-max-seconds': number;
}

function loopCommand(mode: 'drain' | 'worker', describe: string): CommandModule<object, LoopArgs> {
  return {
    command: mode,
    describe,
    builder: (y: Argv) => {
      const withId = y.option('executor-id', { type: 'string', describe: 'executor identity (default host:pid:random)' });
      if (mode === 'drain') return withId as unknown as Argv<LoopArgs>;
      // An idle worker polls after idle-min seconds, doubling up to idle-max.
      return withId
        .option('idle-min-seconds', { type: 'number', default: 1, describe: 'first idle poll interval' })
        .option('idle-max-seconds', { type: 'number', default: 30, describe: 'longest idle poll interval' }) as unknown as Argv<LoopArgs>;
    },
    handler: (args) =>
      run(async (out) => {
        const idleMin = args['idle-min-seconds'] ?? 1;
        const idleMax = args['idle-max-seconds'] ?? 30;
        if (!(idleMin > 0 && idleMax >= idleMin && idleMax <= 86_400)) {
          throw new CliError('--idle-min-seconds must be > 0 and ≤ --idle-max-seconds ≤ 86400', EXIT.usage);
        }
        const services = openServices();
        const executorId = args['executor-id'] ?? defaultExecutorId();
        try {
          const { executor, close } = await buildExecutor(out, services, mode, executorId);
          const detach = onShutdown(executor, out);
          try {
            const outcomes = await pollLoop(executor, { untilEmpty: mode === 'drain', idleMinMs: idleMin * 1000, idleMaxMs: idleMax * 1000, log: out.log });
            await services.sql`select community_deletion.executor_stopped(${executorId})`.catch(() => {});
            const summary = {
              executor_id: executorId,
              completed: outcomes.filter((o) => o.kind === 'completed').length,
              failures_recorded: outcomes.filter((o) => o.kind === 'failure_recorded').length,
              outcomes,
            };
            out.result(summary, `${executorId}: ${summary.completed} completed, ${summary.failures_recorded} failures recorded`);
            process.exitCode = summary.failures_recorded > 0 ? EXIT.failureRecorded : EXIT.ok;
          } finally {
            detach();
            await close();
          }
        } finally {
          await services.close();
        }
      }),
  };
}

export const drainCommand = loopCommand('drain', 'Run every claimable request until none is left, then exit');
export const workerCommand = loopCommand('worker', 'Poll for claimable requests with backoff until SIGTERM/SIGINT');

export const sweepCommand: CommandModule<object, { cap?: number; 'sample-size': number }> = {
  command: 'sweep',
  describe: 'Fleet-wide storage taxonomy sweep: count keys that match no known writer shape (never gates a deletion)',
  builder: (y: Argv) =>
    y
      .option('cap', { type: 'number', describe: 'list at most this many objects (default DELETIONS_SWEEP_CAP)' })
      .option('sample-size', { type: 'number', default: 20, describe: 'unknown keys to keep as a sample (≤ 100)' }) as Argv<{ cap?: number; 'sample-size': number }>,
  handler: (args) =>
    run(async (out) => {
      const tuning = loadTuning();
      const cap = args.cap ?? tuning.sweepCap;
      if (!Number.isSafeInteger(cap) || cap < 1) throw new CliError('--cap must be a positive integer', EXIT.usage);
      const sampleSize = Math.min(Math.max(0, Math.trunc(args['sample-size'])), 100);
      const store = createS3Store(loadS3Config());
      const sql = connect(requireDatabaseUrl(), { max: 1, applicationName: 'deletions-sweep' });
      try {
        const taxonomy = await loadTaxonomy(sql);
        const started = new Date();
        const progress = new Progress();
        let listed = 0;
        let unknown = 0;
        let truncated = false;
        const sample: string[] = [];
        for await (const entry of store.listWholeBucket()) {
          if (listed >= cap) {
            truncated = true;
            break;
          }
          listed += 1;
          if (taxonomy.classifyKey(entry.key).scope === 'unknown') {
            unknown += 1;
            if (sample.length < sampleSize && !sample.includes(entry.key)) sample.push(entry.key);
          }
          progress.update('sweeping', listed);
        }
        progress.done();
        const [row] = await sql`select to_jsonb(s) as sweep from community_deletion.record_taxonomy_sweep(
          ${started.toISOString()}::timestamptz, ${listed}::bigint, ${unknown}::bigint, ${sql.json(sample)}, ${cap}::bigint, ${truncated}) s`;
        out.result(row?.sweep, `listed ${listed}${truncated ? ' (cap reached)' : ''}, unknown ${unknown}${sample.length ? `\n${sample.join('\n')}` : ''}`);
        if (unknown > 0) process.exitCode = EXIT.unknownKeys;
      } finally {
        store.client.destroy();
        await sql.end({ timeout: 5 });
      }
    }),
};
