// Executor commands: run ID, drain, worker; and the fleet taxonomy sweep.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Argv, CommandModule } from 'yargs';
import { checkConnection, connect, describeDatabase, type Sql } from '../db.js';
import { ConfigError, loadRedisConfig, loadS3Config, loadTimeouts, loadTuning, type S3Config, type Timeouts, type Tuning } from '../config.js';
import { EngineClient, SchemaVersionError } from '../engine.js';
import { loadTaxonomy } from '../inventory.js';
import { Executor, pollLoop, type ExecutorEvent, type ExecutorMode, type RunOutcome } from '../executor.js';
import { answerBoundMs, answeredWithin } from '../pg-stall.js';
import { createLogger, defaultLogFormat, LOG_FORMATS, redactUrl, type LogFormat, type Logger } from '../log.js';
import { CliError, boundedEngine, requireDatabaseUrl, run, withEngine } from './common.js';
import { nextStep, requireUuid } from './operator.js';
import { EXIT } from './exit-codes.js';
import { Progress, table } from './format.js';
import { optionalExecutorId, parseIntegerOption } from './args.js';

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
  /** Every call answered within statement_timeout + 10 s (boundedEngine): the gate, pre-claim records, explanations, metrics. */
  engine: EngineClient;
  /** The same pool unwrapped, for the executor: it bounds each call itself, on its own clock and against its lease. */
  executorEngine: EngineClient;
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
async function recordPreclaimBlock(log: Logger, engine: EngineClient, requestId: string, unitKey: string, error: string): Promise<void> {
  try {
    await engine.blockPreclaim({ requestId, unitKey, error });
    log.warn({ event: 'preclaim_block', request_id: requestId, unit_key: unitKey }, `recorded ${unitKey} block on ${requestId}: ${error}`);
  } catch (recordError) {
    log.warn({ event: 'preclaim_block_failed', request_id: requestId, unit_key: unitKey }, `could not record ${unitKey} against ${requestId}: ${(recordError as Error).message}`);
  }
}

/**
 * The schema-version gate: this driver runs only against the engine schema
 * it was built for. With a named request the refusal is also recorded
 * against it (pre_claim:schema_version).
 */
async function gateSchemaVersion(log: Logger, engine: EngineClient, requestId?: string): Promise<number> {
  try {
    return await engine.assertSchemaVersion();
  } catch (error) {
    if (error instanceof SchemaVersionError && requestId) {
      await recordPreclaimBlock(log, engine, requestId, 'pre_claim:schema_version', `schema version: ${error.message}`);
    }
    throw error;
  }
}

/**
 * SIGTERM/SIGINT: the executor finishes nothing new, abandons (aborts) the
 * store call in flight, releases its claim and the command exits 143/130. A
 * second signal, or a release that does not come back within one request's
 * timeout plus a few seconds, exits at once with the same code (the lease
 * then expires by itself). Installed before anything connects, so a signal
 * at start-up is honoured too.
 */
class Stopper {
  signal: 'SIGTERM' | 'SIGINT' | undefined;
  private executor: Executor | undefined;
  private readonly detachHandlers: () => void;

  constructor(private readonly log: () => Logger, private readonly graceMs: number) {
    const term = () => this.stop('SIGTERM');
    const int = () => this.stop('SIGINT');
    process.on('SIGTERM', term);
    process.on('SIGINT', int);
    this.detachHandlers = () => {
      process.off('SIGTERM', term);
      process.off('SIGINT', int);
    };
  }

  get exitCode(): number | undefined {
    return this.signal === 'SIGTERM' ? EXIT.terminated : this.signal === 'SIGINT' ? EXIT.interrupted : undefined;
  }

  attach(executor: Executor): void {
    this.executor = executor;
    if (this.signal !== undefined) executor.requestShutdown();
  }

  private stop(signal: 'SIGTERM' | 'SIGINT'): void {
    if (this.signal !== undefined) {
      this.log().warn({ event: 'signal', signal, forced: true }, `${signal} received again: exiting now without releasing the claim (its lease expires)`);
      process.exit(this.exitCode);
    }
    this.signal = signal;
    this.log().info({ event: 'signal', signal }, `${signal} received: releasing the claim and stopping`);
    this.executor?.requestShutdown();
    const watchdog = setTimeout(() => {
      this.log().warn({ event: 'shutdown_timeout', grace_ms: this.graceMs }, `still running ${this.graceMs / 1000} s after ${signal}: exiting without releasing the claim (its lease expires)`);
      process.exit(this.exitCode);
    }, this.graceMs);
    watchdog.unref();
  }

  detach(): void {
    this.detachHandlers();
  }
}

/** How long a stop may take: the longest single request's timeout, plus a few seconds. */
function shutdownGraceMs(timeouts: Timeouts): number {
  return Math.max(timeouts.s3RequestMs + timeouts.s3ConnectMs, timeouts.redisCommandMs, timeouts.pgConnectMs) + 5_000;
}

interface Built {
  executor: Executor;
  schemaVersion: number;
  s3: S3Config;
  redisUrl: string;
  tuning: Tuning;
  close(): Promise<void>;
}

/**
 * Loads S3/Redis/tuning configuration. With a named request, a configuration
 * failure is recorded durably against it (pre_claim:service_setup + block) so
 * `inspect` explains why the request is stranded.
 */
async function buildExecutor(
  log: Logger, services: Services, mode: ExecutorMode, executorId: string, timeouts: Timeouts,
  events: (e: ExecutorEvent) => void, requestId?: string,
): Promise<Built> {
  const schemaVersion = await gateSchemaVersion(log, services.engine, requestId);
  let s3Config: S3Config, redisConfig, tuning: Tuning;
  try {
    s3Config = loadS3Config();
    redisConfig = loadRedisConfig();
    tuning = loadTuning();
  } catch (error) {
    if (error instanceof ConfigError && requestId) {
      await recordPreclaimBlock(log, services.engine, requestId, 'pre_claim:service_setup', `service configuration: ${error.message}`);
    }
    throw error;
  }
  // Every S3 request carries the signal of the executor's effect in flight,
  // so shutdown, a lost lease or a step deadline cuts it off.
  let executor: Executor | undefined;
  const [{ createS3Store }, { createRedisCache }, { storeIdentity }] = await Promise.all([
    import('../s3.js'), import('../redis.js'), import('../store-identity.js'),
  ]);
  const store = createS3Store(s3Config, { signal: () => executor?.effectSignal });
  const cache = createRedisCache(redisConfig);
  // A database other than 0 may not exist on the server (its "databases"
  // setting): refuse it before claiming anything (exit 5; with `run ID` also
  // recorded), rather than let the steps run in database 0. A Redis that does
  // not answer is left to the steps' recorded retry path, as without the
  // check; every connection is checked again before its first command.
  if ((cache.client.options.db ?? 0) !== 0) {
    try {
      await cache.verifyDatabase();
    } catch (error) {
      if (error instanceof ConfigError) {
        cache.client.disconnect();
        store.client.destroy();
        if (requestId) await recordPreclaimBlock(log, services.engine, requestId, 'pre_claim:service_setup', `service configuration: ${error.message}`);
        throw error;
      }
    }
  }
  const taxonomy = await loadTaxonomy(services.engine);
  const progress = new Progress();
  const onBoundary = hooks.onBoundary;
  executor = new Executor({
    engine: services.executorEngine,
    heartbeatEngine: services.heartbeatEngine,
    store,
    cache,
    storeIdentity: storeIdentity(s3Config, cache.client),
    taxonomy,
    executorId,
    mode,
    chunkSize: tuning.chunkSize,
    leaseSeconds: tuning.leaseSeconds,
    heartbeatSeconds: tuning.heartbeatSeconds,
    stepTimeoutMs: timeouts.stepMs,
    // One SQL call's answer: PostgreSQL ends a slow statement at its
    // statement_timeout; an answer later than that plus a margin is not
    // coming (a stalled server or network). With no statement_timeout set
    // here, the step deadline bounds it.
    sqlDeadlineMs: answerBoundMs(timeouts.pgStatementMs) || timeouts.stepMs,
    log: (message) => log.info(message),
    events,
    progress: (label, done, total) => progress.update(label, done, total),
    ...(onBoundary === undefined ? {} : { onBoundary: (boundary: string) => onBoundary(boundary, executor!.shutdownSignal) }),
  });
  const close = async () => {
    progress.done();
    cache.client.disconnect();
    store.client.destroy();
  };
  return { executor, schemaVersion, s3: s3Config, redisUrl: redisConfig.url, tuning, close };
}

/**
 * Both pools, after one round trip: an unreachable, blackholed or missing
 * database is reported (naming it, exit 5) within the connect timeout.
 */
async function openServices(timeouts: Timeouts): Promise<Services> {
  const url = requireDatabaseUrl();
  const sql = connect(url, { max: 2, applicationName: 'deletions-executor', timeouts });
  const heartbeatSql = connect(url, { max: 1, applicationName: 'deletions-heartbeat', timeouts });
  const close = async () => {
    await Promise.all([sql.end({ timeout: 5 }), heartbeatSql.end({ timeout: 5 })]);
  };
  const bound = answerBoundMs(timeouts.pgStatementMs);
  try {
    await answeredWithin(checkConnection(sql, url), 'the connection check', bound);
  } catch (error) {
    await close();
    throw error;
  }
  const engine = new EngineClient(sql);
  return { sql, engine: boundedEngine(engine, bound), executorEngine: engine, heartbeatEngine: new EngineClient(heartbeatSql), close };
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
  if (inspection.state === 'runnable') {
    // The claim skipped the request although it reads as runnable: another
    // executor's claim held it at that moment (it skips locked requests) —
    // not "waiting for an executor".
    return {
      state: inspection.state,
      explanation: `${inspection.explanation} This run did not claim it: another executor's claim held the request at that moment.`,
      next_step: `deletions inspect ${requestId} (who holds it now), or deletions run ${requestId} again`,
    };
  }
  return { state: inspection.state, explanation: inspection.explanation, next_step: nextStep(inspection) };
}

interface LogArgs {
  'log-format'?: LogFormat;
}

function withLogFormat<T>(y: Argv<T>): Argv<T & LogArgs> {
  return y.option('log-format', {
    choices: LOG_FORMATS,
    describe: 'logs on stderr: json (one object per line) or text; default text on a terminal, json otherwise',
  }) as Argv<T & LogArgs>;
}

/** Logs one structured line per executor event (claims, stage steps, failures, stops). */
function logEvent(log: Logger, e: ExecutorEvent): void {
  switch (e.event) {
    case 'claim':
      log.info({ event: 'claim', request_id: e.requestId, stage: e.stage, lease_generation: e.leaseGeneration }, `claim ${e.requestId} at ${e.stage}`);
      break;
    case 'stage_done':
      log.info({ event: 'stage_done', request_id: e.requestId, stage: e.stage, ms: e.ms }, `${e.requestId} ${e.stage} done in ${e.ms} ms`);
      break;
    case 'completed':
      log.info({ event: 'completed', request_id: e.requestId }, `${e.requestId} completed`);
      break;
    case 'failure':
      log.warn({ event: 'failure', request_id: e.requestId, stage: e.stage, unit_key: e.unitKey, transient: e.transient, blocked: e.blocked, error: e.error },
        `${e.requestId} ${e.stage} failed${e.blocked ? ' (blocked)' : ' (retry scheduled)'}`);
      break;
    case 'stopped':
      log.info({ event: 'stopped', request_id: e.requestId, stage: e.stage }, `${e.requestId} released at ${e.stage}`);
      break;
    case 'lease_lost':
      log.warn({ event: 'lease_lost', request_id: e.requestId, stage: e.stage, error: e.error }, `${e.requestId} lease lost at ${e.stage}`);
      break;
    case 'heartbeat':
      log.debug({ event: 'heartbeat', request_id: e.requestId }, 'lease renewed');
      break;
  }
}

/** The start-up record: what this process will talk to, without secrets. */
function startRecord(mode: ExecutorMode, executorId: string, built: Built, timeouts: Timeouts, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    event: 'start',
    mode,
    executor_id: executorId,
    pid: process.pid,
    schema_version: built.schemaVersion,
    database: describeDatabase(requireDatabaseUrl()),
    s3: {
      endpoint: built.s3.endpoint, bucket: built.s3.bucket, region: built.s3.region, addressing_style: built.s3.addressingStyle,
      credentials: built.s3.credentials === undefined ? 'default chain' : 'static (BUZZ_S3_ACCESS_KEY)',
    },
    redis: redactUrl(built.redisUrl),
    chunk_size: built.tuning.chunkSize,
    lease_seconds: built.tuning.leaseSeconds,
    heartbeat_seconds: built.tuning.heartbeatSeconds,
    timeouts_ms: {
      pg_connect: timeouts.pgConnectMs, pg_statement: timeouts.pgStatementMs, pg_idle_in_transaction: timeouts.pgIdleInTransactionMs,
      s3_connect: timeouts.s3ConnectMs, s3_request: timeouts.s3RequestMs, redis_connect: timeouts.redisConnectMs,
      redis_command: timeouts.redisCommandMs, step: timeouts.stepMs,
    },
    ...extra,
  };
}

export const runCommand: CommandModule<object, { id: string; 'executor-id'?: string } & LogArgs> = {
  command: 'run <id>',
  describe: 'Claim one request and drive it to retention_pending (or to a recorded failure)',
  builder: (y: Argv) =>
    withLogFormat(
      y
        .positional('id', { type: 'string', demandOption: true, describe: 'deletion request id' })
        .option('executor-id', { type: 'string', describe: 'executor identity (default host:pid:random)' }) as Argv<{ id: string; 'executor-id'?: string }>,
    ),
  handler: (args) =>
    run(async (out) => {
      const id = requireUuid(args.id);
      const executorId = optionalExecutorId(args['executor-id']) ?? defaultExecutorId();
      const log = createLogger(args['log-format'] ?? defaultLogFormat(), { command: 'run' });
      const timeouts = loadTimeouts();
      const stopper = new Stopper(() => log, shutdownGraceMs(timeouts));
      try {
        const services = await openServices(timeouts);
        try {
          const built = await buildExecutor(log, services, 'run', executorId, timeouts, (e) => logEvent(log, e), id);
          stopper.attach(built.executor);
          log.info(startRecord('run', executorId, built, timeouts, { request_id: id }), `run ${id} as ${executorId}`);
          try {
            if (stopper.signal !== undefined) {
              out.result({ outcome: 'interrupted', request_id: id, signal: stopper.signal }, `${id}: not started (${stopper.signal})`);
              return;
            }
            const outcome = await built.executor.runOnce(id);
            if (outcome.kind === 'nothing_claimable') {
              const why = await explainNotRunnable(services.engine, id);
              out.result({ outcome: 'not_runnable', request_id: id, ...why }, `not runnable (${why.state}): ${why.explanation}${why.next_step ? `\nnext: ${why.next_step}` : ''}`);
              process.exitCode = EXIT.notRunnable;
              return;
            }
            out.result(outcome, humanOutcome(outcome));
            process.exitCode = exitFor(outcome);
          } finally {
            await built.close();
          }
        } finally {
          await services.close();
        }
      } finally {
        stopper.detach();
        // Interrupted: 130/143 whatever else happened (never 0).
        if (stopper.exitCode !== undefined) process.exitCode = stopper.exitCode;
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

interface LoopArgs extends LogArgs {
  'executor-id'?: string;
  'idle-min-seconds': number;
  'idle-max-seconds': number;
  'idle-log-seconds': number;
  'metrics-port'?: number;
  'metrics-host': string;
}

/** What a drain or worker did in its life: counts (a drain also lists its outcomes). */
export interface LoopSummary {
  executor_id: string;
  mode: 'drain' | 'worker';
  claimed: number;
  completed: number;
  failed: number;
  blocked: number;
  stopped: number;
  lease_lost: number;
  interrupted_by: string | null;
  outcomes?: RunOutcome[];
}

export function summarise(executorId: string, mode: 'drain' | 'worker', outcomes: readonly RunOutcome[], signal: string | undefined): LoopSummary {
  const count = (kind: RunOutcome['kind']) => outcomes.filter((o) => o.kind === kind).length;
  return {
    executor_id: executorId,
    mode,
    claimed: outcomes.length,
    completed: count('completed'),
    failed: count('failure_recorded'),
    blocked: outcomes.filter((o) => o.kind === 'failure_recorded' && o.blocked).length,
    stopped: count('stopped'),
    lease_lost: count('lease_lost'),
    interrupted_by: signal ?? null,
    // A drain's life is bounded by the queue; a worker's is not.
    ...(mode === 'drain' ? { outcomes: [...outcomes] } : {}),
  };
}

/**
 * A drain's (or worker's) exit code, as `run` would give for its outcomes: 1
 * when a failure was recorded against any request, else 3 when a claim was
 * lost to the lease (another executor holds the request now, as `run` exits
 * 3 for lease_lost), else 0. A signal's 130/143 overrides it.
 */
export function loopExitCode(summary: Pick<LoopSummary, 'failed' | 'lease_lost'>): number {
  if (summary.failed > 0) return EXIT.failureRecorded;
  if (summary.lease_lost > 0) return EXIT.notRunnable;
  return EXIT.ok;
}

function loopCommand(mode: 'drain' | 'worker', describe: string): CommandModule<object, LoopArgs> {
  return {
    command: mode,
    describe,
    builder: (y: Argv) => {
      const common = withLogFormat(y.option('executor-id', { type: 'string', describe: 'executor identity (default host:pid:random)' }))
        .option('metrics-port', { type: 'number', describe: 'serve Prometheus metrics on http://HOST:PORT/metrics (0: a free port, logged)' })
        .option('metrics-host', { type: 'string', default: '127.0.0.1', describe: 'address the metrics endpoint listens on (0.0.0.0 for every interface)' });
      if (mode === 'drain') return common as unknown as Argv<LoopArgs>;
      // An idle worker polls after idle-min seconds, doubling up to idle-max.
      return common
        .option('idle-min-seconds', { type: 'number', default: 1, describe: 'first idle poll interval' })
        .option('idle-max-seconds', { type: 'number', default: 30, describe: 'longest idle poll interval' })
        .option('idle-log-seconds', { type: 'number', default: 60, describe: 'log an idle heartbeat at most this often while there is no work' }) as unknown as Argv<LoopArgs>;
    },
    handler: (args) =>
      run(async (out) => {
        const idleMin = args['idle-min-seconds'] ?? 1;
        const idleMax = args['idle-max-seconds'] ?? 30;
        const idleLog = args['idle-log-seconds'] ?? 60;
        if (!(idleMin > 0 && idleMax >= idleMin && idleMax <= 86_400)) {
          throw new CliError('--idle-min-seconds must be > 0 and ≤ --idle-max-seconds ≤ 86400', EXIT.usage);
        }
        if (!(idleLog > 0 && idleLog <= 86_400)) throw new CliError('--idle-log-seconds must be > 0 and ≤ 86400', EXIT.usage);
        const metricsPort = args['metrics-port'];
        if (metricsPort !== undefined && !(Number.isSafeInteger(metricsPort) && metricsPort >= 0 && metricsPort <= 65_535)) {
          throw new CliError('--metrics-port must be an integer between 0 and 65535', EXIT.usage);
        }
        const executorId = optionalExecutorId(args['executor-id']) ?? defaultExecutorId();
        const log = createLogger(args['log-format'] ?? defaultLogFormat(), { command: mode, executor_id: executorId });
        const timeouts = loadTimeouts();
        const stopper = new Stopper(() => log, shutdownGraceMs(timeouts));
        try {
          const services = await openServices(timeouts);
          const { ExecutorMetrics } = await import('../metrics.js'); // prom-client: loaded by drain and worker only
          const metrics = new ExecutorMetrics(() => services.engine.queueStatus(), { executor_id: executorId, mode });
          let server: { port: number; close(): Promise<void> } | undefined;
          try {
            const built = await buildExecutor(log, services, mode, executorId, timeouts, (e) => {
              metrics.observe(e);
              logEvent(log, e);
            }, undefined);
            stopper.attach(built.executor);
            if (metricsPort !== undefined) {
              try {
                server = await metrics.serve(metricsPort, args['metrics-host']);
              } catch (error) {
                await built.close();
                throw new CliError(`cannot serve metrics on ${args['metrics-host']}:${metricsPort}: ${(error as Error).message}`, EXIT.config);
              }
            }
            log.info(startRecord(mode, executorId, built, timeouts, {
              idle_min_seconds: idleMin, idle_max_seconds: idleMax, idle_log_seconds: idleLog,
              metrics: server === undefined ? null : `http://${args['metrics-host']}:${server.port}/metrics`,
            }), `${mode} ${executorId} started`);
            metrics.beat();
            let lastIdleLog = 0;
            let lastWork = Date.now();
            try {
              const outcomes = await pollLoop(built.executor, {
                untilEmpty: mode === 'drain', idleMinMs: idleMin * 1000, idleMaxMs: idleMax * 1000, log: (m) => log.info(m),
                onIdle: () => {
                  metrics.beat();
                  const now = Date.now();
                  if (now - lastIdleLog >= idleLog * 1000) {
                    lastIdleLog = now;
                    log.info({ event: 'idle', idle_seconds: Math.round((now - lastWork) / 1000) }, 'idle: nothing claimable');
                  }
                },
              });
              lastWork = Date.now();
              await services.engine.executorStopped(executorId).catch(() => {});
              const summary = summarise(executorId, mode, outcomes, stopper.signal);
              log.info({ ...summary, outcomes: undefined, event: 'summary' }, `${mode} ${executorId} stopping`);
              out.result(summary,
                `${executorId}: ${summary.claimed} claimed, ${summary.completed} completed, ${summary.failed} failed (${summary.blocked} blocked)` +
                `${summary.stopped ? `, ${summary.stopped} released on shutdown` : ''}${summary.lease_lost ? `, ${summary.lease_lost} lease lost` : ''}`);
              process.exitCode = loopExitCode(summary);
            } finally {
              await built.close();
            }
          } finally {
            await server?.close();
            await services.close();
          }
        } finally {
          stopper.detach();
          if (stopper.exitCode !== undefined) process.exitCode = stopper.exitCode;
        }
      }),
  };
}

export const drainCommand = loopCommand('drain', 'Run every claimable request until none is left, then exit');
export const workerCommand = loopCommand('worker', 'Poll for claimable requests with backoff until SIGTERM/SIGINT (exit 143/130)');

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
      const s3Config = loadS3Config();
      const { createS3Store } = await import('../s3.js');
      const store = createS3Store(s3Config);
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
