// bin/deletions: the operator CLI. Each command lives in its own module.
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { migrateCommand } from './migrate.js';
import { abortCommand, approveCommand, inspectCommand, listCommand, statusCommand, submitCommand, unblockCommand } from './operator.js';
import { EXIT } from './exit-codes.js';
import { drainCommand, runCommand, sweepCommand, workerCommand } from './execute.js';
import { planCommand } from './plan.js';
import { doctorCommand } from './doctor.js';
import { refuseRepeatedOptions } from './args.js';
import { CliError, jsonMode, reportUsageError } from './common.js';
import { EXIT_MEANINGS, withHelp } from './help.js';

/** yargs' "Not enough non-option arguments" made to name the missing positional. */
function usageMessage(message: string, argv: readonly string[]): string {
  if (/^Not enough non-option arguments/.test(message)) {
    const command = argv.find((a) => !a.startsWith('-'));
    return `missing ID: name the deletion request (deletions ${command ?? '<command>'} ID …; see deletions list)`;
  }
  const flag = dashValueFlag(argv);
  if (/^Unknown argument/.test(message) && flag) {
    const value = argv[argv.indexOf(flag) + 1]!;
    return `${flag} ${value}: a value starting with "-" is read as options; write ${flag}=${value}`;
  }
  return message;
}

/** The `--flag` whose value was split off as short options (`--interval -1s`). */
function dashValueFlag(argv: readonly string[]): string | undefined {
  const at = argv.findIndex((a, i) => i > 0 && /^-\d/.test(a) && /^--[a-z][a-z-]*$/.test(argv[i - 1]!));
  return at > 0 ? argv[at - 1] : undefined;
}

export async function main(argv: string[] = hideBin(process.argv)): Promise<void> {
  // yargs' completion command ignores what follows it; a usage error like
  // any other command's extra argument (the shell script it prints calls
  // --get-yargs-completions, never this).
  const extra = argv[0] === 'completion' ? argv.slice(1).filter((a) => !['--json', '-h', '--help'].includes(a)) : [];
  if (extra.length > 0) {
    reportUsageError(`Unknown argument${extra.length > 1 ? 's' : ''}: ${extra.join(', ')} (completion takes none)`, {});
    process.exit(EXIT.usage);
  }
  await yargs(argv)
    .scriptName('deletions')
    .usage('$0 <command> [options]\n\nDurable, operator-controlled deletion of one community (tenant).')
    .option('json', { type: 'boolean', describe: 'JSON on stdout (default when stdout is not a TTY)' })
    .middleware((args) => {
      try {
        refuseRepeatedOptions(args as Record<string, unknown>);
      } catch (error) {
        if (!(error instanceof CliError)) throw error;
        reportUsageError(error.message, typeof error.detail.flag === 'string' ? { flag: error.detail.flag } : {});
        process.exit(EXIT.usage);
      }
    }, true)
    .command(withHelp(migrateCommand))
    .command(withHelp(submitCommand))
    .command(withHelp(listCommand))
    .command(withHelp(inspectCommand))
    .command(withHelp(approveCommand))
    .command(withHelp(abortCommand))
    .command(withHelp(unblockCommand))
    .command(withHelp(statusCommand))
    .command(withHelp(runCommand))
    .command(withHelp(drainCommand))
    .command(withHelp(workerCommand))
    .command(withHelp(sweepCommand))
    .command(withHelp(planCommand))
    .command(withHelp(doctorCommand))
    .completion('completion', 'Print a bash/zsh completion script (deletions completion >> ~/.bashrc)')
    .demandCommand(1, 'Name a command (see --help).')
    .strict()
    .fail((message, error, y) => {
      if (error && !(error instanceof CliError && error.exitCode === EXIT.usage)) throw error;
      const flag = error instanceof CliError && typeof error.detail.flag === 'string' ? error.detail.flag : undefined;
      if (!jsonMode()) y.showHelp();
      const dashFlag = error ? undefined : dashValueFlag(argv);
      reportUsageError(error ? error.message : usageMessage(message, argv), flag ? { flag } : dashFlag && /^Unknown argument/.test(message) ? { flag: dashFlag } : {});
      process.exit(EXIT.usage);
    })
    .epilogue(
      [
        'Exit codes:',
        ...Object.entries(EXIT_MEANINGS).map(([c, m]) => `  ${c.padStart(2)}  ${m}`),
        '',
        'Every command: --help (or -h) lists its environment variables, exit codes and an example.',
      ].join('\n'),
    )
    .help()
    .alias('h', 'help')
    .parseAsync();
}
