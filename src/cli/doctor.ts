// deletions doctor: checks what a deletion needs before anyone relies on it.
// PostgreSQL (reachable, engine schema version = this driver's, engine roles,
// write-fence implementation, the engine's event triggers, catalog = registry),
// S3 (configured, endpoint reachable, credentials accepted, bucket exists,
// versioning enabled, versions listable) and Redis (configured, reachable,
// PING, the selected database). S3 requests use the executor's client and
// timeouts (DELETIONS_S3_*_TIMEOUT_SECONDS), one attempt each, and listings
// are validated as the executor's are. Each check passes, warns or fails; the
// command exits 0 when nothing failed (warnings allowed) and 5 otherwise.
// Read-only: it writes nothing to any store.
import type { Argv, CommandModule } from 'yargs';
import type { S3Client } from '@aws-sdk/client-s3';
import type postgres from 'postgres';
import { DEFAULT_TIMEOUTS, loadDatabaseUrl, loadRedisConfig, loadS3Config, loadTimeouts, type S3Config } from '../config.js';
import type { S3Store } from '../s3.js';
import { connect } from '../db.js';
import { EngineClient, SCHEMA_VERSION } from '../engine.js';
import { OWNED_PREFIX_ROOTS } from '../taxonomy.js';
import { answerBoundMs } from '../pg-stall.js';
import { boundedEngine, run } from './common.js';
import { EXIT } from './exit-codes.js';
import { table } from './format.js';
import { connectRedisOnce } from './plan.js';

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

export interface Check {
  service: 'postgres' | 's3' | 'redis';
  check: string;
  status: CheckStatus;
  detail: string;
}

const TIMEOUT_MS = 10_000;

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const name = error.name && error.name !== 'Error' ? error.name : undefined;
    const tag = typeof code === 'string' ? code : name;
    return `${tag ? `${tag}: ` : ''}${error.message || String(error)}`.trim();
  }
  return String(error);
}

/** Runs body, turning a throw into a failed check; returns whether it passed or warned. */
class Checks {
  readonly list: Check[] = [];

  add(service: Check['service'], check: string, status: CheckStatus, detail: string): boolean {
    this.list.push({ service, check, status, detail });
    return status === 'pass' || status === 'warn';
  }

  async try(service: Check['service'], check: string, body: () => Promise<{ status?: CheckStatus; detail: string }>): Promise<boolean> {
    try {
      const r = await body();
      return this.add(service, check, r.status ?? 'pass', r.detail);
    } catch (error) {
      return this.add(service, check, 'fail', describe(error));
    }
  }

  skip(service: Check['service'], checks: string[], why: string): void {
    for (const c of checks) this.add(service, c, 'skip', why);
  }
}

async function checkPostgres(checks: Checks): Promise<void> {
  const rest = ['schema_version', 'roles', 'write_fence', 'event_triggers', 'catalog'];
  let url: string;
  try {
    url = loadDatabaseUrl();
  } catch (error) {
    checks.add('postgres', 'configured', 'fail', describe(error));
    return checks.skip('postgres', ['reachable', ...rest], 'DATABASE_URL is not usable');
  }
  checks.add('postgres', 'configured', 'pass', 'DATABASE_URL is set');
  const timeouts = loadTimeouts();
  const sql: postgres.Sql = connect(url, { max: 1, applicationName: 'deletions-doctor', timeouts });
  // Each check's call answered within statement_timeout + 10 s: a database
  // that froze after the connection was up fails the check, not the doctor.
  const engine = boundedEngine(new EngineClient(sql), answerBoundMs(timeouts.pgStatementMs));
  try {
    const reachable = await checks.try('postgres', 'reachable', async () => {
      const found = await withTimeout(engine.schemaVersion(), 'connecting to PostgreSQL');
      return { detail: found === null ? 'connected; no engine schema version (run `deletions migrate`)' : 'connected' };
    });
    if (!reachable) return checks.skip('postgres', rest, 'PostgreSQL is not reachable');
    const versionOk = await checks.try('postgres', 'schema_version', async () => {
      const found = await engine.schemaVersion();
      if (found === SCHEMA_VERSION) return { detail: `engine schema ${found} = this driver's ${SCHEMA_VERSION}` };
      throw new Error(
        found === null || found < SCHEMA_VERSION
          ? `engine schema ${found ?? 'absent'}, this driver needs ${SCHEMA_VERSION}: run \`deletions migrate\``
          : `engine schema ${found} is newer than this driver's ${SCHEMA_VERSION}: upgrade the driver`,
      );
    });
    await checks.try('postgres', 'roles', async () => {
      const missing = await engine.missingEngineRoles();
      if (missing.length > 0) throw new Error(`missing roles: ${missing.join(', ')} (run \`deletions migrate\`)`);
      return { detail: 'community_deletion_owner, _operator, _executor, _app exist' };
    });
    if (!versionOk) return checks.skip('postgres', ['write_fence', 'event_triggers', 'catalog'], 'the engine schema version does not match');
    await checks.try('postgres', 'write_fence', async () => {
      const impl = await engine.writeFenceImplementation();
      if (impl === 'native') return { detail: 'native' };
      return {
        status: 'warn',
        detail: `${impl}: the same rules, slower single-row writes (install db/native: make -C db/native install, then select community_deletion.install_write_fence())`,
      };
    });
    await checks.try('postgres', 'event_triggers', async () => {
      const triggers = await engine.engineEventTriggers();
      const bad = triggers.filter((t) => t.enabled !== true).map((t) => `${t.name} (${t.enabled === null ? 'missing' : 'disabled'})`);
      if (bad.length > 0) {
        // A managed installation (no superuser) has none by design: the DDL lock is explicit (docs/managed.md).
        const report = await engine.installationReport();
        if (bad.length === triggers.length && report.ddl_lock === 'explicit') {
          return {
            status: 'warn',
            detail: 'none (managed installation): every migration must call select community_deletion.ddl_lock() first in its transaction (docs/managed.md)',
          };
        }
        throw new Error(`schema-destruction lock / DDL guard event triggers not in force: ${bad.join(', ')}`);
      }
      return { detail: `${triggers.length} present and enabled` };
    });
    await checks.try('postgres', 'catalog', async () => {
      await engine.validateCatalog();
      return { detail: 'every table holding communities is registered, fenced and indexed' };
    });
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The AWS SDK's S3 module: loaded only by a doctor run that gets as far as S3. */
type S3Sdk = typeof import('@aws-sdk/client-s3');

/**
 * The executor's client (src/s3.ts createS3Client: connect, request and
 * socket timeouts from DELETIONS_S3_CONNECT_TIMEOUT_SECONDS and
 * DELETIONS_S3_REQUEST_TIMEOUT_SECONDS, a request not answered in time
 * fails), one attempt per check. Each request is also aborted once connect +
 * request timeout + 5 s have passed, so an endpoint that accepts connections
 * and never answers fails its check instead of hanging the doctor.
 */
async function doctorS3(config: S3Config): Promise<{ client: S3Client; store: S3Store; send: SendOptions }> {
  const { createS3Client, S3Store } = await import('../s3.js');
  const client = createS3Client(config, { maxAttempts: 1 });
  const boundMs = (config.connectTimeoutMs ?? DEFAULT_TIMEOUTS.s3ConnectMs) + (config.requestTimeoutMs ?? DEFAULT_TIMEOUTS.s3RequestMs) + 5_000;
  const send = () => ({ abortSignal: AbortSignal.timeout(boundMs) });
  return { client, store: new S3Store(client, config.bucket, { signal: () => send().abortSignal }), send };
}

type SendOptions = () => { abortSignal: AbortSignal };

function httpStatus(error: unknown): number | undefined {
  const s = (error as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata?.httpStatusCode;
  return typeof s === 'number' ? s : undefined;
}

async function checkS3(checks: Checks): Promise<void> {
  const rest = ['bucket', 'versioning', 'list_versions'];
  let config: S3Config;
  try {
    config = loadS3Config();
  } catch (error) {
    checks.add('s3', 'configured', 'fail', describe(error));
    return checks.skip('s3', rest, 'BUZZ_S3_* is not usable');
  }
  checks.add('s3', 'configured', 'pass',
    `${config.endpoint} bucket ${config.bucket} (${config.addressingStyle}-style, ${config.credentials ? 'static credentials' : 'default credential chain'})`);
  const sdk: S3Sdk = await import('@aws-sdk/client-s3');
  const { client, store, send } = await doctorS3(config);
  try {
    const bucketOk = await checks.try('s3', 'bucket', async () => {
      try {
        await client.send(new sdk.HeadBucketCommand({ Bucket: config.bucket }), send());
      } catch (error) {
        const status = httpStatus(error);
        if (status === 404) throw new Error(`bucket ${config.bucket} does not exist at ${config.endpoint} (create it versioned: see the README)`);
        if (status === 403 || status === 401) throw new Error(`the credentials were refused for bucket ${config.bucket} (HTTP ${status})`);
        if (status === undefined) throw new Error(`${config.endpoint} is not reachable: ${describe(error)}`);
        throw new Error(`HeadBucket ${config.bucket} failed (HTTP ${status}): ${describe(error)}`);
      }
      return { detail: `${config.bucket} exists and the credentials are accepted` };
    });
    if (!bucketOk) return checks.skip('s3', ['versioning', 'list_versions'], 'the bucket is not usable');
    await checks.try('s3', 'versioning', async () => {
      const v = await client.send(new sdk.GetBucketVersioningCommand({ Bucket: config.bucket }), send());
      if (v.Status === 'Enabled') return { detail: 'Enabled' };
      return {
        status: 'warn',
        detail: `${v.Status ?? 'never enabled'}: the README requires versioning (without it an overwritten or deleted object leaves no version to prove or delete); ` +
          `aws s3api put-bucket-versioning --bucket ${config.bucket} --versioning-configuration Status=Enabled`,
      };
    });
    await checks.try('s3', 'list_versions', async () => {
      // Validated like the executor's listings: a 200 that is not a
      // ListVersionsResult of this bucket and prefix fails the check.
      for (const prefix of OWNED_PREFIX_ROOTS) await store.probeListing(prefix);
      return { detail: `ListObjectVersions allowed under ${OWNED_PREFIX_ROOTS.join(', ')}` };
    });
  } finally {
    client.destroy();
  }
}

async function checkRedis(checks: Checks): Promise<void> {
  let url: string;
  try {
    url = loadRedisConfig().url;
  } catch (error) {
    checks.add('redis', 'configured', 'fail', describe(error));
    return checks.skip('redis', ['reachable', 'ping', 'db'], 'REDIS_URL is not usable');
  }
  const u = new URL(url);
  const where = `${u.hostname}:${u.port || '6379'}`;
  checks.add('redis', 'configured', 'pass', `REDIS_URL ${u.protocol}//${where}${u.pathname}`);
  let redis;
  try {
    redis = await connectRedisOnce(url, TIMEOUT_MS, { verify: false });
    checks.add('redis', 'reachable', 'pass', `connected to ${where}`);
  } catch (error) {
    checks.add('redis', 'reachable', 'fail', `${where}: ${describe(error)}`);
    return checks.skip('redis', ['ping', 'db'], 'Redis is not reachable');
  }
  try {
    await checks.try('redis', 'ping', async () => {
      const pong = await redis.ping();
      if (pong !== 'PONG') throw new Error(`PING answered ${JSON.stringify(pong)}`);
      return { detail: 'PONG' };
    });
    await checks.try('redis', 'db', async () => {
      // The database the server actually put this connection in, not the
      // one the URL asks for: ioredis stays in 0 when SELECT is refused.
      const { verifyRedisDatabase } = await import('../redis.js');
      const db = await verifyRedisDatabase(redis);
      const keys = await redis.dbsize();
      return { detail: `database ${db} selected (${keys} keys)` };
    });
  } finally {
    redis.disconnect();
  }
}

function withTimeout<T>(promise: Promise<T>, what: string, ms = TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms / 1000} s ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function runDoctor(): Promise<{ ok: boolean; checks: Check[] }> {
  const checks = new Checks();
  // Independent services, checked one after another so the table reads in order.
  await checkPostgres(checks);
  await checkS3(checks);
  await checkRedis(checks);
  return { ok: !checks.list.some((c) => c.status === 'fail'), checks: checks.list };
}

export const doctorCommand: CommandModule = {
  command: 'doctor',
  describe: 'Check PostgreSQL, S3 and Redis: reachable, configured, engine schema, versioned bucket (exit 0 ok or warnings, 5 a check failed)',
  builder: (y: Argv) => y,
  handler: () =>
    run(async (out) => {
      const result = await runDoctor();
      const failed = result.checks.filter((c) => c.status === 'fail').length;
      const warned = result.checks.filter((c) => c.status === 'warn').length;
      out.result(result, `${table(result.checks, ['service', 'check', 'status', 'detail'])}\n\n${
        failed > 0 ? `${failed} check(s) failed` : warned > 0 ? `all required checks pass, ${warned} warning(s)` : 'all checks pass'}`);
      if (failed > 0) process.exitCode = EXIT.config;
    }),
};

