// Operator commands: submit, list, inspect, approve, abort, unblock, status.
// Each is one SQL call (submit adds the storage enumeration the database
// cannot do itself); every rule lives in the SQL function it calls. The CLI
// refuses malformed input up front (exit 2, naming the flag; see args.ts)
// and shows every stored text with its control characters escaped.
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { ConfigError, loadRedisConfig, loadS3Config, loadTuning, type S3Config } from '../config.js';
import { enumerateOwnedStorage, loadTaxonomy } from '../inventory.js';
import type { EngineClient, Inspection, RequestListRow } from '../engine.js';
import { CliError, exitCodeFor, run, withEngine, type Output } from './common.js';
import { EXIT } from './exit-codes.js';
import { Progress, dateText, escapeControl, isoUtc, keyValues, normalizeJson, table, text } from './format.js';
import { LIMITS, optionalText, parseDuration, parseIntegerOption, requireIdentity, requireText, textOrFile } from './args.js';
import { reviewView } from './inventory-view.js';

const REQUEST_KEYS = [
  'id', 'community_id', 'community_host', 'stage', 'requested_by', 'reason', 'inventory_digest',
  'fence_generation', 'lease_owner', 'lease_until', 'attempts', 'retry_count', 'next_attempt_at',
  'blocked_reason', 'created_at', 'completed_at',
];

/** The state words of community_deletion.inspect / list_requests. */
export const STATES = [
  'waiting_for_inventory', 'waiting_for_approval', 'grace_period', 'runnable', 'leased', 'retry_wait', 'blocked', 'completed', 'aborted',
] as const;
const TERMINAL_STATES = new Set(['completed', 'aborted']);

const uuidArg = { type: 'string', demandOption: true, describe: 'deletion request id (uuid)' } as const;
const textFileDescribe = (what: string) => `read ${what} from this file (- reads stdin); instead of --${what}`;

export function requireUuid(value: unknown, what = 'request id', flag = 'ID'): string {
  const text = String(value);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)) {
    throw new CliError(`${what} ${escapeControl(JSON.stringify(text))} is not a UUID`, EXIT.usage, { flag });
  }
  return text.toLowerCase();
}

/**
 * --host when it is given; the authority of RELAY_URL only when --host is
 * absent. A --host that is given but empty or blank (an unset shell
 * variable) is a usage error, never a fallback to the relay's own community.
 */
export function resolveHost(host: unknown, relayUrl = process.env.RELAY_URL): string {
  if (host !== undefined) {
    const text = String(host).trim();
    if (text === '') throw new CliError('--host is empty: name the community explicitly', EXIT.usage, { flag: '--host' });
    if (/[\u0000-\u001f\u007f-\u009f]/u.test(text)) throw new CliError('--host contains control characters', EXIT.usage, { flag: '--host' });
    if (Buffer.byteLength(text) > LIMITS.host) throw new CliError(`--host is longer than ${LIMITS.host} bytes`, EXIT.usage, { flag: '--host' });
    return text;
  }
  const relay = relayUrl?.trim();
  if (relay) {
    try {
      return new URL(relay).host;
    } catch {
      throw new CliError(`RELAY_URL ${JSON.stringify(relay)} is not a URL`, EXIT.config, { variable: 'RELAY_URL' });
    }
  }
  throw new CliError('name the community with --host (or set RELAY_URL)', EXIT.usage, { flag: '--host' });
}

/** --delay as a PostgreSQL interval (whole seconds); malformed → exit 2 naming --delay. */
export function parseDelay(value: unknown): string {
  return `${parseDuration(value, '--delay')} seconds`;
}

/** --not-before: an ISO 8601 time with a zone (2026-12-24T09:00Z); anything else → exit 2. */
export function parseNotBefore(value: unknown): Date {
  const text = String(value).trim();
  const d = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(text) || Number.isNaN(d.getTime())) {
    throw new CliError(`--not-before ${escapeControl(JSON.stringify(text))} is not an ISO 8601 time with a zone (e.g. 2026-12-24T09:00Z)`, EXIT.usage, { flag: '--not-before' });
  }
  return d;
}

// ---- submit ---------------------------------------------------------------

const PREFLIGHT_TIMEOUT_MS = 15_000;

/** HeadBucket with the configured credentials: the bucket exists and answers us. */
export async function checkBucket(config: S3Config): Promise<void> {
  const [{ HeadBucketCommand }, { createS3Client }] = await Promise.all([import('@aws-sdk/client-s3'), import('../s3.js')]);
  const client = createS3Client(config, { maxAttempts: 1 });
  try {
    await client.send(new HeadBucketCommand({ Bucket: config.bucket }), { abortSignal: AbortSignal.timeout(PREFLIGHT_TIMEOUT_MS) });
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const why =
      status === 404 ? `bucket ${config.bucket} does not exist`
      : status === 403 ? `access to bucket ${config.bucket} is denied (wrong BUZZ_S3_ACCESS_KEY/BUZZ_S3_SECRET_KEY, or no permission)`
      : status === 301 || status === 400 ? `bucket ${config.bucket} refused the request (HTTP ${status}: wrong BUZZ_S3_REGION or addressing style?)`
      : `S3 at ${config.endpoint} is unreachable or failed (${(error as Error).name}: ${(error as Error).message})`;
    throw new CliError(`S3 check failed: ${why}`, EXIT.config, { variable: status === 404 ? 'BUZZ_S3_BUCKET' : status === 403 ? 'BUZZ_S3_ACCESS_KEY' : 'BUZZ_S3_ENDPOINT' });
  } finally {
    client.destroy();
  }
}

/**
 * PING on REDIS_URL: the executor will need it, so a request is not created
 * while it is unreachable — nor recorded against a database the server
 * refuses (verifyRedisDatabase: RedisDatabaseError, exit 5).
 */
export async function checkRedis(url: string): Promise<void> {
  const { createRedisClient, verifyRedisDatabase } = await import('../redis.js');
  const client = createRedisClient({ url });
  client.on('error', () => {});
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.ping().then(() => verifyRedisDatabase(client)),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${PREFLIGHT_TIMEOUT_MS} ms`)), PREFLIGHT_TIMEOUT_MS);
      }),
    ]);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new CliError(`Redis check failed: ${redactUrl(url)} is unreachable (${(error as Error).message})`, EXIT.config, { variable: 'REDIS_URL' });
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'REDIS_URL';
  }
}

/** What to do with a request left at submitted/inventoried by a failed or interrupted submit. */
function strandedHint(requestId: string, host: string, requestedBy: string): { resume: string; withdraw: string } {
  return {
    resume: `deletions submit --host ${host} --requested-by ${requestedBy} (the same requester resumes request ${requestId}); see deletions inspect ${requestId}`,
    withdraw: `deletions abort ${requestId} --aborted-by ${requestedBy} --reason "…" (withdraws it; SQL: community_deletion.abort)`,
  };
}

type SubmitArgs = { host?: string; 'requested-by': string; reason?: string; 'reason-file'?: string };
export const submitCommand: CommandModule<object, SubmitArgs> = {
  command: 'submit',
  describe: 'Submit a deletion request and freeze its inventory (PostgreSQL counts + S3 summary)',
  builder: (y: Argv) =>
    y
      .option('host', { type: 'string', describe: 'community host (default, only when --host is absent: authority of RELAY_URL)' })
      .option('requested-by', { type: 'string', demandOption: true, describe: `operator identity of the requester (≤ ${LIMITS.identity} bytes, no control characters)` })
      .option('reason', { type: 'string', describe: `why the community is deleted (≤ ${LIMITS.text} bytes)` })
      .option('reason-file', { type: 'string', nargs: 1, describe: textFileDescribe('reason') }) as Argv<SubmitArgs>,
  handler: (args) =>
    run(async (out) => {
      // Everything that can be checked is checked before the request exists.
      const host = resolveHost(args.host);
      const requestedBy = requireIdentity(args['requested-by'], '--requested-by');
      const reason = optionalText(textOrFile(args.reason, args['reason-file'], '--reason'), args['reason-file'] === undefined ? '--reason' : '--reason-file');
      const s3 = loadS3Config();
      const tuning = loadTuning();
      const redis = loadRedisConfig();
      // The stores the inventory is recorded against, computed and checked
      // before the request exists: a store identity SQL would refuse at the
      // freeze must not leave a request behind at submitted.
      const { storeIdentityFromConfig } = await import('../store-identity.js');
      const stores = storeIdentityFromConfig(s3, redis);
      await checkBucket(s3);
      await checkRedis(redis.url);
      await withEngine('deletions-cli', async (engine) => {
        const taxonomy = await loadTaxonomy(engine);
        let request = await engine.submit({ host, requestedBy, reason: reason ?? null });
        out.log(`request ${String(request.id)} for ${host} is ${String(request.stage)}`);
        if (request.stage !== 'submitted') {
          out.result(request, `${keyValues(request, REQUEST_KEYS)}\n\n${reviewView(request)}`);
          return;
        }
        const id = String(request.id);
        const hint = strandedHint(id, host, requestedBy);
        const onSignal = (signal: NodeJS.Signals) => {
          const message = `${signal}: interrupted during the inventory; request ${id} stays submitted. Resume: ${hint.resume}. Withdraw: ${hint.withdraw}`;
          if (out.json) process.stdout.write(`${JSON.stringify({ error: message, request_id: id, exit_code: signal === 'SIGINT' ? 130 : 143, ...hint })}\n`);
          out.log(message);
          process.exit(signal === 'SIGINT' ? 130 : 143);
        };
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        // `stores` (computed above) is recorded with the inventory: every executor step must use these stores.
        const { createS3Store } = await import('../s3.js');
        const store = createS3Store(s3);
        try {
          const progress = new Progress();
          const summary = await enumerateOwnedStorage(store, taxonomy, String(request.community_id), {
            chunkSize: tuning.chunkSize,
            onEntry: (prefix, n) => progress.update(`enumerating object versions in ${prefix}`, n),
          });
          progress.done();
          request = await engine.freezeInventory({ requestId: id, storageSummary: summary, storeIdentity: stores });
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          throw new CliError(`${message} — request ${id} stays submitted. Resume: ${hint.resume}. Withdraw: ${hint.withdraw}`, exitCodeFor(error), {
            request_id: id, ...hint,
          });
        } finally {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          store.client.destroy();
        }
        out.log(`inventory frozen: digest ${String(request.inventory_digest)}`);
        out.result(request, `${keyValues(request, REQUEST_KEYS)}\n\n${reviewView(request)}`);
      });
    }),
};

// ---- watch ----------------------------------------------------------------

/**
 * Re-reads `read` every interval until `done` holds or SIGINT/SIGTERM:
 * on a terminal the screen is redrawn; in JSON mode one JSON document is
 * printed per change (NDJSON).
 */
async function watch<T>(out: Output, intervalMs: number, read: () => Promise<T>, render: (value: T) => string, done: (value: T) => boolean): Promise<void> {
  let stop = false;
  let wake: (() => void) | undefined;
  const onSignal = () => {
    stop = true;
    wake?.();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    let last: string | undefined;
    while (!stop) {
      const value = await read();
      const serialized = JSON.stringify(normalizeJson(value));
      if (serialized !== last) {
        last = serialized;
        if (out.json) process.stdout.write(`${serialized}\n`);
        else process.stdout.write(`\x1b[H\x1b[2J${render(value)}\n\n(refreshing every ${intervalMs / 1000} s; Ctrl-C stops)\n`);
      }
      if (done(value)) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, intervalMs);
      });
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

const watchOptions = (y: Argv) =>
  y
    .option('watch', { type: 'boolean', describe: 'refresh until the request is terminal (Ctrl-C stops); JSON mode prints one document per change' })
    .option('interval', { type: 'string', default: '2s', describe: 'refresh interval for --watch (e.g. 2s, 1m)' });

function intervalMs(value: unknown): number {
  const seconds = parseDuration(value, '--interval', 3600);
  if (seconds < 1) throw new CliError('--interval must be at least 1s', EXIT.usage, { flag: '--interval' });
  return seconds * 1000;
}

// ---- list -----------------------------------------------------------------

/** Columns of `list` on a terminal: fits 100 columns (request ids are never cut). */
export const LIST_COLUMNS = ['request_id', 'community_host', 'state', 'created_at'] as const;
export const LIST_WIDE_COLUMNS = [
  'request_id', 'community_host', 'stage', 'state', 'requested_by', 'approved_by', 'created_at', 'next_attempt_at', 'explanation',
] as const;
const LIST_MAX_WIDTHS = { community_host: 18, state: 21 };

/** `list` for a terminal: narrow (≤ 100 columns, long cells cut with …) or --wide (every column, in full). */
export function listTable(rows: readonly RequestListRow[], wide: boolean): string {
  if (wide) return table(rows, LIST_WIDE_COLUMNS);
  const narrow = rows.map((r) => ({ ...r, created_at: minuteUtc(r.created_at) }));
  return table(narrow, LIST_COLUMNS, { maxWidths: LIST_MAX_WIDTHS });
}

/** A time to the minute in UTC; one no Date can hold (`infinity`, an Invalid Date) as text() prints it. */
export function minuteUtc(d: Date | string): string {
  if (typeof d === 'string') {
    const iso = isoUtc(d);
    return iso === undefined ? text(d) : `${iso.slice(0, 16)}Z`;
  }
  return Number.isNaN(d.getTime()) ? dateText(d) : `${d.toISOString().slice(0, 16)}Z`;
}

type ListArgs = { limit: string; state?: string; host?: string; before?: string; wide?: boolean; watch?: boolean; interval: string };
export const listCommand: CommandModule<object, ListArgs> = {
  command: 'list',
  describe: 'List deletion requests, newest first (filter by state/host; page with --before)',
  builder: (y: Argv) =>
    watchOptions(
      y
        .option('limit', { type: 'string', default: '100', describe: 'at most this many (1..1000)' })
        .option('state', { type: 'string', choices: STATES as unknown as string[], describe: 'only requests in this state' })
        .option('host', { type: 'string', describe: 'only requests of this community host' })
        .option('before', { type: 'string', describe: 'only requests older than this request id (the last id of the previous page)' })
        .option('wide', { type: 'boolean', describe: 'every column, untruncated (default: fits 100 columns)' }),
    ) as unknown as Argv<ListArgs>,
  handler: (args) =>
    run(async (out) => {
      const limit = parseIntegerOption(args.limit, '--limit', 1, 1000);
      const before = args.before === undefined ? null : requireUuid(args.before, '--before', '--before');
      const host = args.host === undefined ? null : resolveHost(args.host);
      const filter = { state: args.state ?? null, host, before };
      const wide = Boolean(args.wide);
      const interval = intervalMs(args.interval);
      const render = (rows: RequestListRow[]) => {
        const more = rows.length === limit ? `\n\nmore: deletions list --before ${rows[rows.length - 1]!.request_id}${args.state ? ` --state ${args.state}` : ''}${host ? ` --host ${escapeControl(host)}` : ''}` : '';
        return `${listTable(rows, wide)}${more}`;
      };
      await withEngine('deletions-cli', async (engine) => {
        if (args.watch) {
          await watch(out, interval, () => engine.listRequests(limit, filter), render, () => false);
          return;
        }
        const rows = await engine.listRequests(limit, filter);
        out.result(rows, render(rows));
      });
    }),
};

// ---- inspect --------------------------------------------------------------

/** What an operator can do next, as CLI commands (and the SQL function each calls). */
export function nextStep(inspection: Inspection): string | null {
  const r = inspection.request as Record<string, unknown>;
  const id = String(r.id);
  const abort = `deletions abort ${id} --aborted-by WHO --reason "…" (SQL: community_deletion.abort)`;
  switch (inspection.state) {
    case 'waiting_for_inventory':
      return `resume: deletions submit --host ${String(r.community_host)} --requested-by ${String(r.requested_by)} (SQL: community_deletion.freeze_inventory); withdraw: ${abort}`;
    case 'waiting_for_approval':
      return r.stage === 'inventoried'
        ? `approve (an operator other than ${String(r.requested_by)}): deletions approve ${id} --approved-by WHO (SQL: community_deletion.approve); withdraw: ${abort}`
        : `no approval matches this request: ${abort}`;
    case 'grace_period':
      return `nothing runs before the grace period ends; then deletions run ${id} or a worker claims it; cancel: ${abort}`;
    case 'runnable':
      return `deletions run ${id} (or a running deletions worker claims it)`;
    case 'leased':
      return `an executor is working on it: follow with deletions inspect ${id} --watch`;
    case 'retry_wait':
      return `retried automatically after next_attempt_at (deletions run ${id}, or a worker)`;
    case 'blocked':
      return `remediate the cause, then deletions unblock ${id} --unblocked-by WHO --reason "…" (SQL: community_deletion.unblock)`;
    default:
      return null;
  }
}

function inspectHuman(
  inspection: Inspection & { schema_version: number | null; next_step: string | null; object_versions: { deleted: number; total: number } },
): string {
  const v = inspection.object_versions;
  return [
    `${inspection.state}: ${escapeControl(inspection.explanation)}`,
    ...(inspection.next_step ? [`next: ${escapeControl(inspection.next_step)}`] : []),
    ...(v.total > 0 ? [progressBar(v.deleted, v.total, 'object versions deleted')] : []),
    '',
    keyValues(inspection.request, REQUEST_KEYS),
    '',
    reviewView(inspection.request),
    '',
    'approval:',
    inspection.approval ? keyValues(inspection.approval) : '(none)',
    '',
    'checkpoints:',
    table(inspection.checkpoints, ['stage', 'unit_key', 'status', 'attempts', 'lease_generation', 'error', 'completed_at'], { maxWidths: { error: 60 } }),
    '',
    `engine schema version: ${inspection.schema_version}`,
  ].join('\n');
}

async function readInspection(engine: EngineClient, id: string, schemaVersion: number | null) {
  const inspection = await engine.inspect(id);
  // Object versions of the frozen destructive manifest deleted so far (0/0 before the freeze and after verification).
  const p = await engine.keyChunkProgress(id);
  const object_versions = { deleted: p.entriesDeleted, total: p.entriesTotal };
  return { ...inspection, object_versions, next_step: nextStep(inspection), schema_version: schemaVersion };
}

/** A text progress bar: `[#####.....] 50/100 label`. */
export function progressBar(done: number, total: number, label: string, width = 30): string {
  const filled = total > 0 ? Math.round((Math.min(done, total) / total) * width) : 0;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${label}`;
}

type InspectArgs = { id: string; watch?: boolean; interval: string };
export const inspectCommand: CommandModule<object, InspectArgs> = {
  command: 'inspect <id>',
  describe: 'Show a request, its approval, every checkpoint, why it is (not) progressing and what to do next',
  builder: (y: Argv) => watchOptions(y.positional('id', uuidArg)) as unknown as Argv<InspectArgs>,
  handler: (args) =>
    run(async (out) => {
      const id = requireUuid(args.id);
      const interval = intervalMs(args.interval);
      await withEngine('deletions-cli', async (engine) => {
        const schemaVersion = await engine.schemaVersion();
        if (args.watch) {
          await watch(out, interval, () => readInspection(engine, id, schemaVersion), inspectHuman, (v) => TERMINAL_STATES.has(v.state));
          return;
        }
        const inspection = await readInspection(engine, id, schemaVersion);
        out.result(inspection, inspectHuman(inspection));
      });
    }),
};

// ---- approve / abort / unblock ---------------------------------------------

type ApproveArgs = { id: string; 'approved-by': string; note?: string; 'note-file'?: string; 'not-before'?: string; delay?: string; digest?: string };
export const approveCommand: CommandModule<object, ApproveArgs> = {
  command: 'approve <id>',
  describe: 'Approve the exact frozen inventory (a different operator than the requester)',
  builder: (y: Argv) =>
    y
      .positional('id', uuidArg)
      .option('approved-by', { type: 'string', demandOption: true, describe: `operator identity of the approver (≤ ${LIMITS.identity} bytes, no control characters)` })
      .option('note', { type: 'string', describe: `approval note (≤ ${LIMITS.text} bytes)` })
      .option('note-file', { type: 'string', nargs: 1, describe: textFileDescribe('note') })
      .option('not-before', { type: 'string', describe: 'earliest execution time (ISO 8601 with a zone, e.g. 2026-12-24T09:00Z)' })
      .option('delay', { type: 'string', describe: 'grace period before execution: 90s, 30m, 24h, 7d, 1h30m, "2 days"' })
      .option('digest', { type: 'string', describe: 'the inventory digest you reviewed (at least its first 8 hex digits); refused if it is not the frozen one' })
      .conflicts('not-before', 'delay') as Argv<ApproveArgs>,
  handler: (args) =>
    run(async (out) => {
      const id = requireUuid(args.id);
      const approvedBy = requireIdentity(args['approved-by'], '--approved-by');
      const note = optionalText(textOrFile(args.note, args['note-file'], '--note'), args['note-file'] === undefined ? '--note' : '--note-file');
      const notBefore = args['not-before'] === undefined ? null : parseNotBefore(args['not-before']);
      const delay = args.delay === undefined ? null : parseDelay(args.delay);
      await withEngine('deletions-cli', async (engine) => {
        const request = await engine.approve({ requestId: id, approvedBy, note: note ?? null, notBefore, delay, digest: args.digest ?? null });
        out.result(request, `${keyValues(request, REQUEST_KEYS)}\n\n${reviewView(request)}`);
      });
    }),
};

type ActionArgs = { id: string; reason?: string; 'reason-file'?: string } & Record<string, unknown>;
function operatorAction(name: 'abort' | 'unblock', describe: string): CommandModule<object, ActionArgs> {
  const byFlag = name === 'abort' ? 'aborted-by' : 'unblocked-by';
  return {
    command: `${name} <id>`,
    describe,
    builder: (y: Argv) =>
      y
        .positional('id', uuidArg)
        .option(byFlag, { type: 'string', demandOption: true, describe: `operator identity (≤ ${LIMITS.identity} bytes, no control characters)` })
        .option('reason', { type: 'string', describe: `why (kept in the audit checkpoint; ≤ ${LIMITS.text} bytes); --reason or --reason-file is required` })
        .option('reason-file', { type: 'string', nargs: 1, describe: textFileDescribe('reason') }) as unknown as Argv<ActionArgs>,
    handler: (args: ArgumentsCamelCase<ActionArgs>) =>
      run(async (out) => {
        const id = requireUuid(args.id);
        const by = requireIdentity(args[byFlag], `--${byFlag}`);
        const reason = requireText(textOrFile(args.reason, args['reason-file'], '--reason'), args['reason-file'] === undefined ? '--reason' : '--reason-file');
        await withEngine('deletions-cli', async (engine) => {
          const request =
            name === 'abort'
              ? await engine.abort({ requestId: id, abortedBy: by, reason })
              : await engine.unblock({ requestId: id, unblockedBy: by, reason });
          out.result(request, keyValues(request, REQUEST_KEYS));
        });
      }),
  };
}

export const abortCommand = operatorAction(
  'abort',
  'Abort a request before it is purged: withdraws it at submitted/inventoried, un-fences at approved/fenced; the community stays or becomes active',
);
export const unblockCommand = operatorAction('unblock', 'Clear a durable block after remediating its cause');

// ---- status ---------------------------------------------------------------

export const statusCommand: CommandModule = {
  command: 'status',
  describe: 'Queue overview: requests by state, and what needs an operator',
  handler: () =>
    run(async (out) => {
      await withEngine('deletions-cli', async (engine) => {
        // Counted in SQL over every request (queue_status), not over a page.
        const states = await engine.queueStatus();
        const total = states.reduce((n, s) => n + s.requests, 0);
        const byState = Object.fromEntries(states.map((s) => [s.state, s.requests]));
        const attention: RequestListRow[] = [];
        for (const s of states.filter((st) => st.needs_operator && st.requests > 0)) {
          attention.push(...(await engine.listRequests(100, { state: s.state })));
        }
        out.result(
          { total, by_state: byState, states, needs_operator: attention },
          [
            keyValues({ total, ...byState }),
            '',
            'needs an operator (newest 100 per state; deletions list --state STATE for more):',
            listTable(attention, false),
          ].join('\n'),
        );
      });
    }),
};
