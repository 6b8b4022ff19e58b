// Executor commands: run ID, drain, worker; and the fleet taxonomy sweep.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Argv, CommandModule } from 'yargs';
import { connect, type Sql } from '../db.js';
import { ConfigError, loadRedisConfig, loadS3Config, loadTuning, type Tuning } from '../config.js';
import { EngineClient, SchemaVersionError } from '../engine.js';
import { createS3Store } from '../s3.js';
import { createRedisCache } from '../redis.js';
import { loadTaxonomy } from '../inventory.js';
import { Executor, pollLoop, type ExecutorMode, type RunOutcome } from '../executor.js';
import { CliError, requireDatabaseUrl, run, withEngine, type Output } from './common.js';
import { nextStep, requireUuid } from './operator.js';
import { EXIT } from './exit-codes.js';
import { Progress, table } from './format.js';
import { parseIntegerOption } from './args.js';

function defaultExecutorId(): string {
  return `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/**
 * Hooks an embedding program installs in code (never from the environment):
 * the end-to-end tests' entry point (test/helpers/pausing-cli.ts) stops the
 * executor at a named step boundary to SIGKILL it there. The shipped CLI
 * installs none.
 */
export interface ExecutorHooks {
  onBoundary?: (boundary: string, shutdown: AbortSignal) => Promise<void> | void;
}

let hooks: ExecutorHooks = {};

export function installExecutorHooks(h: ExecutorHooks): void {
  hooks = h;
}

interface Services {
  sql: Sql;
  engine: EngineClient;
  heartbeatEngine: EngineClient;
  close(): Promise<void>;
}

/**
 * Records a reason a named request cannot be run by this process durably
 * against it (block_preclaim), so `inspect` explains why it is stranded.
 * Best effort: SQL may refuse (terminal, leased elsewhere, unknown id, or an
 * engine schema whose block_preclaim differs), and the problem is still what
 * the command reports.
 */
async function recordPreclaimBlock(out: Output, engine: EngineClient, requestId: string, unitKey: string, error: string): Promise<void> {
  try {
    await engine.blockPreclaim({ requestId, unitKey, error });
    out.log(`recorded ${unitKey} block on ${requestId}: ${error}`);
  } catch (recordError) {
    out.log(`could not record ${unitKey} against ${requestId}: ${(recordError as Error).message}`);
  }
}

/**
 * The schema-version gate: this driver runs only against the engine schema
 * it was built for. With a named request the refusal is also recorded
 * against it (pre_claim:schema_version).
 */
async function gateSchemaVersion(out: Output, engine: EngineClient, requestId?: string): Promise<void> {
  try {
    await engine.assertSchemaVersion();
  } catch (error) {
    if (error instanceof SchemaVersionError && requestId) {
      await recordPreclaimBlock(out, engine, requestId, 'pre_claim:schema_version', `schema version: ${error.message}`);
    }
    throw error;
  }
}

/**
 * Loads S3/Redis/tuning configuration. With a named request, a configuration
 * failure is recorded durably against it (pre_claim:service_setup + block) so
 * `inspect` explains why the request is stranded.
 */
async function buildExecutor(out: Output, services: Services, mode: ExecutorMode, executorId: string, requestId?: string) {
  await gateSchemaVersion(out, services.engine, requestId);
  let s3Config, redisConfig, tuning: Tuning;
  try {
    s3Config = loadS3Config();
    redisConfig = loadRedisConfig();
    tuning = loadTuning();
  } catch (error) {
    if (error instanceof ConfigError && requestId) {
      await recordPreclaimBlock(out, services.engine, requestId, 'pre_claim:service_setup', `service configuration: ${error.message}`);
    }
    throw error;
  }
  const store = createS3Store(s3Config);
  const cache = createRedisCache(redisConfig);
  const taxonomy = await loadTaxonomy(services.engine);
  const progress = new Progress();
  const onBoundary = hooks.onBoundary;
  const executor: Executor = new Executor({
    engine: services.engine,
    heartbeatEngine: services.heartbeatEngine,
    store,
    cache,
    taxonomy,
    executorId,
    mode,
    chunkSize: tuning.chunkSize,
    leaseSeconds: tuning.leaseSeconds,
    heartbeatSeconds: tuning.heartbeatSeconds,
    log: out.log,
    progress: (label, done, total) => progress.update(label, done, total),
    ...(onBoundary === undefined ? {} : { onBoundary: (boundary: string) => onBoundary(boundary, executor.shutdownSignal) }),
  });
  const close = async () => {
    progress.done();
    cache.client.disconnect();
    store.client.destroy();
  };
  return { executor, close };
}

function openServices(): Services {
  const url = requireDatabaseUrl();
  const sql = connect(url, { max: 2, applicationName: 'deletions-executor' });
  const heartbeatSql = connect(url, { max: 1, applicationName: 'deletions-heartbeat' });
  return {
    sql,
    engine: new EngineClient(sql),
    heartbeatEngine: new EngineClient(heartbeatSql),
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

async function explainNotRunnable(engine: EngineClient, requestId: string): Promise<{ state: string; explanation: string; next_step: string | null }> {
  const inspection = await engine.inspect(requestId);
  return { state: inspection.state, explanation: inspection.explanation, next_step: nextStep(inspection) };
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
      const id = requireUuid(args.id);
      const services = openServices();
      try {
        const { executor, close } = await buildExecutor(out, services, 'run', args['executor-id'] ?? defaultExecutorId(), id);
        const detach = onShutdown(executor, out);
        try {
          const outcome = await executor.runOnce(id);
          if (outcome.kind === 'nothing_claimable') {
            const why = await explainNotRunnable(services.engine, id);
            out.result({ outcome: 'not_runnable', request_id: id, ...why }, `not runnable (${why.state}): ${why.explanation}${why.next_step ? `\nnext: ${why.next_step}` : ''}`);
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
      return `${o.requestId}: retention_pending\n${table(o.stages, ['stage', 'ms'])}`;
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
            await services.engine.executorStopped(executorId).catch(() => {});
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

export const sweepCommand: CommandModule<object, { cap?: string; 'sample-size': string }> = {
  command: 'sweep',
  describe: 'Fleet-wide storage taxonomy sweep: count keys that match no known writer shape (never gates a deletion)',
  builder: (y: Argv) =>
    y
      .option('cap', { type: 'string', describe: 'list at most this many objects (default DELETIONS_SWEEP_CAP)' })
      .option('sample-size', { type: 'string', default: '20', describe: 'unknown keys to keep as a sample (0..100)' }) as Argv<{ cap?: string; 'sample-size': string }>,
  handler: (args) =>
    run(async (out) => {
      const cap = args.cap === undefined ? undefined : parseIntegerOption(args.cap, '--cap', 1, Number.MAX_SAFE_INTEGER);
      const sampleSize = parseIntegerOption(args['sample-size'], '--sample-size', 0, 100);
      const tuning = loadTuning();
      const sweepCap = cap ?? tuning.sweepCap;
      const store = createS3Store(loadS3Config());
      try {
        await withEngine('deletions-sweep', async (engine) => {
        const taxonomy = await loadTaxonomy(engine);
        const started = new Date();
        const progress = new Progress();
        let listed = 0;
        let unknown = 0;
        let truncated = false;
        const sample: string[] = [];
        for await (const entry of store.listWholeBucket()) {
          if (listed >= sweepCap) {
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
        const sweep = await engine.recordTaxonomySweep({
          startedAt: started, listedObjects: listed, unknownObjectCount: unknown, unknownKeySample: sample, objectCap: sweepCap, truncated,
        });
        out.result(sweep, `listed ${listed}${truncated ? ' (cap reached)' : ''}, unknown ${unknown}${sample.length ? `\n${sample.join('\n')}` : ''}`);
        if (unknown > 0) process.exitCode = EXIT.unknownKeys;
        });
      } finally {
        store.client.destroy();
      }
    }),
};
