// Canonical storage manifest encoding (docs/manifest-format.md). The SQL
// freeze functions recompute the same digests from the stored chunks, so
// every byte here is part of a contract: change it only together with SQL.

import { createHash, type Hash } from 'node:crypto';

export type EntryKind = 'object' | 'delete_marker';

export interface ManifestEntry {
  key: string;
  version_id: string;
  kind: EntryKind;
}

/** A listed version: a manifest entry plus its size (0 for delete markers). */
export interface SizedEntry extends ManifestEntry {
  size: number;
}

export interface ManifestChunk {
  /** Global per request, contiguous from 0 across prefixes. */
  chunk_no: number;
  prefix: string;
  entries: ManifestEntry[];
  /** Chain value h_k after this chunk. */
  digest: string;
}

export interface PrefixSummary {
  prefix: string;
  object_count: number;
  total_bytes: number;
  keys_digest: string;
}

export interface StorageSummary {
  version: 1;
  chunk_size: number;
  prefixes: PrefixSummary[];
}

export type ManifestErrorCode =
  | 'invalid_entry'
  | 'out_of_order'
  | 'duplicate'
  | 'outside_prefix'
  | 'finished'
  | 'invalid_summary';

export class ManifestError extends Error {
  override readonly name = 'ManifestError';
  /** A malformed manifest or listing order: permanent (src/failures.ts). */
  readonly transient = false;
  readonly code: ManifestErrorCode;

  constructor(code: ManifestErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export const DEFAULT_CHUNK_SIZE = 10_000;
export const STORAGE_SUMMARY_VERSION = 1;

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Digest of a prefix with no entries: SHA-256 of the empty string. */
export const EMPTY_PREFIX_DIGEST = sha256Hex('');

/**
 * Byte-wise (UTF-8) comparison, i.e. PostgreSQL COLLATE "C" and S3 listing
 * order. Plain `<` on JS strings compares UTF-16 code units, which agrees
 * with code point (= UTF-8 byte) order except when a surrogate (part of a
 * code point >= U+10000) meets a unit in U+E000..U+FFFF; that case is fixed up.
 */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca === cb) continue;
    const surrogateA = ca >= 0xd800 && ca <= 0xdfff;
    const surrogateB = cb >= 0xd800 && cb <= 0xdfff;
    if (surrogateA === surrogateB || (surrogateA ? cb : ca) < 0xd800) return ca < cb ? -1 : 1;
    return surrogateA ? 1 : -1;
  }
  return a.length < b.length ? -1 : 1;
}

export function compareEntries(a: ManifestEntry, b: ManifestEntry): number {
  return compareUtf8(a.key, b.key) || compareUtf8(a.version_id, b.version_id);
}

function validateEntry(entry: ManifestEntry): void {
  const bad = (why: string): never => {
    throw new ManifestError('invalid_entry', `${why}: ${JSON.stringify(entry)}`);
  };
  if (typeof entry.key !== 'string' || entry.key === '') bad('entry has no key');
  if (typeof entry.version_id !== 'string' || entry.version_id === '') bad('entry has no version_id');
  if (entry.kind !== 'object' && entry.kind !== 'delete_marker') bad('entry kind is neither object nor delete_marker');
  // TAB and LF delimit the canonical line; a field containing them would make
  // two different streams hash alike.
  if (/[\t\n]/.test(entry.key) || /[\t\n]/.test(entry.version_id)) bad('entry field contains TAB or LF');
}

/** Canonical text of one entry: `<key> TAB <version_id> TAB <kind> LF`. */
export function entryLine(entry: ManifestEntry): string {
  validateEntry(entry);
  return `${entry.key}\t${entry.version_id}\t${entry.kind}\n`;
}

export interface PrefixDigestOptions {
  chunkSize?: number;
  /** Chunk number of this prefix's first chunk (chunk numbers are global per request). */
  firstChunkNo?: number;
}

/**
 * Streams one prefix's entries (strictly ascending) into chunks and the
 * chained digest. Memory is bounded by one chunk whatever the prefix size.
 */
export class PrefixDigest {
  readonly prefix: string;
  private readonly chunkSize: number;
  private chunkNo: number;
  private chain = '';
  private hash: Hash | null = null;
  private current: ManifestEntry[] = [];
  private last: ManifestEntry | null = null;
  private count = 0;
  private bytes = 0;
  private finished = false;

  constructor(prefix: string, options: PrefixDigestOptions = {}) {
    const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
    const firstChunkNo = options.firstChunkNo ?? 0;
    if (!Number.isSafeInteger(chunkSize) || chunkSize < 1) {
      throw new ManifestError('invalid_entry', `chunk size must be a positive integer, got ${chunkSize}`);
    }
    if (!Number.isSafeInteger(firstChunkNo) || firstChunkNo < 0) {
      throw new ManifestError('invalid_entry', `first chunk number must be a non-negative integer, got ${firstChunkNo}`);
    }
    if (prefix === '' || !prefix.endsWith('/')) {
      throw new ManifestError('outside_prefix', `manifest prefix must be non-empty and end with /: ${JSON.stringify(prefix)}`);
    }
    this.prefix = prefix;
    this.chunkSize = chunkSize;
    this.chunkNo = firstChunkNo;
  }

  /** Chunk number the next prefix should start at once this one is finished. */
  get nextChunkNo(): number {
    return this.chunkNo;
  }

  get entryCount(): number {
    return this.count;
  }

  /** Adds one entry; returns the chunk it completed, if any. */
  add(entry: SizedEntry): ManifestChunk | null {
    if (this.finished) throw new ManifestError('finished', `prefix ${this.prefix} is already finished`);
    const line = entryLine(entry);
    if (!entry.key.startsWith(this.prefix)) {
      throw new ManifestError('outside_prefix', `entry key ${JSON.stringify(entry.key)} is outside prefix ${this.prefix}`);
    }
    if (!Number.isSafeInteger(entry.size) || entry.size < 0) {
      throw new ManifestError('invalid_entry', `entry size must be a non-negative integer: ${JSON.stringify(entry)}`);
    }
    if (this.last !== null) {
      const order = compareEntries(this.last, entry);
      if (order === 0) {
        throw new ManifestError('duplicate', `duplicate manifest entry ${entry.key} ${entry.version_id}`);
      }
      if (order > 0) {
        throw new ManifestError(
          'out_of_order',
          `manifest entry ${entry.key} ${entry.version_id} sorts before ${this.last.key} ${this.last.version_id}`,
        );
      }
    }
    const stored: ManifestEntry = { key: entry.key, version_id: entry.version_id, kind: entry.kind };
    if (this.hash === null) {
      this.hash = createHash('sha256');
      this.hash.update(this.chain, 'utf8');
    }
    this.hash.update(line, 'utf8');
    this.current.push(stored);
    this.last = stored;
    this.count += 1;
    if (entry.kind === 'object') {
      this.bytes += entry.size;
      if (!Number.isSafeInteger(this.bytes)) {
        throw new ManifestError('invalid_entry', `total bytes of ${this.prefix} exceed the safe integer range`);
      }
    }
    return this.current.length >= this.chunkSize ? this.cut() : null;
  }

  /** Ends the prefix: returns the last partial chunk (if any) and the summary. */
  finish(): { chunk: ManifestChunk | null; summary: PrefixSummary } {
    if (this.finished) throw new ManifestError('finished', `prefix ${this.prefix} is already finished`);
    const chunk = this.current.length > 0 ? this.cut() : null;
    this.finished = true;
    return {
      chunk,
      summary: {
        prefix: this.prefix,
        object_count: this.count,
        total_bytes: this.bytes,
        keys_digest: this.count === 0 ? EMPTY_PREFIX_DIGEST : this.chain,
      },
    };
  }

  private cut(): ManifestChunk {
    if (this.hash === null) throw new ManifestError('invalid_entry', 'internal: cutting an empty chunk');
    this.chain = this.hash.digest('hex');
    const chunk: ManifestChunk = {
      chunk_no: this.chunkNo,
      prefix: this.prefix,
      entries: this.current,
      digest: this.chain,
    };
    this.chunkNo += 1;
    this.hash = null;
    this.current = [];
    return chunk;
  }
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Assembles the per-prefix summaries into the storage summary, checking that
 * they cover exactly the expected prefixes in byte order.
 */
export function buildStorageSummary(input: {
  chunkSize: number;
  expectedPrefixes: readonly string[];
  prefixes: readonly PrefixSummary[];
}): StorageSummary {
  const bad = (why: string): never => {
    throw new ManifestError('invalid_summary', why);
  };
  const { chunkSize, expectedPrefixes, prefixes } = input;
  if (!Number.isSafeInteger(chunkSize) || chunkSize < 1) bad(`chunk size must be a positive integer, got ${chunkSize}`);
  const expected = [...expectedPrefixes].sort(compareUtf8);
  const actual = prefixes.map((summary) => summary.prefix);
  for (let i = 1; i < actual.length; i++) {
    if (compareUtf8(actual[i - 1] as string, actual[i] as string) >= 0) bad(`prefixes are not strictly sorted: ${actual.join(', ')}`);
  }
  if (actual.length !== expected.length || actual.some((prefix, i) => prefix !== expected[i])) {
    bad(`prefixes ${actual.join(', ')} differ from the expected ${expected.join(', ')}`);
  }
  const out = prefixes.map((summary): PrefixSummary => {
    const { prefix, object_count, total_bytes, keys_digest } = summary;
    if (!Number.isSafeInteger(object_count) || object_count < 0) bad(`${prefix}: invalid object_count ${object_count}`);
    if (!Number.isSafeInteger(total_bytes) || total_bytes < 0) bad(`${prefix}: invalid total_bytes ${total_bytes}`);
    if (!HEX64.test(keys_digest)) bad(`${prefix}: keys_digest is not 64 lowercase hex`);
    if (object_count === 0 && (total_bytes !== 0 || keys_digest !== EMPTY_PREFIX_DIGEST)) {
      bad(`${prefix}: an empty prefix must have zero bytes and the empty digest`);
    }
    return { prefix, object_count, total_bytes, keys_digest };
  });
  return { version: STORAGE_SUMMARY_VERSION, chunk_size: chunkSize, prefixes: out };
}
