// Operator commands: submit, list, inspect, approve, abort, unblock, status.
// Each is one SQL call (submit adds the storage enumeration the database
// cannot do itself); every rule lives in the SQL function it calls.
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { loadRedisConfig, loadS3Config, loadTuning } from '../config.js';
import { storeIdentityFromConfig } from '../store-identity.js';
import { createS3Store } from '../s3.js';
import { enumerateOwnedStorage, loadTaxonomy } from '../inventory.js';
import { CliError, run, withEngine } from './common.js';
import { EXIT } from './exit-codes.js';
import { Progress, keyValues, table } from './format.js';
import { reviewView } from './inventory-view.js';

const REQUEST_KEYS = [
  'id', 'community_id', 'community_host', 'stage', 'requested_by', 'reason', 'inventory_digest',
  'fence_generation', 'lease_owner', 'lease_until', 'attempts', 'retry_count', 'next_attempt_at',
  'blocked_reason', 'created_at', 'completed_at',
];

const uuidArg = { type: 'string', demandOption: true, describe: 'deletion request id (uuid)' } as const;

export function requireUuid(value: string, what = 'request id'): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
    throw new CliError(`${what} ${JSON.stringify(value)} is not a UUID`, EXIT.usage);
  }
  return value.toLowerCase();
}

/**
 * --host when it is given; the authority of RELAY_URL only when --host is
 * absent. A --host that is given but empty or blank (an unset shell
 * variable) is a usage error, never a fallback to the relay's own community.
 */
export function resolveHost(host: string | undefined, relayUrl = process.env.RELAY_URL): string {
  if (host !== undefined) {
    if (host.trim() === '') throw new CliError('--host is empty: name the community explicitly', EXIT.usage);
    return host.trim();
  }
  const relay = relayUrl?.trim();
  if (relay) {
    try {
      return new URL(relay).host;
    } catch {
      throw new CliError(`RELAY_URL ${JSON.stringify(relay)} is not a URL`, EXIT.config, { variable: 'RELAY_URL' });
    }
  }
  throw new CliError('name the community with --host (or set RELAY_URL)', EXIT.usage);
}

/** "90s", "30m", "2h", "7d" or any PostgreSQL interval literal. */
export function parseDelay(value: string): string {
  const m = /^(\d+)\s*(s|m|h|d)$/.exec(value.trim());
  if (!m) return value.trim();
  const unit = { s: 'seconds', m: 'minutes', h: 'hours', d: 'days' }[m[2] as 's' | 'm' | 'h' | 'd'];
  return `${m[1]} ${unit}`;
}

type SubmitArgs = { host?: string; 'requested-by': string; reason?: string };
export const submitCommand: CommandModule<object, SubmitArgs> = {
  command: 'submit',
  describe: 'Submit a deletion request and freeze its inventory (PostgreSQL counts + S3 summary)',
  builder: (y: Argv) =>
    y
      .option('host', { type: 'string', describe: 'community host (default, only when --host is absent: authority of RELAY_URL)' })
      .option('requested-by', { type: 'string', demandOption: true, describe: 'operator identity of the requester' })
      .option('reason', { type: 'string', describe: 'why the community is deleted' }) as Argv<SubmitArgs>,
  handler: (args) =>
    run(async (out) => {
      const host = resolveHost(args.host);
      await withEngine('deletions-cli', async (engine) => {
        let request = await engine.submit({ host, requestedBy: args['requested-by'], reason: args.reason ?? null });
        out.log(`request ${String(request.id)} for ${host} is ${String(request.stage)}`);
        if (request.stage === 'submitted') {
          const s3 = loadS3Config();
          // Recorded with the inventory: every executor step must use these stores.
          const stores = storeIdentityFromConfig(s3, loadRedisConfig());
          const tuning = loadTuning();
          const store = createS3Store(s3);
          try {
            const taxonomy = await loadTaxonomy(engine);
            const progress = new Progress();
            const summary = await enumerateOwnedStorage(store, taxonomy, String(request.community_id), {
              chunkSize: tuning.chunkSize,
              onEntry: (prefix, n) => progress.update(`enumerating ${prefix}`, n),
            });
            progress.done();
            request = await engine.freezeInventory({ requestId: String(request.id), storageSummary: summary, storeIdentity: stores });
          } finally {
            store.client.destroy();
          }
          out.log(`inventory frozen: digest ${String(request.inventory_digest)}`);
        }
        out.result(request, `${keyValues(request, REQUEST_KEYS)}\n\n${reviewView(request)}`);
      });
    }),
};

export const listCommand: CommandModule<object, { limit: number }> = {
  command: 'list',
  describe: 'List deletion requests, newest first',
  builder: (y: Argv) => y.option('limit', { type: 'number', default: 100, describe: 'at most this many (1..1000)' }) as Argv<{ limit: number }>,
  handler: (args) =>
    run(async (out) => {
      await withEngine('deletions-cli', async (engine) => {
        const rows = await engine.listRequests(args.limit);
        out.result(rows, table(rows, ['request_id', 'community_host', 'stage', 'state', 'requested_by', 'approved_by', 'created_at', 'explanation']));
      });
    }),
};

export const inspectCommand: CommandModule<object, { id: string }> = {
  command: 'inspect <id>',
  describe: 'Show a request, its approval, every checkpoint, and why it is (not) progressing',
  builder: (y: Argv) => y.positional('id', uuidArg) as Argv<{ id: string }>,
  handler: (args) =>
    run(async (out) => {
      const id = requireUuid(args.id);
      await withEngine('deletions-cli', async (engine) => {
        const inspection = await engine.inspect(id);
        const schemaVersion = await engine.schemaVersion();
        const human = [
          `${inspection.state}: ${inspection.explanation}`,
          '',
          keyValues(inspection.request, REQUEST_KEYS),
          '',
          reviewView(inspection.request),
          '',
          'approval:',
          inspection.approval ? keyValues(inspection.approval) : '(none)',
          '',
          'checkpoints:',
          table(inspection.checkpoints, ['stage', 'unit_key', 'status', 'attempts', 'lease_generation', 'error', 'completed_at']),
          '',
          `engine schema version: ${schemaVersion}`,
        ].join('\n');
        out.result({ ...inspection, schema_version: schemaVersion }, human);
      });
    }),
};

type ApproveArgs = { id: string; 'approved-by': string; note?: string; 'not-before'?: string; delay?: string; digest?: string };
export const approveCommand: CommandModule<object, ApproveArgs> = {
  command: 'approve <id>',
  describe: 'Approve the exact frozen inventory (a different operator than the requester)',
  builder: (y: Argv) =>
    y
      .positional('id', uuidArg)
      .option('approved-by', { type: 'string', demandOption: true, describe: 'operator identity of the approver' })
      .option('note', { type: 'string' })
      .option('not-before', { type: 'string', describe: 'earliest execution time (ISO 8601)' })
      .option('delay', { type: 'string', describe: 'grace period before execution, e.g. 30m, 24h, 7d' })
      .option('digest', { type: 'string', describe: 'the inventory digest you reviewed (at least its first 8 hex digits); refused if it is not the frozen one' })
      .conflicts('not-before', 'delay') as Argv<ApproveArgs>,
  handler: (args) =>
    run(async (out) => {
      const id = requireUuid(args.id);
      let notBefore: Date | null = null;
      if (args['not-before'] !== undefined) {
        notBefore = new Date(args['not-before']);
        if (Number.isNaN(notBefore.getTime())) throw new CliError(`--not-before ${JSON.stringify(args['not-before'])} is not a time`, EXIT.usage);
      }
      const delay = args.delay === undefined ? null : parseDelay(args.delay);
      await withEngine('deletions-cli', async (engine) => {
        const request = await engine.approve({ requestId: id, approvedBy: args['approved-by'], note: args.note ?? null, notBefore, delay, digest: args.digest ?? null });
        out.result(request, `${keyValues(request, REQUEST_KEYS)}\n\n${reviewView(request)}`);
      });
    }),
};

type ActionArgs = { id: string; reason: string } & Record<string, unknown>;
function operatorAction(name: 'abort' | 'unblock', describe: string): CommandModule<object, ActionArgs> {
  const byFlag = name === 'abort' ? 'aborted-by' : 'unblocked-by';
  return {
    command: `${name} <id>`,
    describe,
    builder: (y: Argv) =>
      y
        .positional('id', uuidArg)
        .option(byFlag, { type: 'string', demandOption: true, describe: 'operator identity' })
        .option('reason', { type: 'string', demandOption: true, describe: 'why (kept in the audit checkpoint)' }) as unknown as Argv<ActionArgs>,
    handler: (args: ArgumentsCamelCase<ActionArgs>) =>
      run(async (out) => {
        const id = requireUuid(args.id);
        const by = String(args[byFlag]);
        await withEngine('deletions-cli', async (engine) => {
          const request =
            name === 'abort'
              ? await engine.abort({ requestId: id, abortedBy: by, reason: args.reason })
              : await engine.unblock({ requestId: id, unblockedBy: by, reason: args.reason });
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
        const attentionStates = new Set(states.filter((s) => s.needs_operator).map((s) => s.state));
        const attention = attentionStates.size === 0 ? [] : (await engine.listRequests(100)).filter((r) => attentionStates.has(r.state));
        out.result(
          { total, by_state: byState, states, needs_operator: attention },
          [
            keyValues({ total, ...byState }),
            '',
            'needs an operator (newest 100 requests):',
            table(attention, ['request_id', 'community_host', 'stage', 'state', 'explanation']),
          ].join('\n'),
        );
      });
    }),
};
