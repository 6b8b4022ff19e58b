// The S3 adapter's error types, its error classification and its batch
// limits: no AWS SDK code, so a module that only classifies or refuses (the
// CLI's exit codes, the executor) does not load the SDK (src/s3.ts re-exports
// all of it).
import type { ManifestEntry } from './manifest.js';
import { NETWORK_ERRNO } from './failures.js';

export abstract class StorageError extends Error {
  /** S3 error code or one of this module's own codes. */
  readonly code: string;
  readonly httpStatus: number | undefined;
  /** Whether a later attempt may succeed (src/failures.ts). */
  abstract readonly transient: boolean;

  constructor(code: string, message: string, options: { cause?: unknown; httpStatus?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.httpStatus = options.httpStatus;
  }
}

/** Worth retrying: throttling, 5xx, network, an inconsistent response. */
export class TransientStorageError extends StorageError {
  override readonly name: string = 'TransientStorageError';
  readonly transient = true;
  /** Individual problems when one response had several (bulk delete outcome). */
  readonly problems: readonly string[];

  constructor(code: string, message: string, options: { cause?: unknown; httpStatus?: number; problems?: readonly string[] } = {}) {
    super(code, message, options);
    this.problems = options.problems ?? [];
  }
}

/** Retrying cannot help: permissions, missing bucket, a request outside scope. */
export class PermanentStorageError extends StorageError {
  override readonly name: string = 'PermanentStorageError';
  readonly transient = false;
}

/** Refused before any request: the operation would leave the owned prefixes. */
export class StorageScopeError extends PermanentStorageError {
  override readonly name: string = 'StorageScopeError';
}

/** The absence proof found a retained version or delete marker. */
export class StorageNotEmptyError extends TransientStorageError {
  override readonly name: string = 'StorageNotEmptyError';
  readonly entry: ManifestEntry;

  constructor(prefix: string, entry: ManifestEntry) {
    super('prefix_not_empty', `${prefix} still holds ${entry.kind} ${entry.key}@${entry.version_id}`);
    this.entry = { key: entry.key, version_id: entry.version_id, kind: entry.kind };
  }
}

/**
 * AWS SDK v3 error codes (the exception's name, or a per-key Code) that a
 * later attempt may get past: throttling, the service busy or failing,
 * timeouts, an aborted operation.
 */
export const S3_TRANSIENT_CODES = new Set([
  'SlowDown', 'Throttling', 'ThrottlingException', 'ThrottledException', 'RequestThrottled', 'RequestLimitExceeded',
  'TooManyRequestsException', 'BandwidthLimitExceeded', 'InternalError', 'ServiceUnavailable', 'ServiceException',
  'RequestTimeout', 'RequestTimeoutException', 'TimeoutError', 'OperationAborted', 'RequestTimeTooSkewed',
]);

/** Codes that mean the request can never succeed as configured: permissions, a missing bucket, a malformed request. */
export const S3_PERMANENT_CODES = new Set([
  'AccessDenied', 'AccountProblem', 'AllAccessDisabled', 'AuthorizationHeaderMalformed', 'CredentialsProviderError',
  'ExpiredToken', 'InvalidAccessKeyId', 'InvalidBucketName', 'InvalidToken', 'InvalidArgument', 'InvalidRequest',
  'MalformedXML', 'MethodNotAllowed', 'NoSuchBucket', 'NotImplemented', 'PermanentRedirect', 'SignatureDoesNotMatch',
]);

/**
 * Classify an SDK error by its code (the exception's name) and HTTP status,
 * never its message: a listed code decides; otherwise 5xx, 408 and 429 are
 * transient and any other HTTP status permanent; without a response, a
 * socket errno (connection refused/reset, DNS) is transient; anything else is
 * permanent (fail closed).
 */
export function classifyS3Error(error: unknown, operation: string): StorageError {
  if (error instanceof StorageError) return error;
  const fields = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    Code?: unknown;
    code?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  const code = typeof fields.Code === 'string' ? fields.Code : typeof fields.name === 'string' ? fields.name : 'UnknownError';
  const status = typeof fields.$metadata?.httpStatusCode === 'number' ? fields.$metadata.httpStatusCode : undefined;
  const errno = typeof fields.code === 'string' ? fields.code : undefined;
  const detail = error instanceof Error ? error.message : String(error);
  const message = `S3 ${operation} failed: ${errno ?? code}${status === undefined ? '' : ` (HTTP ${status})`}: ${detail}`;
  const options = status === undefined ? { cause: error } : { cause: error, httpStatus: status };
  const transient =
    S3_TRANSIENT_CODES.has(code) ? true
    : S3_PERMANENT_CODES.has(code) ? false
    : status !== undefined ? status >= 500 || status === 408 || status === 429
    : errno !== undefined && NETWORK_ERRNO.has(errno);
  return transient ? new TransientStorageError(errno ?? code, message, options) : new PermanentStorageError(errno ?? code, message, options);
}

export const MAX_PAGE_SIZE = 1000;
export const MAX_DELETE_BATCH = 1000;
