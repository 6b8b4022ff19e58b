// Operator commands: submit, list, inspect, approve, abort, unblock, status.
// Each is one SQL call (submit adds the storage enumeration the database
// cannot do itself); every rule lives in the SQL function it calls.
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { connect, type Sql } from '../db.js';
import { loadS3Config, loadTuning } from '../config.js';
import { createS3Store } from '../s3.js';
import { enumerateOwnedStorage, loadTaxonomy } from '../inventory.js';
import { CliError, requireDatabaseUrl, run } from './common.js';
import { EXIT } from './exit-codes.js';
import { Progress, keyValues, table } from './format.js';

const REQUEST_KEYS = [
  'id', 'community_id', 'community_host', 'stage', 'requested_by', 'reason', 'inventory_digest',
  'fence_generation', 'lease_owner', 'lease_until', 'attempts', 'retry_count', 'next_attempt_at',
  'blocked_reason', 'created_at', 'completed_at',
];

async function withSql<T>(body: (sql: Sql) => Promise<T>): Promise<T> {
  const sql = connect(requireDatabaseUrl(), { max: 1, applicationName: 'deletions-cli' });
  try {
    return await body(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

type Row = Record<string, unknown>;

async function callRequest(sql: Sql, query: Promise<{ request: Row }[]>): Promise<Row> {
  const [row] = await query;
  if (!row) throw new CliError('the database returned no request', EXIT.failureRecorded);
  return row.request;
}

const uuidArg = { type: 'string', demandOption: true, describe: 'deletion request id (uuid)' } as const;

function requireUuid(value: string, what = 'request id'): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
    throw new CliError(`${what} ${JSON.stringify(value)} is not a UUID`, EXIT.usage);
  }
  return value.toLowerCase();
}

/** --host, or the authority of RELAY_URL. */
function resolveHost(host: string | undefined): string {
  if (host?.trim()) return host.trim();
  const relay = process.env.RELAY_URL?.trim();
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

export const submitCommand: CommandModule<object, { host?: string; 'requested-by': string; reason?: string }> = {
  command: 'submit',
  describe: 'Submit a deletion request and freeze its inventory (PostgreSQL counts + S3 summary)',
  builder: (y: Argv) =>
    y
      .option('host', { type: 'string', describe: 'community host (default: authority of RELAY_URL)' })
      .option('requested-by', { type: 'string', demandOption: true, describe: 'operator identity of the requester' })
      .option('reason', { type: 'string', describe: 'why the community is deleted' }) as Argv<{ host?: string; 'requested-by': string; reason?: string }>,
  handler: (args) =>
    run(async (out) => {
      const host = resolveHost(args.host);
      await withSql(async (sql) => {
        let request = await callRequest(sql, sql`
          select to_jsonb(r) as request from community_deletion.submit(${host}, ${args['requested-by']}, ${args.reason ?? null}) r`);
        out.log(`request ${String(request.id)} for ${host} is ${String(request.stage)}`);
        if (request.stage === 'submitted') {
          const s3 = loadS3Config();
          const tuning = loadTuning();
          const store = createS3Store(s3);
          const taxonomy = await loadTaxonomy(sql);
          const progress = new Progress();
          const summary = await enumerateOwnedStorage(store, taxonomy, String(request.community_id), {
            chunkSize: tuning.chunkSize,
            onEntry: (prefix, n) => progress.update(`enumerating ${prefix}`, n),
          });
          progress.done();
          request = await callRequest(sql, sql`
            select to_jsonb(r) as request from community_deletion.freeze_inventory(${String(request.id)}::uuid, ${sql.json(JSON.parse(JSON.stringify(summary)))}) r`);
          out.log(`inventory frozen: digest ${String(request.inventory_digest)}`);
        }
        out.result(request, keyValues(request, REQUEST_KEYS));
      });
    }),
};

export const listCommand: CommandModule<object, { limit: number }> = {
  command: 'list',
  describe: 'List deletion requests, newest first',
  builder: (y: Argv) => y.option('limit', { type: 'number', default: 100, describe: 'at most this many (1..1000)' }) as Argv<{ limit: number }>,
  handler: (args) =>
    run(async (out) => {
      await withSql(async (sql) => {
        const rows = await sql`select * from community_deletion.list_requests(${args.limit}::integer)`;
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
      await withSql(async (sql) => {
        const [{ inspection }] = (await sql`select community_deletion.inspect(${id}::uuid) as inspection`) as unknown as [{ inspection: Row }];
        const request = (inspection.request ?? {}) as Row;
        const checkpoints = (inspection.checkpoints ?? []) as Row[];
        const human = [
          `${String(inspection.state ?? '')}: ${String(inspection.explanation ?? '')}`,
          '',
          keyValues(request, REQUEST_KEYS),
          '',
          'approval:',
          inspection.approval ? keyValues(inspection.approval as Row) : '(none)',
          '',
          'checkpoints:',
          table(checkpoints, ['stage', 'unit_key', 'status', 'attempts', 'lease_generation', 'error', 'completed_at']),
        ].join('\n');
        out.result(inspection, human);
      });
    }),
};

type ApproveArgs = { id: string; 'approved-by': string; note?: string; 'not-before'?: string; delay?: string };
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
      .conflicts('not-before', 'delay') as Argv<ApproveArgs>,
  handler: (args) =>
    run(async (out) => {
      const id = requireUuid(args.id);
      let notBefore: string | null = null;
      if (args['not-before'] !== undefined) {
        const t = new Date(args['not-before']);
        if (Number.isNaN(t.getTime())) throw new CliError(`--not-before ${JSON.stringify(args['not-before'])} is not a time`, EXIT.usage);
        notBefore = t.toISOString();
      }
      const delay = args.delay === undefined ? null : parseDelay(args.delay);
      await withSql(async (sql) => {
        const request = await callRequest(sql, sql`
          select to_jsonb(r) as request from community_deletion.approve(
            ${id}::uuid, ${args['approved-by']}, ${args.note ?? null}, ${notBefore}::timestamptz, ${delay}::interval) r`);
        out.result(request, keyValues(request, REQUEST_KEYS));
      });
    }),
};

function operatorAction(name: 'abort' | 'unblock', describe: string): CommandModule<object, { id: string; by: string; reason: string }> {
  const byFlag = name === 'abort' ? 'aborted-by' : 'unblocked-by';
  return {
    command: `${name} <id>`,
    describe,
    builder: (y: Argv) =>
      y
        .positional('id', uuidArg)
        .option(byFlag, { type: 'string', demandOption: true, describe: 'operator identity' })
        .option('reason', { type: 'string', demandOption: true, describe: 'why (kept in the audit checkpoint)' }) as unknown as Argv<{ id: string; by: string; reason: string }>,
    handler: (args: ArgumentsCamelCase<{ id: string; by: string; reason: string }>) =>
      run(async (out) => {
        const id = requireUuid(args.id);
        const by = String((args as unknown as Record<string, unknown>)[byFlag]);
        await withSql(async (sql) => {
          const request =
            name === 'abort'
              ? await callRequest(sql, sql`select to_jsonb(r) as request from community_deletion.abort(${id}::uuid, ${by}, ${args.reason}) r`)
              : await callRequest(sql, sql`select to_jsonb(r) as request from community_deletion.unblock(${id}::uuid, ${by}, ${args.reason}) r`);
          out.result(request, keyValues(request, REQUEST_KEYS));
        });
      }),
  };
}

export const abortCommand = operatorAction('abort', 'Abort a request at approved or fenced: the community becomes active again');
export const unblockCommand = operatorAction('unblock', 'Clear a durable block after remediating its cause');

export const statusCommand: CommandModule = {
  command: 'status',
  describe: 'Queue overview: requests by state, and what needs an operator',
  handler: () =>
    run(async (out) => {
      await withSql(async (sql) => {
        const rows = (await sql`select * from community_deletion.list_requests(1000)`) as unknown as Row[];
        const byState: Record<string, number> = {};
        for (const r of rows) byState[String(r.state)] = (byState[String(r.state)] ?? 0) + 1;
        const attention = rows.filter((r) => r.state === 'blocked' || r.state === 'waiting_for_approval');
        out.result(
          { total: rows.length, by_state: byState, needs_operator: attention },
          [
            keyValues({ total: rows.length, ...byState }),
            '',
            'needs an operator:',
            table(attention, ['request_id', 'community_host', 'stage', 'state', 'explanation']),
          ].join('\n'),
        );
      });
    }),
};
