// S3 adapter: version listing of owned prefixes, explicit-version bulk
// deletes with strict outcome validation, and the absence proof. It refuses to
// list or delete outside a community's owned prefixes; only the fleet sweep
// may list the whole bucket, through its own function.

import {
  DeleteObjectsCommand,
  ListObjectVersionsCommand,
  S3Client,
  type DeleteObjectsCommandOutput,
  type ListObjectVersionsCommandOutput,
} from '@aws-sdk/client-s3';
import { DEFAULT_TIMEOUTS, type S3Config } from './config.js';
import { compareUtf8, type ManifestEntry, type SizedEntry } from './manifest.js';
import { isOwnedPrefixShape } from './taxonomy.js';
import {
  StorageError, TransientStorageError, PermanentStorageError, StorageScopeError, StorageNotEmptyError, S3_TRANSIENT_CODES, S3_PERMANENT_CODES, classifyS3Error, MAX_PAGE_SIZE, MAX_DELETE_BATCH,
} from './s3-errors.js';

export {
  StorageError, TransientStorageError, PermanentStorageError, StorageScopeError, StorageNotEmptyError, S3_TRANSIENT_CODES, S3_PERMANENT_CODES, classifyS3Error, MAX_PAGE_SIZE, MAX_DELETE_BATCH,
} from './s3-errors.js';

export function createS3Client(config: S3Config, options: { maxAttempts?: number } = {}): S3Client {
  const connectionTimeout = config.connectTimeoutMs ?? DEFAULT_TIMEOUTS.s3ConnectMs;
  const requestTimeout = config.requestTimeoutMs ?? DEFAULT_TIMEOUTS.s3RequestMs;
  return new S3Client({
    // Every request is bounded: a connect that does not complete, a socket
    // silent for requestTimeout, or a request not answered within it fails
    // with the SDK's TimeoutError (transient: S3_TRANSIENT_CODES), which the
    // SDK retries (maxAttempts) and then the executor records.
    requestHandler: { connectionTimeout, requestTimeout, socketTimeout: requestTimeout, throwOnRequestTimeout: true },
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: config.addressingStyle === 'path',
    ...(config.credentials === undefined ? {} : { credentials: config.credentials }),
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    // Checksums only where S3 demands them (DeleteObjects): S3-compatible
    // servers differ in their support for the newer default checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}


/**
 * The local name of an XML document's root element (after a byte-order mark,
 * the declaration, comments, a DOCTYPE and whitespace), or null when the text
 * does not start like an XML element (empty, JSON, plain text).
 */
export function xmlRootElement(text: string): string | null {
  let rest = text.replace(/^\uFEFF/, '');
  for (;;) {
    const skipped = rest.replace(/^\s+/, '').replace(/^<\?[\s\S]*?\?>/, '').replace(/^<!--[\s\S]*?-->/, '').replace(/^<!DOCTYPE[^>]*>/i, '');
    if (skipped === rest) break;
    rest = skipped;
  }
  const match = /^<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)[\s/>]/.exec(rest);
  return match ? (match[2] as string) : null;
}

/**
 * Make a successful (2xx) answer to `command` whose body is not an XML
 * document with root `root` fail with the transient `code` before the SDK
 * parses it: the SDK maps an unexpected root, an HTML page or an empty body
 * to an empty output, and an unparseable body to an error with HTTP status
 * 200 that classifies as permanent. Error answers (non-2xx) pass unchanged to
 * the SDK's own error handling.
 */
function requireResponseRoot(
  command: ListObjectVersionsCommand | DeleteObjectsCommand,
  client: S3Client,
  root: string,
  code: string,
  what: string,
): void {
  const collect = client.config.streamCollector;
  command.middlewareStack.addRelativeTo(
    ((next: (args: unknown) => Promise<{ response: unknown }>) => async (args: unknown) => {
      const result = await next(args);
      const response = result.response as { statusCode?: number; body?: unknown };
      const status = response.statusCode;
      if (typeof status !== 'number' || status < 200 || status >= 300) return result;
      const bytes = response.body instanceof Uint8Array ? response.body : response.body == null ? new Uint8Array() : await collect(response.body);
      response.body = bytes;
      const found = xmlRootElement(Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString('utf8'));
      if (found !== root) {
        const shown = found === null ? (bytes.byteLength === 0 ? 'an empty body' : 'a body that is not XML') : `root element <${found}>`;
        throw new TransientStorageError(code, `${what}: HTTP ${status} with ${shown}, not <${root}>: not an S3 answer to this request`, { httpStatus: status });
      }
      return result;
    }) as never,
    { relation: 'after', toMiddleware: 'deserializerMiddleware', name: `require${root}Root`, override: true },
  );
}

export interface ListOptions {
  /** ListObjectVersions MaxKeys, 1..1000 (small values exercise paging in tests). */
  pageSize?: number;
}

export interface VersionPage {
  /** The page's versions and delete markers, sorted canonically. */
  entries: SizedEntry[];
  /** Markers for the next request, or null on the last page. */
  next: { keyMarker: string; versionIdMarker: string } | null;
}

type ListingPage = Pick<
  ListObjectVersionsCommandOutput,
  'Name' | 'Prefix' | 'Versions' | 'DeleteMarkers' | 'IsTruncated' | 'NextKeyMarker' | 'NextVersionIdMarker'
>;

/**
 * Validate and normalise one ListObjectVersions page of `bucket` under
 * `prefix` ('' for the whole bucket). The page must echo the bucket (`Name`)
 * and the requested prefix (`Prefix`), as S3, MinIO and moto always do: a
 * 200 whose body is not a listing of this request (an HTML page from a proxy,
 * an empty body, an empty `<ListVersionsResult/>`) parses as a page without
 * entries, and taking it for one would prove a prefix empty that is not. A
 * truncated page must name both markers: guessing a continuation point could
 * skip versions.
 */
export function parseVersionPage(page: ListingPage, prefix: string, bucket: string): VersionPage {
  const malformed = (why: string): never => {
    throw new TransientStorageError('malformed_listing', `version listing of ${JSON.stringify(prefix)}: ${why}`);
  };
  if (page.Name !== bucket) {
    malformed(`the response names bucket ${page.Name === undefined ? 'nothing' : JSON.stringify(page.Name)}, not ${JSON.stringify(bucket)}: not a listing of this request`);
  }
  // Without a prefix in the request (the fleet sweep) S3 echoes an empty one.
  if ((prefix === '' ? page.Prefix ?? '' : page.Prefix) !== prefix) {
    malformed(`the response names prefix ${page.Prefix === undefined ? 'nothing' : JSON.stringify(page.Prefix)}: not a listing of this request`);
  }
  const entries: SizedEntry[] = [];
  for (const version of page.Versions ?? []) {
    const { Key: key, VersionId: versionId, Size: size } = version;
    if (key === undefined || versionId === undefined || versionId === '') malformed('an object version has no key or version id');
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) malformed(`object ${key} has no valid size`);
    entries.push({ key: key as string, version_id: versionId as string, kind: 'object', size: size as number });
  }
  for (const marker of page.DeleteMarkers ?? []) {
    const { Key: key, VersionId: versionId } = marker;
    if (key === undefined || versionId === undefined || versionId === '') malformed('a delete marker has no key or version id');
    entries.push({ key: key as string, version_id: versionId as string, kind: 'delete_marker', size: 0 });
  }
  for (const entry of entries) {
    if (!entry.key.startsWith(prefix)) malformed(`returned key ${JSON.stringify(entry.key)} outside the prefix`);
  }
  entries.sort((a, b) => compareUtf8(a.key, b.key) || compareUtf8(a.version_id, b.version_id));
  if (page.IsTruncated !== true) return { entries, next: null };
  const keyMarker = page.NextKeyMarker;
  const versionIdMarker = page.NextVersionIdMarker;
  if (!keyMarker && !versionIdMarker) malformed('truncated page has neither NextKeyMarker nor NextVersionIdMarker');
  if (!keyMarker) malformed('truncated page has no NextKeyMarker');
  if (!versionIdMarker) malformed('truncated page has no NextVersionIdMarker');
  return { entries, next: { keyMarker: keyMarker as string, versionIdMarker: versionIdMarker as string } };
}

export interface DeleteOutcome {
  /** Versions the store acknowledged as deleted. */
  deleted: number;
  /** Versions the store reported as not existing (NoSuchVersion/NoSuchKey). */
  alreadyMissing: number;
}

type DeleteResponse = Pick<DeleteObjectsCommandOutput, 'Deleted' | 'Errors'>;

const ALREADY_MISSING_CODES = new Set(['NoSuchVersion', 'NoSuchKey']);
const entryId = (key: string | undefined, versionId: string | undefined): string => `${key ?? '<no key>'}@${versionId ?? '<no version>'}`;

/**
 * Check that a DeleteObjects response accounts for exactly the requested
 * versions. Anything else (a version left unacknowledged, an acknowledgement
 * for something not asked for, a new delete marker, a per-key error) means
 * the store did not do what the frozen manifest says, so nothing may be
 * stamped as deleted.
 */
export function validateDeleteOutcome(requested: readonly ManifestEntry[], response: DeleteResponse): DeleteOutcome {
  const pending = new Set(requested.map((entry) => entryId(entry.key, entry.version_id)));
  const seen = new Set<string>();
  const problems: string[] = [];
  let deleted = 0;
  let alreadyMissing = 0;

  const claim = (id: string): boolean => {
    if (!pending.has(id)) {
      problems.push(`${seen.has(id) ? 'duplicate' : 'unexpected'} acknowledgement for ${id}`);
      return false;
    }
    pending.delete(id);
    seen.add(id);
    return true;
  };

  for (const ack of response.Deleted ?? []) {
    const id = entryId(ack.Key, ack.VersionId);
    if (ack.Key === undefined || ack.VersionId === undefined) {
      problems.push(`acknowledgement without key or version: ${id}`);
      continue;
    }
    if (!claim(id)) continue;
    // Deleting an explicit version never creates a marker; a different
    // marker version id means the store ignored our VersionId.
    if (ack.DeleteMarkerVersionId !== undefined && ack.DeleteMarkerVersionId !== ack.VersionId) {
      problems.push(`delete of ${id} created delete marker ${ack.DeleteMarkerVersionId}`);
      continue;
    }
    deleted += 1;
  }
  let permanentCode: string | undefined;
  for (const error of response.Errors ?? []) {
    const id = entryId(error.Key, error.VersionId);
    if (!claim(id)) continue;
    // Only an explicit NoSuchVersion/NoSuchKey counts as already deleted; an
    // error without a code proves nothing.
    if (error.Code !== undefined && ALREADY_MISSING_CODES.has(error.Code)) {
      alreadyMissing += 1;
    } else {
      if (error.Code !== undefined && S3_PERMANENT_CODES.has(error.Code)) permanentCode ??= error.Code;
      problems.push(`${id}: ${error.Code ?? 'no error code'}: ${error.Message ?? ''}`);
    }
  }
  if (pending.size > 0) {
    problems.push(`${pending.size} of ${requested.length} requested versions were not acknowledged (first: ${pending.values().next().value})`);
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join('; ');
    const message = `bulk delete outcome rejected (${problems.length} problem(s)): ${shown}${problems.length > 5 ? '; …' : ''}`;
    // A per-key code that can never succeed (AccessDenied, …) makes the
    // whole outcome permanent; anything else — throttling, an internal
    // error, a key error without a code, an unaccounted version — is retried.
    if (permanentCode !== undefined) throw new PermanentStorageError(permanentCode, message);
    throw new TransientStorageError('delete_outcome', message, { problems });
  }
  return { deleted, alreadyMissing };
}

function assertOwnedPrefix(prefix: string): void {
  if (!isOwnedPrefixShape(prefix)) {
    throw new StorageScopeError('outside_owned_prefix', `refusing to act on ${JSON.stringify(prefix)}: not an owned community prefix`);
  }
}

function pageSizeOf(options: ListOptions): number {
  const size = options.pageSize ?? MAX_PAGE_SIZE;
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new RangeError(`page size must be between 1 and ${MAX_PAGE_SIZE}, got ${size}`);
  }
  return size;
}

export interface S3StoreOptions {
  /**
   * The signal of the effect in progress (the executor's: aborted on
   * shutdown, a lost lease or a step deadline); every request is sent with
   * it, so an abandoned request is cut off rather than left running.
   */
  signal?: () => AbortSignal | undefined;
}

export class S3Store {
  constructor(
    readonly client: S3Client,
    readonly bucket: string,
    private readonly options: S3StoreOptions = {},
  ) {}

  private sendOptions(): { abortSignal?: AbortSignal } {
    const signal = this.options.signal?.();
    return signal === undefined ? {} : { abortSignal: signal };
  }

  /** Every version and delete marker under one owned prefix, in canonical order. */
  listVersions(prefix: string, options: ListOptions = {}): AsyncGenerator<SizedEntry> {
    assertOwnedPrefix(prefix);
    return this.list(prefix, pageSizeOf(options));
  }

  /** Fleet sweep only: every version in the bucket, in canonical order. */
  listWholeBucket(options: ListOptions = {}): AsyncGenerator<SizedEntry> {
    return this.list('', pageSizeOf(options));
  }

  /** One ListObjectVersions request per owned prefix, to prove list permission early. */
  async preflight(prefixes: readonly string[]): Promise<void> {
    for (const prefix of prefixes) assertOwnedPrefix(prefix);
    for (const prefix of prefixes) await this.page(prefix, 1, undefined);
  }

  /**
   * `deletions doctor` only (read-only): one ListObjectVersions page of at
   * most one entry under any prefix, validated like every listing (a 200 that
   * is not a listing of the request fails).
   */
  async probeListing(prefix: string): Promise<void> {
    await this.page(prefix, 1, undefined);
  }

  /** Number of versions and delete markers still under an owned prefix. */
  async countRemaining(prefix: string): Promise<number> {
    let count = 0;
    for await (const _entry of this.listVersions(prefix)) count += 1;
    return count;
  }

  /** The absence proof: no version and no delete marker under the prefix. */
  async assertPrefixEmpty(prefix: string): Promise<void> {
    assertOwnedPrefix(prefix);
    const page = await this.page(prefix, 1, undefined);
    const first = page.entries[0];
    if (first !== undefined) throw new StorageNotEmptyError(prefix, first);
    if (page.next !== null) {
      throw new TransientStorageError('malformed_listing', `listing of ${prefix} returned no entries but claims more`);
    }
  }

  /**
   * Delete exactly these versions (never a bare key, which would only add a
   * delete marker) in requests of at most 1000, validating each response.
   */
  async deleteVersions(prefix: string, entries: readonly ManifestEntry[]): Promise<DeleteOutcome & { requests: number }> {
    assertOwnedPrefix(prefix);
    const ids = new Set<string>();
    for (const entry of entries) {
      if (!entry.key.startsWith(prefix) || entry.key === prefix) {
        throw new StorageScopeError('foreign_key', `refusing to delete ${JSON.stringify(entry.key)}: outside ${prefix}`);
      }
      if (!entry.version_id) {
        throw new StorageScopeError('missing_version', `refusing to delete ${entry.key} without an explicit version id`);
      }
      const id = entryId(entry.key, entry.version_id);
      if (ids.has(id)) throw new StorageScopeError('duplicate_entry', `duplicate delete request for ${id}`);
      ids.add(id);
    }
    const total: DeleteOutcome & { requests: number } = { deleted: 0, alreadyMissing: 0, requests: 0 };
    for (let start = 0; start < entries.length; start += MAX_DELETE_BATCH) {
      const batch = entries.slice(start, start + MAX_DELETE_BATCH);
      let response: DeleteObjectsCommandOutput;
      try {
        const command = new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Quiet: false, Objects: batch.map((entry) => ({ Key: entry.key, VersionId: entry.version_id })) },
        });
        requireResponseRoot(command, this.client, 'DeleteResult', 'delete_outcome', `bulk delete under ${JSON.stringify(prefix)}`);
        response = await this.client.send(command, this.sendOptions());
      } catch (error) {
        throw classifyS3Error(error, 'DeleteObjects');
      }
      total.requests += 1;
      const outcome = validateDeleteOutcome(batch, response);
      total.deleted += outcome.deleted;
      total.alreadyMissing += outcome.alreadyMissing;
    }
    return total;
  }

  private async page(prefix: string, pageSize: number, markers: VersionPage['next'] | undefined): Promise<VersionPage> {
    let response: ListObjectVersionsCommandOutput;
    try {
      const command = new ListObjectVersionsCommand({
        Bucket: this.bucket,
        Prefix: prefix === '' ? undefined : prefix,
        MaxKeys: pageSize,
        KeyMarker: markers?.keyMarker,
        VersionIdMarker: markers?.versionIdMarker,
      });
      requireResponseRoot(command, this.client, 'ListVersionsResult', 'malformed_listing', `version listing of ${JSON.stringify(prefix)}`);
      response = await this.client.send(command, this.sendOptions());
    } catch (error) {
      throw classifyS3Error(error, 'ListObjectVersions');
    }
    return parseVersionPage(response, prefix, this.bucket);
  }

  // S3 lists keys in byte order but a key's versions newest first, while the
  // manifest orders versions by id. Only the current key's versions are held
  // back (a key can straddle pages), so memory is one page plus one key.
  private async *list(prefix: string, pageSize: number): AsyncGenerator<SizedEntry> {
    let markers: VersionPage['next'] | undefined;
    let held: SizedEntry[] = [];
    let heldKey: string | null = null;
    const release = function* (): Generator<SizedEntry> {
      held.sort((a, b) => compareUtf8(a.version_id, b.version_id));
      for (let i = 1; i < held.length; i++) {
        if ((held[i - 1] as SizedEntry).version_id === (held[i] as SizedEntry).version_id) {
          throw new TransientStorageError('malformed_listing', `listing returned ${heldKey}@${(held[i] as SizedEntry).version_id} twice`);
        }
      }
      yield* held;
      held = [];
    };
    for (;;) {
      const page = await this.page(prefix, pageSize, markers);
      for (const entry of page.entries) {
        if (heldKey !== null && entry.key !== heldKey) {
          if (compareUtf8(entry.key, heldKey) < 0) {
            throw new TransientStorageError(
              'malformed_listing',
              `listing went backwards: ${JSON.stringify(entry.key)} after ${JSON.stringify(heldKey)}`,
            );
          }
          yield* release();
        }
        heldKey = entry.key;
        held.push(entry);
      }
      if (page.next === null) break;
      if (markers && page.next.keyMarker === markers.keyMarker && page.next.versionIdMarker === markers.versionIdMarker) {
        throw new TransientStorageError('malformed_listing', `listing of ${JSON.stringify(prefix)} did not advance past ${page.next.keyMarker}`);
      }
      markers = page.next;
    }
    yield* release();
  }
}

export function createS3Store(config: S3Config, options: { maxAttempts?: number } & S3StoreOptions = {}): S3Store {
  const { signal, ...clientOptions } = options;
  return new S3Store(createS3Client(config, clientOptions), config.bucket, signal === undefined ? {} : { signal });
}
