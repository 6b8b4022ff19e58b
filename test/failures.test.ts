// Failure classification per client, on the errors those clients really
// raise where a real instance can be produced (ioredis against a closed port,
// a disconnected client and the real Redis; the AWS SDK against moto and a
// closed port; postgres.js against a closed port, a silent server and the
// real PostgreSQL), and on every entry of the classification tables (iterated,
// so a new entry is covered automatically). Classification is by type and
// code, never by message text.
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { ListObjectVersionsCommand } from '@aws-sdk/client-s3';
import { Redis, ReplyError } from 'ioredis';
import postgres from 'postgres';
import redisErrors from 'redis-errors';
import t from 'tap';
import { SQLSTATES, sqlStateOf } from '../src/errors.js';
import { classifyFailure, isTransient, NETWORK_ERRNO, POSTGRES_JS_CODES } from '../src/failures.js';
import { ManifestError } from '../src/manifest.js';
import {
  CacheError,
  classifyRedisError,
  REDIS_TRANSIENT_REPLY_CODES,
  RedisCache,
  RedisNotEmptyError,
  RedisScopeError,
  RedisTimeoutError,
  createRedisClient,
} from '../src/redis.js';
import { checkConnection, connect, DatabaseUnreachableError } from '../src/db.js';
import { ConfigError } from '../src/config.js';
import { StepTimeoutError } from '../src/executor.js';
import {
  classifyS3Error,
  createS3Client,
  PermanentStorageError,
  S3_PERMANENT_CODES,
  S3_TRANSIENT_CODES,
  StorageNotEmptyError,
  StorageScopeError,
  TransientStorageError,
} from '../src/s3.js';
import { TaxonomyError } from '../src/taxonomy.js';
import { dbUrl } from './helpers/db.js';
import { createTestBucket } from './helpers/moto.js';

const { AbortError } = redisErrors;
const redisUrl = process.env.REDIS_URL?.trim() || 'redis://127.0.0.1:6379';

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
  return port;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

const errnoError = (code: string) => Object.assign(new Error(`socket ${code}`), { code, errno: -1, syscall: 'connect' });

// ---- ioredis ------------------------------------------------------------------

t.test('ioredis: Redis unreachable → MaxRetriesPerRequestError (an AbortError without errno) → transient', async (t) => {
  const port = await closedPort();
  const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, retryStrategy: () => 10 });
  client.on('error', () => undefined);
  t.teardown(() => client.disconnect());
  const error = await rejection(client.get('x'));
  t.ok(error instanceof AbortError, 'ioredis gives up with an AbortError (redis-errors)');
  t.equal((error as Error).name, 'MaxRetriesPerRequestError');
  t.equal((error as { code?: unknown }).code, undefined, 'no errno code on it');
  t.not(client.status, 'ready');
  const classified = classifyRedisError(error, client.status, 'GET');
  t.ok(classified instanceof CacheError);
  t.equal(classified.transient, true);
  t.equal(classified.code, 'aborted_while_reconnecting');
  t.equal(classified.cause, error, 'the client error is kept as the cause');
  // Classified by type, not by the client's status.
  t.equal(classifyRedisError(error, 'ready', 'GET').transient, true, 'an AbortError is transient even if the client says ready');
  t.equal(classifyFailure(classified).transient, true);
});

t.test('RedisCache with Redis unreachable: every method throws a transient CacheError (regression)', async (t) => {
  // The regression: with Redis unreachable ioredis raises errors without an
  // errno code, and the executor classified anything untyped as permanent.
  const port = await closedPort();
  const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, retryStrategy: () => 10, lazyConnect: true });
  client.on('error', () => undefined);
  t.teardown(() => client.disconnect());
  const cache = new RedisCache(client);
  const id = randomUUID();
  for (const [what, call] of [
    ['purgeNamespace', () => cache.purgeNamespace(id)],
    ['verifyAbsence', () => cache.verifyAbsence(id)],
    ['publishDisconnect', () => cache.publishDisconnect(id)],
  ] as const) {
    const error = await rejection(call());
    t.ok(error instanceof CacheError, `${what}: CacheError`);
    t.equal((error as CacheError).transient, true, `${what}: transient (${(error as CacheError).code})`);
    t.equal(classifyFailure(error).transient, true, `${what}: classifyFailure says transient`);
    t.equal(isTransient(error), true);
  }
});

t.test('ioredis: a client after disconnect() ("Connection is closed.") → transient', async (t) => {
  const client = new Redis(redisUrl);
  await client.ping();
  client.disconnect();
  const error = await rejection(client.get('x'));
  t.ok(error instanceof Error);
  t.notOk(error instanceof ReplyError);
  t.notOk(error instanceof AbortError);
  t.equal((error as { code?: unknown }).code, undefined, 'no errno code');
  t.equal(client.status, 'end');
  const classified = classifyRedisError(error, client.status, 'GET');
  t.equal(classified.transient, true);
  t.equal(classified.code, 'connection_unavailable');
  const viaCache = await rejection(new RedisCache(client).verifyAbsence(randomUUID()));
  t.ok(viaCache instanceof CacheError && viaCache.transient, 'through RedisCache too');
});

t.test('ioredis: real reply errors from the server are permanent (WRONGTYPE, ERR)', async (t) => {
  const client = new Redis(redisUrl);
  t.teardown(() => client.disconnect());
  const key = `failures-test:${randomUUID()}`;
  await client.hset(key, 'f', 'v');
  let error: unknown;
  try {
    error = await rejection(client.get(key));
  } finally {
    await client.unlink(key);
  }
  t.ok(error instanceof ReplyError, 'a real ReplyError');
  t.equal(client.status, 'ready');
  const wrongType = classifyRedisError(error, client.status, 'GET');
  t.same([wrongType.code, wrongType.transient], ['WRONGTYPE', false]);
  t.equal(classifyFailure(wrongType).transient, false);

  const unknown = await rejection(client.call('NO-SUCH-COMMAND-FOR-THIS-TEST'));
  t.ok(unknown instanceof ReplyError);
  const err = classifyRedisError(unknown, client.status, 'NO-SUCH-COMMAND');
  t.same([err.code, err.transient], ['ERR', false]);
});

t.test('ioredis: reply codes of a busy or switching server are transient, others permanent', async (t) => {
  t.ok(REDIS_TRANSIENT_REPLY_CODES.size > 0);
  for (const code of REDIS_TRANSIENT_REPLY_CODES) {
    const reply: unknown = new ReplyError(`${code} the server says so`);
    t.ok(reply instanceof ReplyError);
    const classified = classifyRedisError(reply, 'ready', 'SCAN');
    t.same([classified.code, classified.transient], [code, true], `${code} is transient`);
    t.equal(classifyFailure(classified).transient, true);
  }
  for (const code of ['ERR', 'WRONGTYPE', 'NOAUTH', 'WRONGPASS', 'NOPERM', 'NOSCRIPT', 'EXECABORT', 'MOVED']) {
    const classified = classifyRedisError(new ReplyError(`${code} the server says so`), 'ready', 'SCAN');
    t.same([classified.code, classified.transient], [code, false], `${code} is permanent`);
  }
  // Message text does not matter: a permanent code stays permanent whatever follows it.
  t.equal(classifyRedisError(new ReplyError('NOPERM LOADING BUSY TRYAGAIN'), 'ready', 'SCAN').transient, false);
});

t.test('ioredis: socket errnos are transient; an unrecognised error on a ready client is permanent', async (t) => {
  for (const code of NETWORK_ERRNO) {
    const classified = classifyRedisError(errnoError(code), 'ready', 'UNLINK');
    t.same([classified.code, classified.transient], [code, true], `${code} is transient`);
  }
  const other = classifyRedisError(new Error('something else'), 'ready', 'UNLINK');
  t.same([other.code, other.transient], ['unexpected', false]);
  const existing = new CacheError('LOADING', true, 'already classified');
  t.equal(classifyRedisError(existing, 'ready', 'SCAN'), existing, 'a CacheError passes through unchanged');
});

// ---- AWS SDK v3 ---------------------------------------------------------------

t.test('AWS SDK: real errors from moto and from a closed port', async (t) => {
  const { config } = await createTestBucket(t);
  const missing = createS3Client(config, { maxAttempts: 1 });
  t.teardown(() => missing.destroy());
  const noBucket = await rejection(missing.send(new ListObjectVersionsCommand({ Bucket: `${config.bucket}-missing` })));
  const classifiedMissing = classifyS3Error(noBucket, 'ListObjectVersions');
  t.ok(classifiedMissing instanceof PermanentStorageError, 'NoSuchBucket is permanent');
  t.same([classifiedMissing.code, classifiedMissing.httpStatus], ['NoSuchBucket', 404]);
  t.equal(classifyFailure(classifiedMissing).transient, false);

  const port = await closedPort();
  const unreachable = createS3Client({ ...config, endpoint: `http://127.0.0.1:${port}` }, { maxAttempts: 1 });
  t.teardown(() => unreachable.destroy());
  const refused = await rejection(unreachable.send(new ListObjectVersionsCommand({ Bucket: config.bucket })));
  t.equal((refused as { code?: unknown }).code, 'ECONNREFUSED', 'the SDK surfaces the socket errno');
  t.equal((refused as { $metadata?: { httpStatusCode?: unknown } }).$metadata?.httpStatusCode, undefined, 'no HTTP status');
  const classifiedRefused = classifyS3Error(refused, 'ListObjectVersions');
  t.ok(classifiedRefused instanceof TransientStorageError, 'connection refused is transient');
  t.equal(classifiedRefused.code, 'ECONNREFUSED');
  t.equal(classifyFailure(classifiedRefused).transient, true);
  t.equal(classifyFailure(refused).transient, true, 'the raw SDK error is transient too (errno)');
});

t.test('AWS SDK: every listed code decides, whatever the HTTP status', async (t) => {
  const sdkError = (code: string, status?: number) =>
    Object.assign(new Error(`message mentioning ${[...S3_PERMANENT_CODES][0]} and ${[...S3_TRANSIENT_CODES][0]}`), {
      name: code,
      $metadata: status === undefined ? {} : { httpStatusCode: status },
    });
  t.ok(S3_TRANSIENT_CODES.size > 0 && S3_PERMANENT_CODES.size > 0);
  for (const code of S3_TRANSIENT_CODES) {
    t.notOk(S3_PERMANENT_CODES.has(code), `${code} is in one table only`);
    for (const status of [undefined, 400, 403, 500, 503]) {
      const classified = classifyS3Error(sdkError(code, status), 'Test');
      t.ok(classified instanceof TransientStorageError && classified.code === code, `${code} (HTTP ${status ?? 'none'}) is transient`);
    }
    t.equal(classifyS3Error({ name: 'S3ServiceException', Code: code, $metadata: { httpStatusCode: 400 } }, 'Test').transient, true, `Code ${code} wins over name`);
  }
  for (const code of S3_PERMANENT_CODES) {
    for (const status of [undefined, 400, 403, 404, 500, 503]) {
      const classified = classifyS3Error(sdkError(code, status), 'Test');
      t.ok(classified instanceof PermanentStorageError && classified.code === code, `${code} (HTTP ${status ?? 'none'}) is permanent`);
    }
    t.equal(classifyS3Error({ name: 'S3ServiceException', Code: code, $metadata: { httpStatusCode: 503 } }, 'Test').transient, false, `Code ${code} wins over name`);
  }
});

t.test('AWS SDK: an unlisted code goes by HTTP status, then by errno; otherwise permanent', async (t) => {
  const unknown = (status?: number, errno?: string) => ({
    name: 'SomethingNew',
    ...(errno === undefined ? {} : { code: errno }),
    $metadata: status === undefined ? {} : { httpStatusCode: status },
  });
  for (const status of [500, 501, 502, 503, 504, 599, 408, 429]) {
    const classified = classifyS3Error(unknown(status), 'Test');
    t.ok(classified instanceof TransientStorageError, `HTTP ${status} is transient`);
    t.equal(classified.httpStatus, status);
  }
  for (const status of [400, 401, 403, 404, 405, 409, 412, 416]) {
    t.ok(classifyS3Error(unknown(status), 'Test') instanceof PermanentStorageError, `HTTP ${status} is permanent`);
  }
  for (const errno of NETWORK_ERRNO) {
    const classified = classifyS3Error(unknown(undefined, errno), 'Test');
    t.ok(classified instanceof TransientStorageError && classified.code === errno, `${errno} without a response is transient`);
  }
  t.ok(classifyS3Error(unknown(undefined, 'EACCES'), 'Test') instanceof PermanentStorageError, 'an unknown errno without status is permanent');
  t.ok(classifyS3Error(unknown(), 'Test') instanceof PermanentStorageError, 'no status, no errno: permanent (fail closed)');
  t.ok(classifyS3Error(new Error('ECONNRESET SlowDown 503'), 'Test') instanceof PermanentStorageError, 'message text is not read');
  t.ok(classifyS3Error('a string', 'Test') instanceof PermanentStorageError);
  const typed = new TransientStorageError('malformed_listing', 'already classified');
  t.equal(classifyS3Error(typed, 'Test'), typed, 'a StorageError passes through unchanged');
});

// ---- postgres.js ----------------------------------------------------------------

t.test('postgres.js: real connection failures are transient', async (t) => {
  const port = await closedPort();
  const refused = postgres({ host: '127.0.0.1', port, connect_timeout: 5, max: 1, onnotice: () => undefined });
  const refusedError = await rejection(refused`select 1`);
  await refused.end({ timeout: 0 });
  const refusedCode = (refusedError as { code?: unknown }).code;
  t.ok(refusedCode === 'ECONNREFUSED' || refusedCode === 'CONNECT_TIMEOUT', `closed port: ${String(refusedCode)}`);
  t.equal(classifyFailure(refusedError).transient, true, 'closed port is transient');

  // A server that accepts the connection and never answers: the client's own
  // connect_timeout (which always fires: the server never replies).
  const silent = net.createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const sockets = new Set<net.Socket>();
  silent.on('connection', (s) => sockets.add(s));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const silentSql = postgres({ host: '127.0.0.1', port: (silent.address() as net.AddressInfo).port, connect_timeout: 1, max: 1, onnotice: () => undefined });
  const timedOut = await rejection(silentSql`select 1`);
  await silentSql.end({ timeout: 0 });
  t.equal((timedOut as { code?: unknown }).code, 'CONNECT_TIMEOUT');
  t.same(classifyFailure(timedOut), { transient: true, source: 'postgres.js', code: 'CONNECT_TIMEOUT' });

  // A query on a pool that was ended.
  const ended = postgres(dbUrl('postgres'), { max: 1, onnotice: () => undefined });
  await ended`select 1`;
  await ended.end();
  const endedError = await rejection(ended`select 1`);
  t.equal((endedError as { code?: unknown }).code, 'CONNECTION_ENDED');
  t.equal(classifyFailure(endedError).transient, true);

  // The backend terminated under a running query.
  const doomed = postgres(dbUrl('postgres'), { max: 1, onnotice: () => undefined });
  const terminated = await rejection(doomed`select pg_terminate_backend(pg_backend_pid())`);
  await doomed.end({ timeout: 0 });
  const terminatedCode = String((terminated as { code?: unknown }).code);
  t.ok(['CONNECTION_CLOSED', '57P01'].includes(terminatedCode), `terminated backend: ${terminatedCode}`);
  t.equal(classifyFailure(terminated).transient, true, 'a terminated backend is transient');
});

t.test('postgres.js: real client-side programming errors are permanent', async (t) => {
  const sql = postgres(dbUrl('postgres'), { max: 1, onnotice: () => undefined });
  t.teardown(() => sql.end());
  const undefinedValue = await rejection(sql`select ${undefined as unknown as string}`);
  t.equal((undefinedValue as { code?: unknown }).code, 'UNDEFINED_VALUE');
  t.same(classifyFailure(undefinedValue), { transient: false, source: 'postgres.js', code: 'UNDEFINED_VALUE' });
});

t.test('postgres.js: every own error code is classified per the table', async (t) => {
  for (const [code, verdict] of Object.entries(POSTGRES_JS_CODES)) {
    const error = Object.assign(new Error(`write ${code} 127.0.0.1:5432`), { code, errno: code });
    t.same(classifyFailure(error), { transient: verdict === 'transient', source: 'postgres.js', code }, `${code} is ${verdict}`);
  }
});

t.test('PostgreSQL: real server errors, by SQLSTATE', async (t) => {
  const sql = postgres(dbUrl('postgres'), { max: 1, onnotice: () => undefined });
  t.teardown(() => sql.end());
  const raise = (code: string) => rejection(sql.unsafe(`do $$ begin raise exception 'raised for a test' using errcode = '${code}'; end $$`));
  // Every code of the project registry, raised by the real server.
  for (const { code, retry, name } of SQLSTATES) {
    const error = await raise(code);
    t.equal((error as { code?: unknown }).code, code, `the server raised ${code}`);
    t.same(classifyFailure(error), { transient: retry === 'retryable', source: 'sqlstate', code }, `${name} (${code}) is ${retry}`);
  }
  const standard: Array<[string, boolean, string]> = [
    ['40001', true, 'serialization_failure'],
    ['40P01', true, 'deadlock_detected'],
    ['55P03', true, 'lock_not_available'],
    ['57P01', true, 'admin_shutdown'],
    ['57P02', true, 'crash_shutdown'],
    ['57P03', true, 'cannot_connect_now'],
    ['08000', true, 'connection_exception (class 08)'],
    ['08006', true, 'connection_failure (class 08)'],
    ['08P01', true, 'protocol_violation (class 08)'],
    ['53300', true, 'too_many_connections (class 53)'],
    ['42601', false, 'syntax_error'],
    ['42501', false, 'insufficient_privilege'],
    ['23505', false, 'unique_violation'],
    ['22012', false, 'division_by_zero'],
    ['P0001', false, 'raise_exception'],
  ];
  for (const [code, transient, name] of standard) {
    const error = await raise(code);
    t.equal((error as { code?: unknown }).code, code);
    t.equal(classifyFailure(error).transient, transient, `${name} (${code}) is ${transient ? 'transient' : 'permanent'}`);
  }
  const syntax = await rejection(sql.unsafe('selec 1'));
  t.same(classifyFailure(syntax), { transient: false, source: 'sqlstate', code: '42601' }, 'a real syntax error');
  t.equal(classifyFailure({ code: 'DL4L2', message: 'serialization failure deadlock' }).transient, true, 'synthetic: by code');
  t.equal(classifyFailure({ code: 'DL3A1', message: 'retry later, connection reset' }).transient, false, 'message text ignored');
});

// ---- socket errnos and typed errors ---------------------------------------------

t.test('every NETWORK_ERRNO code is transient in classifyFailure', async (t) => {
  for (const code of NETWORK_ERRNO) {
    // EPIPE is also five capitals: it must not pass for an (unknown, permanent) SQLSTATE.
    t.same(classifyFailure(errnoError(code)), { transient: true, source: 'errno', code }, `${code} is transient`);
  }
  t.same(classifyFailure(errnoError('EACCES')), { transient: false, source: 'unknown', code: 'EACCES' }, 'another errno is permanent');
  t.same(classifyFailure(new Error('ECONNRESET')), { transient: false, source: 'unknown', code: 'none' }, 'message text is not read');
  for (const value of [undefined, null, 'ECONNRESET', 42, {}]) t.equal(classifyFailure(value).transient, false, `${String(value)} is permanent`);
});

t.test('typed errors say themselves whether they are transient', async (t) => {
  const cases: Array<[string, unknown, boolean, string]> = [
    ['TransientStorageError', new TransientStorageError('SlowDown', 'x'), true, 'SlowDown'],
    ['StorageNotEmptyError', new StorageNotEmptyError('_meta/x/', { key: '_meta/x/a', version_id: '1', kind: 'object' }), true, 'prefix_not_empty'],
    ['PermanentStorageError', new PermanentStorageError('AccessDenied', 'x'), false, 'AccessDenied'],
    ['StorageScopeError', new StorageScopeError('outside_owned_prefix', 'x'), false, 'outside_owned_prefix'],
    ['CacheError transient', new CacheError('aborted_while_reconnecting', true, 'x'), true, 'aborted_while_reconnecting'],
    ['CacheError permanent', new CacheError('WRONGTYPE', false, 'x'), false, 'WRONGTYPE'],
    ['RedisNotEmptyError', new RedisNotEmptyError(randomUUID(), ['k']), true, 'namespace_not_empty'],
    ['RedisScopeError', new RedisScopeError('x'), false, 'outside_namespace'],
    ['TaxonomyError', new TaxonomyError('malformed_owned_key', 'x'), false, 'malformed_owned_key'],
    ['ManifestError', new ManifestError('out_of_order', 'x'), false, 'out_of_order'],
  ];
  for (const [name, error, transient, code] of cases) {
    t.same(classifyFailure(error), { transient, source: 'typed', code }, `${name} is ${transient ? 'transient' : 'permanent'}`);
  }
  // The type's own verdict comes first, even for a code shaped like a SQLSTATE or an errno.
  t.equal(classifyFailure(new CacheError('MOVED', true, 'x')).transient, true, 'typed beats a SQLSTATE-shaped code');
  t.equal(classifyFailure(new PermanentStorageError('ECONNRESET', 'x')).transient, false, 'typed beats an errno code');
  t.equal(classifyFailure(new TransientStorageError('DL3A1', 'x')).transient, true, 'typed beats a registry code');
});

// ---- timeouts (item: no hangs): each is a transient failure ---------------------

/** A listener that accepts every connection and never answers. */
async function silentServer(t: { teardown(fn: () => unknown): void }): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return (server.address() as net.AddressInfo).port;
}

t.test('timeout: an S3 request to a server that never answers → TimeoutError (ETIMEDOUT) → transient', async (t) => {
  const port = await silentServer(t);
  const client = createS3Client(
    { endpoint: `http://127.0.0.1:${port}`, bucket: 'b', region: 'us-east-1', addressingStyle: 'path',
      credentials: { accessKeyId: 'x', secretAccessKey: 'y' }, connectTimeoutMs: 1000, requestTimeoutMs: 1000 },
    { maxAttempts: 1 },
  );
  t.teardown(() => client.destroy());
  const error = await rejection(client.send(new ListObjectVersionsCommand({ Bucket: 'b' })));
  t.equal((error as Error).name, 'TimeoutError', 'the SDK request handler gives up with a TimeoutError');
  const classified = classifyS3Error(error, 'ListObjectVersions');
  t.ok(classified instanceof TransientStorageError, `transient (${classified.code})`);
  t.equal(classifyFailure(classified).transient, true);
  t.equal(classifyFailure(error).transient, true, 'the raw SDK error is transient too');
});

t.test('timeout: the SDK connection and socket timeouts (TimeoutError without errno) → transient', async (t) => {
  // The shapes @smithy/node-http-handler raises for connectionTimeout and
  // socketTimeout: an Error named TimeoutError with no code.
  for (const what of ['connection', 'socket']) {
    const error = Object.assign(new Error(`${what} timed out`), { name: 'TimeoutError' });
    const classified = classifyS3Error(error, 'DeleteObjects');
    t.ok(classified instanceof TransientStorageError, `${what} timeout is transient`);
    t.equal(classified.code, 'TimeoutError');
  }
});

t.test('timeout: a Redis command to a server that never answers → RedisTimeoutError → transient', async (t) => {
  const port = await silentServer(t);
  const client = createRedisClient({ url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 1000, commandTimeoutMs: 1000 });
  t.teardown(() => client.disconnect());
  const cache = new RedisCache(client);
  const error = await rejection(cache.publishDisconnect(randomUUID()));
  t.ok(error instanceof RedisTimeoutError, 'our own deadline fires (typed), not a message to parse');
  t.ok(error instanceof CacheError);
  t.same(classifyFailure(error), { transient: true, source: 'typed', code: 'command_timeout' });
  t.equal(classifyRedisError(error, 'ready', 'PUBLISH'), error, 'classifyRedisError keeps it as it is');
});

t.test('timeout: PostgreSQL statement_timeout (57014) and idle_in_transaction_session_timeout (25P03) → transient', async (t) => {
  const url = dbUrl('postgres');
  const slow = connect(url, { max: 1, timeouts: { pgConnectMs: 5000, pgStatementMs: 200, pgIdleInTransactionMs: 0 } });
  t.teardown(() => slow.end({ timeout: 0 }));
  const [setting] = await slow<{ statement_timeout: string }[]>`select current_setting('statement_timeout') as statement_timeout`;
  t.equal(setting?.statement_timeout, '200ms', 'the session runs with the configured statement_timeout');
  const cancelled = await rejection(slow`select pg_sleep(30)`);
  t.equal(sqlStateOf(cancelled), '57014', 'query_canceled');
  t.same(classifyFailure(cancelled), { transient: true, source: 'sqlstate', code: '57014' });

  const idle = connect(url, { max: 1, timeouts: { pgConnectMs: 5000, pgStatementMs: 0, pgIdleInTransactionMs: 200 } });
  t.teardown(() => idle.end({ timeout: 0 }));
  const ended = await rejection(idle.begin(async (tx) => {
    await tx`select 1`;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await tx`select 1`;
  }));
  const code = String((ended as { code?: unknown }).code);
  t.ok(['25P03', 'CONNECTION_CLOSED'].includes(code), `the server ended the idle transaction: ${code}`);
  t.equal(classifyFailure(ended).transient, true);
  t.same(classifyFailure(Object.assign(new Error('x'), { code: '25P03' })), { transient: true, source: 'sqlstate', code: '25P03' });
  t.same(classifyFailure(Object.assign(new Error('x'), { code: '57P05' })), { transient: true, source: 'sqlstate', code: '57P05' });
});

t.test('timeout: a database that never answers → DatabaseUnreachableError (CONNECT_TIMEOUT, a ConfigError naming it) → transient', async (t) => {
  const port = await silentServer(t);
  const url = `postgres://postgres@127.0.0.1:${port}/silent_db`;
  const sql = connect(url, { max: 1, timeouts: { pgConnectMs: 1000, pgStatementMs: 0, pgIdleInTransactionMs: 0 } });
  t.teardown(() => sql.end({ timeout: 0 }));
  const error = await rejection(checkConnection(sql, url));
  t.ok(error instanceof DatabaseUnreachableError);
  t.ok(error instanceof ConfigError, 'a configuration problem for the CLI (exit 5)');
  t.equal((error as ConfigError).variable, 'DATABASE_URL');
  t.match((error as Error).message, /database "silent_db" on 127\.0\.0\.1:\d+/);
  t.same(classifyFailure(error), { transient: true, source: 'typed', code: 'CONNECT_TIMEOUT' });
});

t.test('timeout: an executor step past its deadline → StepTimeoutError → transient', async (t) => {
  t.same(classifyFailure(new StepTimeoutError('chunk:0', 1000)), { transient: true, source: 'typed', code: 'step_timeout' });
});
