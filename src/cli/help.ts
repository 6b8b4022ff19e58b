// Per-command help: the environment variables each command reads, the exit
// codes it can end with, and one example (shown by `deletions CMD --help`).
import type { Argv, CommandModule } from 'yargs';
import { EXIT } from './exit-codes.js';

const S3 = ['BUZZ_S3_ENDPOINT', 'BUZZ_S3_BUCKET', 'BUZZ_S3_ACCESS_KEY', 'BUZZ_S3_SECRET_KEY', 'BUZZ_S3_REGION', 'BUZZ_S3_ADDRESSING_STYLE'];
const EXECUTOR = ['DATABASE_URL', 'REDIS_URL', ...S3, 'DELETIONS_CHUNK_SIZE', 'DELETIONS_LEASE_SECONDS', 'DELETIONS_HEARTBEAT_SECONDS'];

/** What every exit code means (the README's table). */
export const EXIT_MEANINGS: Record<number, string> = {
  [EXIT.ok]: 'done',
  [EXIT.failureRecorded]: 'a failure was recorded against the request (retry scheduled, or blocked)',
  [EXIT.usage]: 'usage error (missing/malformed/repeated argument, unknown request or host)',
  [EXIT.notRunnable]: 'not runnable now (terminal, blocked, leased elsewhere, waiting)',
  [EXIT.safetyRefusal]: 'refused for safety (wrong stage, self-approval, digest mismatch, …)',
  [EXIT.config]: 'configuration or environment (missing variable, unreachable service, missing privileges, schema version)',
  [EXIT.unknownKeys]: 'keys outside the storage taxonomy were found',
  [EXIT.internal]: 'internal error (a bug: please report it)',
  [EXIT.interrupted]: 'stopped by SIGINT (Ctrl-C): the claim was released, nothing recorded',
  [EXIT.terminated]: 'stopped by SIGTERM: the claim was released, nothing recorded',
};

interface CommandHelp {
  env: readonly string[];
  exits: readonly number[];
  example: [string, string];
}

const OPERATOR_EXITS = [EXIT.ok, EXIT.usage, EXIT.notRunnable, EXIT.safetyRefusal, EXIT.config, EXIT.internal];

export const COMMAND_HELP: Record<string, CommandHelp> = {
  migrate: { env: ['DATABASE_URL'], exits: [EXIT.ok, EXIT.config, EXIT.internal], example: ['$0 migrate', 'apply pending migrations'] },
  submit: {
    env: ['DATABASE_URL', 'RELAY_URL', 'REDIS_URL', ...S3, 'DELETIONS_CHUNK_SIZE'],
    exits: OPERATOR_EXITS,
    example: ['$0 submit --host acme.example --requested-by alice@ops --reason-file ticket-1234.txt', 'submit and freeze the inventory'],
  },
  list: {
    env: ['DATABASE_URL'],
    exits: [EXIT.ok, EXIT.usage, EXIT.config, EXIT.internal],
    example: ['$0 list --state blocked --host acme.example --limit 50', 'the newest 50 blocked requests of one community'],
  },
  inspect: {
    env: ['DATABASE_URL'],
    exits: [EXIT.ok, EXIT.usage, EXIT.config, EXIT.internal],
    example: ['$0 inspect 0b6f…-… --watch', 'follow one request until it is terminal'],
  },
  approve: {
    env: ['DATABASE_URL'],
    exits: OPERATOR_EXITS,
    example: ['$0 approve ID --approved-by bob@ops --delay 24h', 'approve, executable after a 24 h grace period'],
  },
  abort: {
    env: ['DATABASE_URL'],
    exits: OPERATOR_EXITS,
    example: ['$0 abort ID --aborted-by alice@ops --reason "customer changed their mind"', 'withdraw or abort before the purge'],
  },
  unblock: {
    env: ['DATABASE_URL'],
    exits: OPERATOR_EXITS,
    example: ['$0 unblock ID --unblocked-by carol@ops --reason-file remediation.txt', 'clear a block after fixing its cause'],
  },
  status: { env: ['DATABASE_URL'], exits: [EXIT.ok, EXIT.config, EXIT.internal], example: ['$0 status', 'requests by state, and what needs an operator'] },
  run: {
    env: EXECUTOR,
    exits: [EXIT.ok, EXIT.failureRecorded, EXIT.usage, EXIT.notRunnable, EXIT.safetyRefusal, EXIT.config, EXIT.internal, EXIT.interrupted, EXIT.terminated],
    example: ['$0 run ID', 'drive one approved request to retention_pending'],
  },
  drain: {
    env: EXECUTOR,
    exits: [EXIT.ok, EXIT.failureRecorded, EXIT.config, EXIT.internal, EXIT.interrupted, EXIT.terminated],
    example: ['$0 drain --executor-id batch-1', 'run every claimable request, then exit'],
  },
  worker: {
    env: EXECUTOR,
    exits: [EXIT.ok, EXIT.failureRecorded, EXIT.usage, EXIT.config, EXIT.internal, EXIT.interrupted, EXIT.terminated],
    example: ['$0 worker --idle-max-seconds 60', 'poll for work until SIGTERM'],
  },
  plan: {
    env: ['DATABASE_URL', 'RELAY_URL', 'REDIS_URL', ...S3, 'DELETIONS_CHUNK_SIZE'],
    exits: [EXIT.ok, EXIT.usage, EXIT.config, EXIT.internal],
    example: ['$0 plan --host acme.example', 'what a deletion of acme.example would remove; creates nothing'],
  },
  doctor: {
    env: ['DATABASE_URL', 'REDIS_URL', ...S3],
    exits: [EXIT.ok, EXIT.config, EXIT.internal],
    example: ['$0 doctor', 'check PostgreSQL, S3 (bucket versioning) and Redis before the first deletion'],
  },
  sweep: {
    env: ['DATABASE_URL', ...S3, 'DELETIONS_SWEEP_CAP'],
    exits: [EXIT.ok, EXIT.usage, EXIT.config, EXIT.unknownKeys, EXIT.internal],
    example: ['$0 sweep --cap 100000 --sample-size 10', 'count keys no writer shape explains'],
  },
};

export function epilogueFor(help: CommandHelp): string {
  return [
    `Environment: ${help.env.join(', ')}`,
    '',
    'Exit codes:',
    ...help.exits.map((c) => `  ${String(c).padStart(2)}  ${EXIT_MEANINGS[c] ?? ''}`),
    '',
    'JSON on stdout with --json or when stdout is not a terminal (snake_case keys, ISO 8601 UTC times); logs on stderr.',
  ].join('\n');
}

/** The command with its environment, exit codes and example added to its --help. */
export function withHelp<T, U>(command: CommandModule<T, U>): CommandModule<T, U> {
  const name = String(Array.isArray(command.command) ? command.command[0] : command.command).split(' ')[0]!;
  const help = COMMAND_HELP[name];
  if (!help) return command;
  const original = command.builder;
  return {
    ...command,
    builder: (y: Argv<T>) => {
      let built = (typeof original === 'function' ? original(y) : original ? y.options(original) : y) as Argv<U>;
      built = built.example(help.example[0], help.example[1]).epilogue(epilogueFor(help)) as Argv<U>;
      return built;
    },
  } as CommandModule<T, U>;
}
