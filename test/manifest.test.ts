import t from 'tap';
import {
  buildStorageSummary,
  compareEntries,
  compareUtf8,
  DEFAULT_CHUNK_SIZE,
  EMPTY_PREFIX_DIGEST,
  entryLine,
  ManifestError,
  PrefixDigest,
  type ManifestChunk,
  type SizedEntry,
} from '../src/manifest.js';

// Known answers computed outside this code base with coreutils:
//   printf '_meta/c/a.json\tv1\tobject\n_meta/c/a.json\tv2\tdelete_marker\n_meta/c/b.json\tnull\tobject\n' | sha256sum
const ENTRIES: SizedEntry[] = [
  { key: '_meta/c/a.json', version_id: 'v1', kind: 'object', size: 10 },
  { key: '_meta/c/a.json', version_id: 'v2', kind: 'delete_marker', size: 0 },
  { key: '_meta/c/b.json', version_id: 'null', kind: 'object', size: 32 },
];
const WHOLE_STREAM_SHA256 = '9392bd9097ae6103b687b7a576199d9bcf2df79a796a5f9928bcf3bef8831471';
const CHAIN_H1 = '8ba388f8e651af60df21cf5f17d5ed465270533b02fe438984c77f8f68cc9c17';
const CHAIN_H2 = 'afd80306328ef665e955a58a3b466492601c750ce52d5604c8ec0e5480c82316';

function feed(prefix: string, entries: SizedEntry[], chunkSize: number, firstChunkNo = 0) {
  const digest = new PrefixDigest(prefix, { chunkSize, firstChunkNo });
  const chunks: ManifestChunk[] = [];
  for (const entry of entries) {
    const chunk = digest.add(entry);
    if (chunk) chunks.push(chunk);
  }
  const { chunk, summary } = digest.finish();
  if (chunk) chunks.push(chunk);
  return { chunks, summary, nextChunkNo: digest.nextChunkNo };
}

t.test('entryLine is key TAB version TAB kind LF', async (t) => {
  t.equal(entryLine({ key: 'repos/x/r.json', version_id: 'null', kind: 'object' }), 'repos/x/r.json\tnull\tobject\n');
  t.equal(entryLine({ key: 'k', version_id: 'v', kind: 'delete_marker' }), 'k\tv\tdelete_marker\n');
  for (const bad of [
    { key: 'a\tb', version_id: 'v', kind: 'object' },
    { key: 'a\nb', version_id: 'v', kind: 'object' },
    { key: 'a', version_id: 'v\t1', kind: 'object' },
    { key: '', version_id: 'v', kind: 'object' },
    { key: 'a', version_id: '', kind: 'object' },
    { key: 'a', version_id: 'v', kind: 'version' },
  ]) {
    t.throws(() => entryLine(bad as never), ManifestError, `rejects ${JSON.stringify(bad)}`);
  }
});

t.test('ordering is byte order of (key, version_id)', async (t) => {
  const a = { key: 'k/a', version_id: 'v2', kind: 'object' as const };
  t.ok(compareEntries(a, { ...a, version_id: 'v3' }) < 0, 'version breaks key ties');
  t.ok(compareEntries(a, { ...a, key: 'k/b', version_id: 'v1' }) < 0, 'key first');
  t.equal(compareEntries(a, { ...a, kind: 'delete_marker' }), 0, 'kind is not part of the order');
  t.ok(compareUtf8('A', 'a') < 0, 'uppercase before lowercase (C collation)');
  t.ok(compareUtf8('a/b', 'a.b') > 0, "'/' (0x2F) sorts after '.' (0x2E)");
  t.ok(compareUtf8('ab', 'abc') < 0, 'prefix sorts first');
  // UTF-16 code-unit order would put U+1F600 (surrogates 0xD83D…) before
  // U+FF5E; UTF-8 byte order (F0… vs EF…) puts it after.
  t.ok('\u{1F600}' < '\uFF5E', 'precondition: JS < disagrees with byte order here');
  t.ok(compareUtf8('\u{1F600}', '\uFF5E') > 0, 'supplementary code point sorts after U+FF5E');
  t.ok(compareUtf8('\uFF5E', '\u{1F600}') < 0, 'and symmetrically');
  t.ok(compareUtf8('\u{1F600}', '\u{1F601}') < 0, 'surrogate pairs compare by code point');
  const sorted = ['b', '\u{1F600}', 'a', '\uFF5E', 'Z'].sort(compareUtf8);
  const byBytes = ['b', '\u{1F600}', 'a', '\uFF5E', 'Z'].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
  t.same(sorted, byBytes, 'agrees with Buffer.compare on UTF-8');
});

t.test('single chunk digest is the SHA-256 of the whole entry stream', async (t) => {
  const { chunks, summary, nextChunkNo } = feed('_meta/c/', ENTRIES, 10_000, 4);
  t.equal(summary.keys_digest, WHOLE_STREAM_SHA256);
  t.equal(summary.object_count, 3, 'delete markers are counted as entries');
  t.equal(summary.total_bytes, 42, 'delete markers contribute no bytes');
  t.equal(chunks.length, 1);
  t.equal(chunks[0]?.chunk_no, 4, 'numbering starts at firstChunkNo');
  t.equal(nextChunkNo, 5);
  t.same(chunks[0]?.entries, ENTRIES.map(({ key, version_id, kind }) => ({ key, version_id, kind })), 'entries without size');
});

t.test('multi-chunk digest chains hex of the previous chunk', async (t) => {
  const { chunks, summary, nextChunkNo } = feed('_meta/c/', ENTRIES, 2);
  t.equal(chunks.length, 2);
  t.same(chunks.map((c) => c.chunk_no), [0, 1]);
  t.same(chunks.map((c) => c.entries.length), [2, 1]);
  t.equal(chunks[0]?.digest, CHAIN_H1);
  t.equal(chunks[1]?.digest, CHAIN_H2);
  t.equal(summary.keys_digest, CHAIN_H2);
  t.not(summary.keys_digest, WHOLE_STREAM_SHA256, 'chunking changes the digest');
  t.equal(nextChunkNo, 2);
});

t.test('exact multiple of the chunk size emits no empty trailing chunk', async (t) => {
  const { chunks, summary } = feed('_meta/c/', ENTRIES.slice(0, 2), 2);
  t.equal(chunks.length, 1);
  t.equal(summary.keys_digest, CHAIN_H1);
});

t.test('at the default chunk size, 10,000 entries are one chunk and 10,001 are two (10,000 + 1)', async (t) => {
  const c = '00000000-0000-4000-8000-000000000001';
  const entries: SizedEntry[] = Array.from({ length: 10_001 }, (_, i) => ({
    key: `_meta/${c}/${i.toString(16).padStart(64, '0')}.json`,
    version_id: 'null',
    kind: 'object',
    size: 1,
  }));
  const cut = (n: number) => {
    const digest = new PrefixDigest(`_meta/${c}/`); // no chunkSize: DEFAULT_CHUNK_SIZE
    const sizes: number[] = [];
    for (const entry of entries.slice(0, n)) {
      const chunk = digest.add(entry);
      if (chunk) sizes.push(chunk.entries.length);
    }
    const { chunk } = digest.finish();
    if (chunk) sizes.push(chunk.entries.length);
    return sizes;
  };
  t.equal(DEFAULT_CHUNK_SIZE, 10_000);
  t.same(cut(10_000), [10_000], 'exactly one full chunk');
  t.same(cut(10_001), [10_000, 1], 'the 10,001st entry opens a second chunk');
});

t.test('empty prefix has the empty-string digest and no chunks', async (t) => {
  const { chunks, summary, nextChunkNo } = feed('_uploads/c/', [], 10, 7);
  t.equal(summary.keys_digest, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  t.equal(EMPTY_PREFIX_DIGEST, summary.keys_digest);
  t.same(summary, { prefix: '_uploads/c/', object_count: 0, total_bytes: 0, keys_digest: EMPTY_PREFIX_DIGEST });
  t.equal(chunks.length, 0);
  t.equal(nextChunkNo, 7, 'an empty prefix consumes no chunk number');
});

t.test('out-of-order, duplicate and foreign entries fail closed', async (t) => {
  const expectCode = (fn: () => unknown, code: string, what: string) => {
    try {
      fn();
      t.fail(`${what}: did not throw`);
    } catch (error) {
      t.ok(error instanceof ManifestError, `${what}: ManifestError`);
      t.equal((error as ManifestError).code, code, what);
    }
  };
  const fresh = () => {
    const d = new PrefixDigest('_meta/c/', { chunkSize: 10 });
    d.add(ENTRIES[1] as SizedEntry);
    return d;
  };
  expectCode(() => fresh().add(ENTRIES[1] as SizedEntry), 'duplicate', 'same entry twice');
  expectCode(() => fresh().add({ ...(ENTRIES[1] as SizedEntry), kind: 'object' }), 'duplicate', 'same key+version, other kind');
  expectCode(() => fresh().add(ENTRIES[0] as SizedEntry), 'out_of_order', 'lower version of same key');
  expectCode(() => fresh().add({ key: '_meta/c/0.json', version_id: 'z', kind: 'object', size: 1 }), 'out_of_order', 'lower key');
  expectCode(() => fresh().add({ key: '_uploads/c/z.json', version_id: 'z', kind: 'object', size: 1 }), 'outside_prefix', 'other prefix');
  expectCode(() => fresh().add({ key: '_meta/c/z.json', version_id: 'z', kind: 'object', size: -1 }), 'invalid_entry', 'negative size');
  const done = fresh();
  done.finish();
  expectCode(() => done.add(ENTRIES[2] as SizedEntry), 'finished', 'add after finish');
  expectCode(() => new PrefixDigest('_meta/c', {}), 'outside_prefix', 'prefix without trailing slash');
  expectCode(() => new PrefixDigest('_meta/c/', { chunkSize: 0 }), 'invalid_entry', 'zero chunk size');
});

t.test('buildStorageSummary checks prefixes and fields', async (t) => {
  const prefixes = ['_meta/c/', '_uploads/c/', 'repos/c/'];
  const summaries = prefixes.map((prefix) => feed(prefix, [], 10).summary);
  const meta = feed('_meta/c/', ENTRIES, 10).summary;
  summaries[0] = meta;
  const summary = buildStorageSummary({ chunkSize: 10, expectedPrefixes: [...prefixes].reverse(), prefixes: summaries });
  t.same(summary, { version: 1, chunk_size: 10, prefixes: summaries });
  t.same(
    JSON.parse(JSON.stringify(summary)).prefixes[0],
    { prefix: '_meta/c/', object_count: 3, total_bytes: 42, keys_digest: WHOLE_STREAM_SHA256 },
  );

  const rejects = (what: string, input: Parameters<typeof buildStorageSummary>[0]) =>
    t.throws(() => buildStorageSummary(input), { name: 'ManifestError', code: 'invalid_summary' }, what);
  rejects('unsorted', { chunkSize: 10, expectedPrefixes: prefixes, prefixes: [summaries[1]!, summaries[0]!, summaries[2]!] });
  rejects('missing prefix', { chunkSize: 10, expectedPrefixes: prefixes, prefixes: summaries.slice(0, 2) });
  rejects('foreign prefix', {
    chunkSize: 10,
    expectedPrefixes: prefixes,
    prefixes: [...summaries.slice(0, 2), { ...summaries[2]!, prefix: 'repos/d/' }],
  });
  rejects('bad digest', { chunkSize: 10, expectedPrefixes: prefixes, prefixes: [{ ...meta, keys_digest: 'ABC' }, ...summaries.slice(1)] });
  rejects('empty prefix with non-empty digest', {
    chunkSize: 10,
    expectedPrefixes: prefixes,
    prefixes: [summaries[0]!, { ...summaries[1]!, keys_digest: WHOLE_STREAM_SHA256 }, summaries[2]!],
  });
  rejects('zero chunk size', { chunkSize: 0, expectedPrefixes: prefixes, prefixes: summaries });
});

t.test('docs/manifest-format.md test vector (shared with the SQL freeze)', async (t) => {
  const c = '11111111-2222-4333-8444-555555555555';
  const a = `_meta/${c}/${'a'.repeat(64)}.json`;
  const b = `_meta/${c}/${'b'.repeat(64)}.json`;
  const entries: SizedEntry[] = [
    { key: a, version_id: 'null', kind: 'object', size: 1 },
    { key: b, version_id: '3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY', kind: 'delete_marker', size: 0 },
    { key: b, version_id: 'QUpfdndhfd8438MNFDN93jdnJFkdmqnh', kind: 'object', size: 1 },
  ];
  const two = feed(`_meta/${c}/`, entries, 2);
  t.same(two.chunks.map((chunk) => chunk.entries.length), [2, 1]);
  t.equal(two.chunks[0]?.digest, '82fcce36ec30f319348330fb4a6754b9957c6b8afa1849b5251acd25171f8114', 'h1');
  t.equal(two.summary.keys_digest, '40641387113b63c7c29193bc5637677cce7ffc189c2090ad28e3be0398bef4ad', 'h2');
  t.equal(
    feed(`_meta/${c}/`, entries, 10_000).summary.keys_digest,
    'd745b23ebcce748c19fe191b8b76c1b9b84a1e210beeeb17664a7787f7100801',
  );
  t.equal(
    feed(`repos/${c}/`, [{ key: `repos/${c}/hello-world.json`, version_id: 'null', kind: 'object', size: 5 }], 10_000).summary.keys_digest,
    'b7127a1a08ec454af94f5f1d5b469603ac18961c00793689df5f9b30e0574917',
  );
  t.equal(feed(`_uploads/${c}/`, [], 10_000).summary.keys_digest, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
});
