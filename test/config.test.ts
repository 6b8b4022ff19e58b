import t from 'tap';
import { ConfigError, DEFAULT_TIMEOUTS, loadDatabaseUrl, loadTimeouts, loadRedisConfig, loadS3Config, loadTuning } from '../src/config.js';

const S3_BASE = { BUZZ_S3_ENDPOINT: 'http://127.0.0.1:9000', BUZZ_S3_BUCKET: 'media' };

function variableOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.variable;
    throw error;
  }
  return undefined;
}

t.test('S3: required settings name the missing variable', async (t) => {
  t.equal(variableOf(() => loadS3Config({})), 'BUZZ_S3_ENDPOINT');
  t.equal(variableOf(() => loadS3Config({ BUZZ_S3_ENDPOINT: '  ', BUZZ_S3_BUCKET: 'b' })), 'BUZZ_S3_ENDPOINT', 'blank is missing');
  t.equal(variableOf(() => loadS3Config({ BUZZ_S3_ENDPOINT: 'http://x' })), 'BUZZ_S3_BUCKET');
  t.equal(variableOf(() => loadS3Config({ ...S3_BASE, BUZZ_S3_ENDPOINT: 'not a url' })), 'BUZZ_S3_ENDPOINT');
  t.equal(variableOf(() => loadS3Config({ ...S3_BASE, BUZZ_S3_ENDPOINT: 'ftp://host' })), 'BUZZ_S3_ENDPOINT');
});

t.test('S3: defaults, trimming and region fallback', async (t) => {
  t.same(loadS3Config({ ...S3_BASE, BUZZ_S3_BUCKET: ' media ' }), {
    endpoint: 'http://127.0.0.1:9000',
    bucket: 'media',
    region: 'us-east-1',
    addressingStyle: 'path',
    connectTimeoutMs: 10_000,
    requestTimeoutMs: 60_000,
  });
  t.equal(loadS3Config({ ...S3_BASE, AWS_REGION: 'eu-west-1' }).region, 'eu-west-1');
  t.equal(loadS3Config({ ...S3_BASE, AWS_REGION: 'eu-west-1', BUZZ_S3_REGION: 'ap-south-1' }).region, 'ap-south-1');
  t.equal(loadS3Config({ ...S3_BASE, AWS_REGION: 'eu-west-1', BUZZ_S3_REGION: '  ' }).region, 'eu-west-1', 'blank falls through');
  t.equal(loadS3Config({ ...S3_BASE, AWS_REGION: ' ' }).region, 'us-east-1');
  t.equal(loadS3Config({ ...S3_BASE, BUZZ_S3_ADDRESSING_STYLE: 'virtual' }).addressingStyle, 'virtual');
  t.equal(loadS3Config({ ...S3_BASE, BUZZ_S3_ADDRESSING_STYLE: ' path ' }).addressingStyle, 'path');
  for (const style of ['Path', 'vhost', 'auto']) {
    t.equal(variableOf(() => loadS3Config({ ...S3_BASE, BUZZ_S3_ADDRESSING_STYLE: style })), 'BUZZ_S3_ADDRESSING_STYLE', style);
  }
});

t.test('S3: static keys or the default credential chain', async (t) => {
  t.same(loadS3Config({ ...S3_BASE, BUZZ_S3_ACCESS_KEY: ' key ', BUZZ_S3_SECRET_KEY: ' secret ' }).credentials, {
    accessKeyId: 'key',
    secretAccessKey: 'secret',
  });
  t.notOk('credentials' in loadS3Config(S3_BASE), 'unset pair: default chain');
  t.notOk('credentials' in loadS3Config({ ...S3_BASE, BUZZ_S3_ACCESS_KEY: '', BUZZ_S3_SECRET_KEY: '   ' }), 'blank pair: default chain');
  t.equal(variableOf(() => loadS3Config({ ...S3_BASE, BUZZ_S3_ACCESS_KEY: 'key' })), 'BUZZ_S3_SECRET_KEY', 'half pair is an error');
  t.equal(variableOf(() => loadS3Config({ ...S3_BASE, BUZZ_S3_SECRET_KEY: 'secret', BUZZ_S3_ACCESS_KEY: ' ' })), 'BUZZ_S3_ACCESS_KEY');
});

t.test('database and redis URLs', async (t) => {
  t.equal(loadDatabaseUrl({ DATABASE_URL: ' postgres://localhost/test ' }), 'postgres://localhost/test');
  t.equal(variableOf(() => loadDatabaseUrl({})), 'DATABASE_URL');
  t.equal(variableOf(() => loadDatabaseUrl({ DATABASE_URL: 'mysql://x/y' })), 'DATABASE_URL');
  t.same(loadRedisConfig({ REDIS_URL: 'redis://127.0.0.1:6379/2' }), {
    url: 'redis://127.0.0.1:6379/2', connectTimeoutMs: 10_000, commandTimeoutMs: 30_000,
  });
  t.equal(variableOf(() => loadRedisConfig({ REDIS_URL: '' })), 'REDIS_URL');
  t.equal(variableOf(() => loadRedisConfig({ REDIS_URL: 'http://x' })), 'REDIS_URL');
  // The default argument really is process.env.
  const saved = process.env.REDIS_URL;
  process.env.REDIS_URL = 'rediss://cache.example:6380';
  try {
    t.equal(loadRedisConfig().url, 'rediss://cache.example:6380');
  } finally {
    if (saved === undefined) delete process.env.REDIS_URL;
    else process.env.REDIS_URL = saved;
  }
});

t.test('REDIS_URL names a server and a database only: query parameters and a non-numeric path are refused', async (t) => {
  // ioredis turns every query parameter into a client option: keyPrefix
  // would make the purge unlink other key names, db another database, with
  // the recorded store identity unchanged.
  for (const [url, named] of [
    ['redis://127.0.0.1:6379/0?keyPrefix=zz:', /"keyPrefix"/],
    ['redis://127.0.0.1:6379?db=3', /"db"/],
    ['redis://127.0.0.1:6379/0?db=3&keyPrefix=x', /"db", "keyPrefix"/],
    ['rediss://cache.example:6380/1?connectionName=x', /"connectionName"/],
  ] as const) {
    let error: unknown;
    try {
      loadRedisConfig({ REDIS_URL: url });
    } catch (e) {
      error = e;
    }
    t.ok(error instanceof ConfigError, `${url}: refused`);
    t.equal((error as ConfigError).variable, 'REDIS_URL');
    t.match((error as Error).message, named, `${url}: names the parameter`);
    t.match((error as Error).message, /query parameters/);
  }
  for (const path of ['/abc', '/1.5', '/-1', '/01', '/2/3', '/1e3']) {
    t.equal(variableOf(() => loadRedisConfig({ REDIS_URL: `redis://127.0.0.1:6379${path}` })), 'REDIS_URL', `path ${path} refused`);
  }
  t.equal(variableOf(() => loadRedisConfig({ REDIS_URL: 'redis://127.0.0.1:6379/0#x' })), 'REDIS_URL', 'a fragment refused');
  for (const url of ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379/', 'redis://127.0.0.1:6379/0', 'redis://:secret@127.0.0.1:6379/15', 'rediss://cache.example:6380/2']) {
    t.equal(loadRedisConfig({ REDIS_URL: url }).url, url, `${url} accepted`);
  }
});

t.test('tuning defaults and bounds', async (t) => {
  t.same(loadTuning({}), { chunkSize: 10_000, sweepCap: 1_000_000, leaseSeconds: 60, heartbeatSeconds: 10 });
  t.same(
    loadTuning({ DELETIONS_CHUNK_SIZE: '1', DELETIONS_SWEEP_CAP: '5', DELETIONS_LEASE_SECONDS: '30', DELETIONS_HEARTBEAT_SECONDS: ' 5 ' }),
    { chunkSize: 1, sweepCap: 5, leaseSeconds: 30, heartbeatSeconds: 5 },
  );
  t.equal(loadTuning({ DELETIONS_CHUNK_SIZE: '10000' }).chunkSize, 10_000);
  t.equal(loadTuning({ DELETIONS_LEASE_SECONDS: '3600' }).leaseSeconds, 3600, 'the longest lease claim grants');
  t.throws(() => loadTuning({ DELETIONS_LEASE_SECONDS: '7200' }), { name: 'ConfigError', message: /DELETIONS_LEASE_SECONDS must be an integer between 1 and 3600, got "7200"/ });
  const invalid: Array<[Record<string, string>, string]> = [
    [{ DELETIONS_CHUNK_SIZE: '0' }, 'DELETIONS_CHUNK_SIZE'],
    [{ DELETIONS_CHUNK_SIZE: '10001' }, 'DELETIONS_CHUNK_SIZE'],
    [{ DELETIONS_CHUNK_SIZE: '1e3' }, 'DELETIONS_CHUNK_SIZE'],
    [{ DELETIONS_CHUNK_SIZE: '100abc' }, 'DELETIONS_CHUNK_SIZE'],
    [{ DELETIONS_CHUNK_SIZE: '-5' }, 'DELETIONS_CHUNK_SIZE'],
    [{ DELETIONS_SWEEP_CAP: '0' }, 'DELETIONS_SWEEP_CAP'],
    [{ DELETIONS_SWEEP_CAP: '1.5' }, 'DELETIONS_SWEEP_CAP'],
    [{ DELETIONS_LEASE_SECONDS: 'sixty' }, 'DELETIONS_LEASE_SECONDS'],
    // SQL's claim grants at most 3600 s (DL1I1 beyond, an exit 2 naming nothing).
    [{ DELETIONS_LEASE_SECONDS: '3601' }, 'DELETIONS_LEASE_SECONDS'],
    [{ DELETIONS_LEASE_SECONDS: '7200' }, 'DELETIONS_LEASE_SECONDS'],
    [{ DELETIONS_LEASE_SECONDS: '0' }, 'DELETIONS_LEASE_SECONDS'],
    [{ DELETIONS_HEARTBEAT_SECONDS: '0' }, 'DELETIONS_HEARTBEAT_SECONDS'],
    [{ DELETIONS_HEARTBEAT_SECONDS: '60' }, 'DELETIONS_HEARTBEAT_SECONDS'],
    [{ DELETIONS_LEASE_SECONDS: '5' }, 'DELETIONS_HEARTBEAT_SECONDS'],
  ];
  for (const [env, variable] of invalid) {
    t.equal(variableOf(() => loadTuning(env)), variable, JSON.stringify(env));
  }
});

t.test('ConfigError message names the variable', async (t) => {
  t.throws(() => loadS3Config({ BUZZ_S3_ENDPOINT: 'http://x' }), { name: 'ConfigError', message: /BUZZ_S3_BUCKET/ });
});

t.test('timeouts: defaults, seconds from the environment, bounds', async (t) => {
  t.same(loadTimeouts({}), DEFAULT_TIMEOUTS);
  const custom = loadTimeouts({
    DELETIONS_PG_CONNECT_TIMEOUT_SECONDS: '2', DELETIONS_PG_STATEMENT_TIMEOUT_SECONDS: '0', DELETIONS_PG_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS: '7',
    DELETIONS_S3_CONNECT_TIMEOUT_SECONDS: '3', DELETIONS_S3_REQUEST_TIMEOUT_SECONDS: '4',
    DELETIONS_REDIS_CONNECT_TIMEOUT_SECONDS: '5', DELETIONS_REDIS_COMMAND_TIMEOUT_SECONDS: '6', DELETIONS_STEP_TIMEOUT_SECONDS: '8',
  });
  t.same(custom, {
    pgConnectMs: 2000, pgStatementMs: 0, pgIdleInTransactionMs: 7000, s3ConnectMs: 3000, s3RequestMs: 4000,
    redisConnectMs: 5000, redisCommandMs: 6000, stepMs: 8000,
  });
  t.equal(loadS3Config({ ...S3_BASE, DELETIONS_S3_REQUEST_TIMEOUT_SECONDS: '4' }).requestTimeoutMs, 4000);
  t.equal(loadRedisConfig({ REDIS_URL: 'redis://x', DELETIONS_REDIS_COMMAND_TIMEOUT_SECONDS: '6' }).commandTimeoutMs, 6000);
  for (const name of ['DELETIONS_PG_CONNECT_TIMEOUT_SECONDS', 'DELETIONS_S3_CONNECT_TIMEOUT_SECONDS', 'DELETIONS_S3_REQUEST_TIMEOUT_SECONDS',
    'DELETIONS_REDIS_CONNECT_TIMEOUT_SECONDS', 'DELETIONS_REDIS_COMMAND_TIMEOUT_SECONDS', 'DELETIONS_STEP_TIMEOUT_SECONDS']) {
    t.equal(variableOf(() => loadTimeouts({ [name]: '0' })), name, `${name} cannot be disabled`);
    t.equal(variableOf(() => loadTimeouts({ [name]: '2s' })), name, `${name} takes whole seconds`);
  }
  t.equal(variableOf(() => loadTimeouts({ DELETIONS_PG_STATEMENT_TIMEOUT_SECONDS: '86401' })), 'DELETIONS_PG_STATEMENT_TIMEOUT_SECONDS');
});
