import { randomBytes, randomUUID } from 'node:crypto';
import { DeleteObjectCommand, PutBucketVersioningCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { PrefixDigest, type SizedEntry } from '../src/manifest.js';
import {
  classifyS3Error,
  createS3Client,
  parseVersionPage,
  PermanentStorageError,
  S3_PERMANENT_CODES,
  S3_TRANSIENT_CODES,
  S3Store,
  StorageNotEmptyError,
  StorageScopeError,
  TransientStorageError,
  validateDeleteOutcome,
  xmlRootElement,
} from '../src/s3.js';
import { createTestBucket } from './helpers/moto.js';

const { config, client, store } = await createTestBucket(t);

const hex = () => randomBytes(32).toString('hex');
const byKeyThenVersion = (a: SizedEntry, b: SizedEntry) =>
  a.key < b.key ? -1 : a.key > b.key ? 1 : a.version_id < b.version_id ? -1 : a.version_id > b.version_id ? 1 : 0;

async function put(key: string, body: string): Promise<SizedEntry> {
  const out = await client.send(new PutObjectCommand({ Bucket: config.bucket, Key: key, Body: body }));
  if (!out.VersionId) throw new Error(`no version id for ${key}`);
  return { key, version_id: out.VersionId, kind: 'object', size: Buffer.byteLength(body) };
}

async function mark(key: string): Promise<SizedEntry> {
  const out = await client.send(new DeleteObjectCommand({ Bucket: config.bucket, Key: key }));
  if (!out.DeleteMarker || !out.VersionId) throw new Error(`no delete marker for ${key}`);
  return { key, version_id: out.VersionId, kind: 'delete_marker', size: 0 };
}

/** `versions` object versions of increasing size, then (optionally) a delete marker. */
async function history(key: string, versions: number, withMarker: boolean): Promise<SizedEntry[]> {
  const out: SizedEntry[] = [];
  for (let i = 1; i <= versions; i++) out.push(await put(key, 'x'.repeat(i * 7)));
  if (withMarker) out.push(await mark(key));
  return out;
}

async function collect(iterable: AsyncIterable<SizedEntry>): Promise<SizedEntry[]> {
  const out: SizedEntry[] = [];
  for await (const entry of iterable) out.push(entry);
  return out;
}

const prefixes = (c: string) => [`_meta/${c}/`, `_uploads/${c}/`, `repos/${c}/`];

// Fixture: the target community C, a sibling D, and shared content.
const C = randomUUID();
const D = randomUUID();
const expected = new Map<string, SizedEntry[]>();
for (const prefix of prefixes(C)) expected.set(prefix, []);
for (let i = 0; i < 3; i++) expected.get(`_meta/${C}/`)!.push(...(await history(`_meta/${C}/${hex()}.json`, 3, true)));
for (let i = 0; i < 2; i++) expected.get(`_uploads/${C}/`)!.push(...(await history(`_uploads/${C}/${hex()}.json`, 2, true)));
expected.get(`repos/${C}/`)!.push(...(await history(`repos/${C}/alpha.json`, 2, true)));
expected.get(`repos/${C}/`)!.push(...(await history(`repos/${C}/beta-2.json`, 3, true)));
for (const list of expected.values()) list.sort(byKeyThenVersion);

const bystanders: SizedEntry[] = [
  ...(await history(`_meta/${D}/${hex()}.json`, 2, true)),
  ...(await history(`_uploads/${D}/${hex()}.json`, 1, false)),
  ...(await history(`repos/${D}/alpha.json`, 1, true)),
  ...(await history(`blobs/${hex()}`, 2, false)),
  ...(await history(`manifests/${hex()}`, 1, true)),
].sort(byKeyThenVersion);

t.test('listVersions yields versions and delete markers in canonical order, across pages', async (t) => {
  for (const prefix of prefixes(C)) {
    const want = expected.get(prefix)!;
    t.ok(want.some((e) => e.kind === 'delete_marker') && want.some((e) => e.kind === 'object'), `${prefix} fixture has both kinds`);
    for (const pageSize of [1, 2, 3, 1000]) {
      const got = await collect(store.listVersions(prefix, { pageSize }));
      t.same(got, want, `${prefix} with page size ${pageSize}`);
    }
    // The manifest digest accepts the stream only if it is strictly ascending.
    const digest = new PrefixDigest(prefix, { chunkSize: 2 });
    for await (const entry of store.listVersions(prefix, { pageSize: 2 })) digest.add(entry);
    t.equal(digest.finish().summary.object_count, want.length);
  }
  t.same(await collect(store.listVersions(`_meta/${D}/`)), bystanders.filter((e) => e.key.startsWith(`_meta/${D}/`)), 'sibling listed apart');
});

t.test('listWholeBucket (sweep only) sees everything in canonical order', async (t) => {
  const all = [...[...expected.values()].flat(), ...bystanders].sort(byKeyThenVersion);
  t.same(await collect(store.listWholeBucket({ pageSize: 4 })), all);
});

t.test('the destructive path refuses anything but an owned prefix', async (t) => {
  for (const prefix of ['', 'blobs/', 'manifests/', `_meta/${C}`, `_meta/${C.toUpperCase()}/`, `_meta/${C}/sub/`, `other/${C}/`]) {
    t.throws(() => store.listVersions(prefix), StorageScopeError, `list ${JSON.stringify(prefix)}`);
    await t.rejects(store.preflight([`_meta/${C}/`, prefix]), StorageScopeError, `preflight ${JSON.stringify(prefix)}`);
    await t.rejects(store.assertPrefixEmpty(prefix), StorageScopeError, `absence ${JSON.stringify(prefix)}`);
    await t.rejects(store.deleteVersions(prefix, []), StorageScopeError, `delete under ${JSON.stringify(prefix)}`);
  }
  const foreign = bystanders.find((e) => e.key.startsWith(`_meta/${D}/`))!;
  const own = expected.get(`_meta/${C}/`)!;
  await t.rejects(store.deleteVersions(`_meta/${C}/`, [...own, foreign]), { name: 'StorageScopeError', code: 'foreign_key' });
  await t.rejects(store.deleteVersions(`_meta/${C}/`, [own[0]!, own[0]!]), { name: 'StorageScopeError', code: 'duplicate_entry' });
  await t.rejects(
    store.deleteVersions(`_meta/${C}/`, [{ ...own[0]!, version_id: '' }]),
    { name: 'StorageScopeError', code: 'missing_version' },
  );
  t.same(await collect(store.listVersions(`_meta/${C}/`)), own, 'a refused batch deleted nothing');
  t.same(await collect(store.listVersions(`_meta/${D}/`)), [foreign, ...bystanders.filter((e) => e !== foreign && e.key.startsWith(`_meta/${D}/`))].sort(byKeyThenVersion));
});

t.test('preflight proves list permission; errors are classified', async (t) => {
  await store.preflight(prefixes(C));
  const missingBucket = new S3Store(client, `${config.bucket}-missing`);
  await t.rejects(missingBucket.preflight(prefixes(C)), { name: 'PermanentStorageError', code: 'NoSuchBucket', httpStatus: 404 });
  // Nothing listens on port 9 of loopback (discard; refused without root daemon).
  const unreachable = new S3Store(createS3Client({ ...config, endpoint: 'http://127.0.0.1:9' }, { maxAttempts: 1 }), config.bucket);
  const error = await unreachable.preflight(prefixes(C)).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(error instanceof TransientStorageError, 'connection refused is transient');
  t.notOk(error instanceof PermanentStorageError);
});

t.test('classifyS3Error uses name/code and status, not message text', async (t) => {
  const classify = (e: unknown) => classifyS3Error(e, 'Test');
  t.type(classify({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }), PermanentStorageError);
  t.type(classify({ name: 'Whatever', $metadata: { httpStatusCode: 403 } }), PermanentStorageError, '403 is permanent');
  t.type(classify({ name: 'NoSuchBucket', $metadata: { httpStatusCode: 404 } }), PermanentStorageError);
  t.type(classify({ name: 'SlowDown', $metadata: { httpStatusCode: 503 } }), TransientStorageError);
  t.type(classify({ name: 'InternalError', message: 'AccessDenied NoSuchBucket', $metadata: { httpStatusCode: 500 } }), TransientStorageError);
  t.type(classify(Object.assign(new Error('Access Denied'), { name: 'TimeoutError' })), TransientStorageError);
  t.equal(classify({ name: 'S3ServiceException', Code: 'AccessDenied' }).code, 'AccessDenied', 'Code wins over name');
  // Without a response: a socket errno is a network failure (transient); anything else fails closed.
  const refused = classify(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED', $metadata: { attempts: 1 } }));
  t.type(refused, TransientStorageError, 'connection refused without a response is transient');
  t.equal(refused.code, 'ECONNREFUSED', 'the errno is the code');
  t.type(classify(Object.assign(new Error('x'), { code: 'ECONNRESET' })), TransientStorageError);
  t.type(classify(Object.assign(new Error('x'), { code: 'EAI_AGAIN' })), TransientStorageError);
  t.type(classify(Object.assign(new Error('x'), { code: 'EACCES' })), PermanentStorageError, 'an unknown errno is permanent');
  t.type(classify({ name: 'BrandNewError' }), PermanentStorageError, 'unknown code without status is permanent');
  t.type(classify(new Error('SlowDown 503 ECONNRESET')), PermanentStorageError, 'message text is not read');
  t.type(classify({ name: 'BrandNewError', $metadata: { httpStatusCode: 429 } }), TransientStorageError, '429 is transient');
  t.type(classify({ name: 'BrandNewError', $metadata: { httpStatusCode: 408 } }), TransientStorageError, '408 is transient');
  t.type(classify({ name: 'BrandNewError', $metadata: { httpStatusCode: 404 } }), PermanentStorageError, '404 is permanent');
  t.type(classify({ name: 'AccessDenied', $metadata: { httpStatusCode: 503 } }), PermanentStorageError, 'a listed code beats the status');
});

t.test('deleting a prefix\'s exact versions empties it and nothing else', async (t) => {
  const before = await collect(store.listWholeBucket());
  for (const prefix of prefixes(C)) {
    const entries = await collect(store.listVersions(prefix));
    t.same(entries, expected.get(prefix), `${prefix} listed as frozen`);
    const outcome = await store.deleteVersions(prefix, entries);
    t.same(outcome, { deleted: entries.length, alreadyMissing: 0, requests: 1 }, `${prefix} all acknowledged`);
    t.equal(await store.countRemaining(prefix), 0, `${prefix} has no versions or markers left`);
    await store.assertPrefixEmpty(prefix);
  }
  const after = await collect(store.listWholeBucket());
  t.same(after, bystanders, 'sibling community and shared keys survive, every version');
  t.same(after, before.filter((e) => !prefixes(C).some((p) => e.key.startsWith(p))));

  // Replaying a chunk after a lost stamp is safe: every version is accounted
  // for (moto, like AWS, acknowledges missing versions as deleted) and no
  // delete marker appears.
  for (const prefix of prefixes(C)) {
    const entries = expected.get(prefix)!;
    const replay = await store.deleteVersions(prefix, entries);
    t.equal(replay.deleted + replay.alreadyMissing, entries.length, `${prefix} replay accounted`);
    t.equal(await store.countRemaining(prefix), 0, `${prefix} replay created nothing`);
  }
  t.same(await collect(store.listWholeBucket()), bystanders);
});

t.test('absence proof counts delete markers', async (t) => {
  const E = randomUUID();
  const key = `repos/${E}/only-marker.json`;
  const [version, marker] = await history(key, 1, true);
  await store.deleteVersions(`repos/${E}/`, [version!]);
  t.equal(await store.countRemaining(`repos/${E}/`), 1);
  const error = await store.assertPrefixEmpty(`repos/${E}/`).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(error instanceof StorageNotEmptyError, 'a lone delete marker is not absence');
  t.ok(error instanceof TransientStorageError);
  t.same((error as StorageNotEmptyError).entry, { key, version_id: marker!.version_id, kind: 'delete_marker' });
  t.same(await store.deleteVersions(`repos/${E}/`, [marker!]), { deleted: 1, alreadyMissing: 0, requests: 1 });
  await store.assertPrefixEmpty(`repos/${E}/`);
  t.equal(await store.countRemaining(`repos/${E}/`), 0);
});

t.test('unversioned objects carry the literal version id "null"', async (t) => {
  const G = randomUUID();
  const key = `_uploads/${G}/${hex()}.json`;
  await client.send(new PutBucketVersioningCommand({ Bucket: config.bucket, VersioningConfiguration: { Status: 'Suspended' } }));
  try {
    // No VersionId in the response while suspended; the listing must say "null".
    await client.send(new PutObjectCommand({ Bucket: config.bucket, Key: key, Body: 'before versioning' }));
  } finally {
    await client.send(new PutBucketVersioningCommand({ Bucket: config.bucket, VersioningConfiguration: { Status: 'Enabled' } }));
  }
  const later = await put(key, 'versioned');
  const listed = await collect(store.listVersions(`_uploads/${G}/`));
  t.same(
    listed,
    [{ key, version_id: 'null', kind: 'object', size: 17 } as SizedEntry, later].sort(byKeyThenVersion),
    'null version listed with its literal id',
  );
  t.same(await store.deleteVersions(`_uploads/${G}/`, listed), { deleted: 2, alreadyMissing: 0, requests: 1 });
  await store.assertPrefixEmpty(`_uploads/${G}/`);
});

t.test('more than 1000 versions are deleted in requests of at most 1000', async (t) => {
  const F = randomUUID();
  const prefix = `_meta/${F}/`;
  const keys = Array.from({ length: 503 }, () => `${prefix}${hex()}.json`);
  const queue = [...keys, ...keys];
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let key = queue.shift(); key !== undefined; key = queue.shift()) await put(key, 'v');
    }),
  );
  const counted = createS3Client(config);
  t.teardown(() => counted.destroy());
  const batchSizes: number[] = [];
  counted.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'DeleteObjectsCommand') {
        batchSizes.push((args.input as { Delete: { Objects: unknown[] } }).Delete.Objects.length);
      }
      return next(args);
    },
    { step: 'initialize', name: 'countDeleteBatches' },
  );
  const entries = await collect(store.listVersions(prefix));
  t.equal(entries.length, 1006);
  const outcome = await new S3Store(counted, config.bucket).deleteVersions(prefix, entries);
  t.same(outcome, { deleted: 1006, alreadyMissing: 0, requests: 2 });
  t.same(batchSizes, [1000, 6], 'two DeleteObjects requests, each within the S3 limit');
  await store.assertPrefixEmpty(prefix);
});

t.test('parseVersionPage: truncated pages must carry both markers', async (t) => {
  const prefix = `_meta/${C}/`;
  const echo = { Name: 'bkt', Prefix: prefix };
  const v = (key: string, id: string) => ({ Key: `${prefix}${key}`, VersionId: id, Size: 1 });
  const page = { Versions: [v('b', '2'), v('a', '9'), v('b', '1')], DeleteMarkers: [{ Key: `${prefix}a`, VersionId: '5' }] };
  const parsed = parseVersionPage({ ...echo, ...page, IsTruncated: false }, prefix, 'bkt');
  t.same(
    parsed.entries.map((e) => [e.key.slice(prefix.length), e.version_id, e.kind]),
    [['a', '5', 'delete_marker'], ['a', '9', 'object'], ['b', '1', 'object'], ['b', '2', 'object']],
  );
  t.equal(parsed.next, null);
  t.same(parseVersionPage({ ...echo, ...page, IsTruncated: true, NextKeyMarker: `${prefix}b`, NextVersionIdMarker: '1' }, prefix, 'bkt').next, {
    keyMarker: `${prefix}b`,
    versionIdMarker: '1',
  });
  const malformed = { name: 'TransientStorageError', code: 'malformed_listing' };
  t.throws(() => parseVersionPage({ ...echo, ...page, IsTruncated: true, NextVersionIdMarker: '1' }, prefix, 'bkt'), { ...malformed, message: /NextKeyMarker/ });
  t.throws(() => parseVersionPage({ ...echo, ...page, IsTruncated: true, NextKeyMarker: `${prefix}b` }, prefix, 'bkt'), { ...malformed, message: /NextVersionIdMarker/ });
  t.throws(() => parseVersionPage({ ...echo, ...page, IsTruncated: true }, prefix, 'bkt'), malformed);
  t.throws(() => parseVersionPage({ ...echo, ...page, IsTruncated: true, NextKeyMarker: '', NextVersionIdMarker: '' }, prefix, 'bkt'), malformed);
  t.throws(() => parseVersionPage({ ...echo, Versions: [{ Key: `${prefix}a`, Size: 1 }] }, prefix, 'bkt'), malformed, 'version without id');
  t.throws(() => parseVersionPage({ ...echo, Versions: [{ Key: `${prefix}a`, VersionId: '1' }] }, prefix, 'bkt'), malformed, 'object without size');
  t.throws(() => parseVersionPage({ ...echo, Versions: [{ Key: `_meta/${D}/a`, VersionId: '1', Size: 1 }] }, prefix, 'bkt'), malformed, 'key outside prefix');
});

t.test('parseVersionPage: a page must echo the bucket and the requested prefix', async (t) => {
  const prefix = `_meta/${C}/`;
  const malformed = { name: 'TransientStorageError', code: 'malformed_listing' };
  t.same(parseVersionPage({ Name: 'bkt', Prefix: prefix }, prefix, 'bkt'), { entries: [], next: null }, 'an echoing empty page is empty');
  t.same(parseVersionPage({ Name: 'bkt', Prefix: '' }, '', 'bkt'), { entries: [], next: null }, 'whole bucket: empty prefix echoed');
  t.same(parseVersionPage({ Name: 'bkt' }, '', 'bkt'), { entries: [], next: null }, 'whole bucket: no prefix echoed');
  t.throws(() => parseVersionPage({}, prefix, 'bkt'), { ...malformed, message: /names bucket nothing/ }, 'nothing echoed');
  t.throws(() => parseVersionPage({ Name: 'other', Prefix: prefix }, prefix, 'bkt'), { ...malformed, message: /"other"/ }, 'another bucket');
  t.throws(() => parseVersionPage({ Name: 'bkt' }, prefix, 'bkt'), { ...malformed, message: /names prefix nothing/ }, 'no prefix');
  t.throws(() => parseVersionPage({ Name: 'bkt', Prefix: '' }, prefix, 'bkt'), malformed, 'empty prefix for an owned prefix');
  t.throws(() => parseVersionPage({ Name: 'bkt', Prefix: `_meta/${D}/` }, prefix, 'bkt'), malformed, 'another prefix');
  t.throws(() => parseVersionPage({ Name: 'bkt', Prefix: '_meta/' }, '', 'bkt'), malformed, 'whole bucket: a prefix echoed');
});

t.test('xmlRootElement finds the root element after declaration, comments and DOCTYPE', async (t) => {
  t.equal(xmlRootElement('<?xml version="1.0" encoding="UTF-8"?>\n<ListVersionsResult xmlns="x"><Name>b</Name></ListVersionsResult>'), 'ListVersionsResult');
  t.equal(xmlRootElement('\uFEFF  <!-- c --><ListVersionsResult/>'), 'ListVersionsResult');
  t.equal(xmlRootElement('<s3:DeleteResult xmlns:s3="x">'), 'DeleteResult');
  t.equal(xmlRootElement('<!DOCTYPE html><html><body>hi</body></html>'), 'html');
  t.equal(xmlRootElement(''), null);
  t.equal(xmlRootElement('{"ok":true}'), null);
  t.equal(xmlRootElement('<ListVersionsResultX>'), 'ListVersionsResultX');
});

/**
 * A real HTTP endpoint answering every request 200 with the body `answer`
 * returns (a proxy's maintenance page, an empty body, …): fault injection,
 * not a mock of S3.
 */
async function http200(t: Test, answer: (url: URL) => { body: string; type: string }): Promise<{ endpoint: string; requests: () => number }> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests += 1;
    req.resume();
    req.on('end', () => {
      const { body, type } = answer(new URL(req.url ?? '/', 'http://s3'));
      res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

t.test('a 200 that is not a listing of the request is never taken for one (preflight, listing, absence proof)', async (t) => {
  const xml = (inner: string) => `<?xml version="1.0" encoding="UTF-8"?>\n${inner}`;
  const ns = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
  const prefixOf = (url: URL) => url.searchParams.get('prefix') ?? '';
  const bodies: Record<string, (url: URL) => { body: string; type: string }> = {
    'an HTML page': () => ({ body: '<html><body><h1>Service temporarily under maintenance</h1></body></html>', type: 'text/html' }),
    'an empty body': () => ({ body: '', type: 'application/xml' }),
    'an empty ListVersionsResult': () => ({ body: xml(`<ListVersionsResult ${ns}></ListVersionsResult>`), type: 'application/xml' }),
    'a self-closing ListVersionsResult': () => ({ body: xml('<ListVersionsResult/>'), type: 'application/xml' }),
    'JSON': () => ({ body: '{"ok":true}', type: 'application/json' }),
    'a ListBucketResult (versions ignored) echoing bucket and prefix': (url) => ({
      body: xml(`<ListBucketResult ${ns}><Name>${config.bucket}</Name><Prefix>${prefixOf(url)}</Prefix><IsTruncated>false</IsTruncated>` +
        `<Contents><Key>${prefixOf(url)}x.json</Key><Size>1</Size></Contents></ListBucketResult>`),
      type: 'application/xml',
    }),
    'a listing of another bucket': (url) => ({
      body: xml(`<ListVersionsResult ${ns}><Name>${config.bucket}-other</Name><Prefix>${prefixOf(url)}</Prefix><IsTruncated>false</IsTruncated></ListVersionsResult>`),
      type: 'application/xml',
    }),
    'a listing of another prefix': () => ({
      body: xml(`<ListVersionsResult ${ns}><Name>${config.bucket}</Name><Prefix>_meta/${D}/</Prefix><IsTruncated>false</IsTruncated></ListVersionsResult>`),
      type: 'application/xml',
    }),
  };
  const malformed = { name: 'TransientStorageError', code: 'malformed_listing', transient: true };
  for (const [what, answer] of Object.entries(bodies)) {
    const server = await http200(t, answer);
    const fake = new S3Store(createS3Client({ ...config, endpoint: server.endpoint }, { maxAttempts: 1 }), config.bucket);
    t.teardown(() => fake.client.destroy());
    const prefix = `_meta/${C}/`;
    await t.rejects(fake.preflight(prefixes(C)), malformed, `${what}: preflight fails`);
    await t.rejects(fake.assertPrefixEmpty(prefix), malformed, `${what}: the absence proof fails`);
    await t.rejects(collect(fake.listVersions(prefix)), malformed, `${what}: listVersions fails`);
    await t.rejects(fake.countRemaining(prefix), malformed, `${what}: countRemaining fails`);
    await t.rejects(collect(fake.listWholeBucket()), malformed, `${what}: the whole-bucket listing fails`);
    t.equal(server.requests(), 5, `${what}: each call reached the endpoint once (no SDK retry)`);
  }
  // The control: the same endpoint answering a real empty listing of the
  // request (bucket and prefix echoed) proves the prefix empty.
  const valid = await http200(t, (url) => ({
    body: xml(`<ListVersionsResult ${ns}><Name>${config.bucket}</Name><Prefix>${prefixOf(url)}</Prefix><KeyMarker></KeyMarker><VersionIdMarker></VersionIdMarker><MaxKeys>1</MaxKeys><IsTruncated>false</IsTruncated></ListVersionsResult>`),
    type: 'application/xml',
  }));
  const control = new S3Store(createS3Client({ ...config, endpoint: valid.endpoint }, { maxAttempts: 1 }), config.bucket);
  t.teardown(() => control.client.destroy());
  await control.preflight(prefixes(C));
  await control.assertPrefixEmpty(`_meta/${C}/`);
  t.same(await collect(control.listVersions(`_meta/${C}/`)), [], 'a real empty listing is empty');
  t.same(await collect(control.listWholeBucket()), [], 'a real empty whole-bucket listing is empty');
});

t.test('a 200 to DeleteObjects that is not a DeleteResult fails transiently and stamps nothing', async (t) => {
  for (const body of ['<html><body>maintenance</body></html>', '', '{"ok":true}']) {
    const server = await http200(t, () => ({ body, type: 'text/html' }));
    const fake = new S3Store(createS3Client({ ...config, endpoint: server.endpoint }, { maxAttempts: 1 }), config.bucket);
    t.teardown(() => fake.client.destroy());
    const prefix = `_meta/${C}/`;
    await t.rejects(
      fake.deleteVersions(prefix, [{ key: `${prefix}${hex()}.json`, version_id: 'v1', kind: 'object' }]),
      { name: 'TransientStorageError', code: 'delete_outcome', transient: true },
      `body ${JSON.stringify(body.slice(0, 20))}`,
    );
  }
});

t.test('validateDeleteOutcome: exact acknowledgement, or a failure classified by the per-key codes', async (t) => {
  const req = [
    { key: 'k/a', version_id: '1', kind: 'object' as const },
    { key: 'k/a', version_id: '2', kind: 'delete_marker' as const },
    { key: 'k/b', version_id: '3', kind: 'object' as const },
  ];
  const ack = (key: string, id: string, extra: object = {}) => ({ Key: key, VersionId: id, ...extra });
  t.same(
    validateDeleteOutcome(req, { Deleted: [ack('k/a', '1'), ack('k/a', '2', { DeleteMarker: true, DeleteMarkerVersionId: '2' }), ack('k/b', '3')] }),
    { deleted: 3, alreadyMissing: 0 },
  );
  t.same(
    validateDeleteOutcome(req, {
      Deleted: [ack('k/a', '1')],
      Errors: [
        { Key: 'k/a', VersionId: '2', Code: 'NoSuchVersion' },
        { Key: 'k/b', VersionId: '3', Code: 'NoSuchKey' },
      ],
    }),
    { deleted: 1, alreadyMissing: 2 },
    'missing versions count as already deleted',
  );
  const rejected = (what: string, response: Parameters<typeof validateDeleteOutcome>[1], problem: RegExp) => {
    try {
      validateDeleteOutcome(req, response);
      t.fail(`${what}: accepted`);
    } catch (error) {
      t.ok(error instanceof TransientStorageError, `${what}: transient`);
      t.equal((error as TransientStorageError).code, 'delete_outcome');
      t.match((error as TransientStorageError).problems.join('\n'), problem, what);
    }
  };
  rejected('partial acknowledgement', { Deleted: [ack('k/a', '1'), ack('k/b', '3')] }, /1 of 3 requested versions were not acknowledged/);
  rejected('empty response', {}, /3 of 3/);
  rejected(
    'transient per-key error',
    { Deleted: [ack('k/a', '1'), ack('k/b', '3')], Errors: [{ Key: 'k/a', VersionId: '2', Code: 'InternalError', Message: 'try again' }] },
    /k\/a@2: InternalError: try again/,
  );
  rejected(
    'per-key error without a Code: not "already missing"',
    { Deleted: [ack('k/a', '1'), ack('k/b', '3')], Errors: [{ Key: 'k/a', VersionId: '2' }] },
    /k\/a@2: no error code/,
  );
  rejected(
    'per-key error with an unlisted Code',
    { Deleted: [ack('k/a', '1'), ack('k/b', '3')], Errors: [{ Key: 'k/a', VersionId: '2', Code: 'NoSuchUpload' }] },
    /k\/a@2: NoSuchUpload/,
  );
  const permanent = (what: string, response: Parameters<typeof validateDeleteOutcome>[1], code: string, problem: RegExp) => {
    try {
      validateDeleteOutcome(req, response);
      t.fail(`${what}: accepted`);
    } catch (error) {
      t.ok(error instanceof PermanentStorageError, `${what}: permanent`);
      t.notOk(error instanceof TransientStorageError);
      t.equal((error as PermanentStorageError).code, code, `${what}: code ${code}`);
      t.match((error as PermanentStorageError).message, problem, what);
    }
  };
  permanent(
    'other per-key error (AccessDenied)',
    { Deleted: [ack('k/a', '1'), ack('k/b', '3')], Errors: [{ Key: 'k/a', VersionId: '2', Code: 'AccessDenied', Message: 'no' }] },
    'AccessDenied',
    /k\/a@2: AccessDenied/,
  );
  permanent(
    'a permanent code among transient problems',
    {
      Deleted: [ack('k/a', '1')],
      Errors: [
        { Key: 'k/a', VersionId: '2', Code: 'SlowDown' },
        { Key: 'k/b', VersionId: '3', Code: 'AccessDenied' },
      ],
    },
    'AccessDenied',
    /k\/b@3: AccessDenied/,
  );
  // Every listed code, as a per-key Code.
  for (const code of S3_PERMANENT_CODES) {
    permanent(`per-key ${code}`, { Deleted: [ack('k/a', '1'), ack('k/b', '3')], Errors: [{ Key: 'k/a', VersionId: '2', Code: code }] }, code, new RegExp(`k/a@2: ${code}`));
  }
  for (const code of S3_TRANSIENT_CODES) {
    rejected(`per-key ${code}`, { Deleted: [ack('k/a', '1'), ack('k/b', '3')], Errors: [{ Key: 'k/a', VersionId: '2', Code: code }] }, new RegExp(`k/a@2: ${code}`));
  }
  rejected('unexpected version', { Deleted: [ack('k/a', '1'), ack('k/a', '2'), ack('k/b', '3'), ack('k/b', '4')] }, /unexpected acknowledgement for k\/b@4/);
  rejected('foreign key', { Deleted: [ack('k/a', '1'), ack('k/a', '2'), ack('k/b', '3'), ack('x/z', '3')] }, /unexpected acknowledgement for x\/z@3/);
  rejected('duplicate acknowledgement', { Deleted: [ack('k/a', '1'), ack('k/a', '1'), ack('k/a', '2'), ack('k/b', '3')] }, /duplicate acknowledgement for k\/a@1/);
  rejected('ack without version', { Deleted: [{ Key: 'k/a' }, ack('k/a', '2'), ack('k/b', '3')] }, /without key or version/);
  // Only an explicit NoSuchVersion/NoSuchKey counts as already missing.
  t.same(
    validateDeleteOutcome(req, { Deleted: [ack('k/a', '1'), ack('k/b', '3')], Errors: [{ Key: 'k/a', VersionId: '2', Code: 'NoSuchKey' }] }),
    { deleted: 2, alreadyMissing: 1 },
  );
  for (const Code of [undefined, '', 'NoSuchBucket', 'NoSuchUpload', 'nosuchversion']) {
    t.throws(
      () => validateDeleteOutcome(req, { Deleted: [ack('k/a', '1'), ack('k/b', '3')], Errors: [{ Key: 'k/a', VersionId: '2', ...(Code === undefined ? {} : { Code }) }] }),
      Error,
      `per-key Code ${JSON.stringify(Code)} is not "already missing"`,
    );
  }
  rejected(
    'new delete marker instead of a version delete',
    { Deleted: [ack('k/a', '1', { DeleteMarker: true, DeleteMarkerVersionId: 'new' }), ack('k/a', '2'), ack('k/b', '3')] },
    /created delete marker new/,
  );
});
