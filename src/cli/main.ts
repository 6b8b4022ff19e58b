// bin/deletions: the operator CLI. Each command lives in its own module.
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { migrateCommand } from './migrate.js';
import { abortCommand, approveCommand, inspectCommand, listCommand, statusCommand, submitCommand, unblockCommand } from './operator.js';
import { EXIT } from './exit-codes.js';
import { drainCommand, runCommand, sweepCommand, workerCommand } from './execute.js';
import { planCommand } from './plan.js';
import { doctorCommand } from './doctor.js';

export async function main(argv: string[] = hideBin(process.argv)): Promise<void> {
  await yargs(argv)
    .scriptName('deletions')
    .usage('$0 <command> [options]\n\nDurable, operator-controlled deletion of one community (tenant).')
    .option('json', { type: 'boolean', describe: 'JSON on stdout (default when stdout is not a TTY)' })
    .command(migrateCommand)
    .command(submitCommand)
    .command(listCommand)
    .command(inspectCommand)
    .command(approveCommand)
    .command(abortCommand)
    .command(unblockCommand)
    .command(statusCommand)
    .command(runCommand)
    .command(drainCommand)
    .command(workerCommand)
    .command(sweepCommand)
    .command(planCommand)
    .command(doctorCommand)
    .demandCommand(1, 'Name a command (see --help).')
    .strict()
    .fail((message, error, y) => {
      if (error) throw error;
      process.stderr.write(`${y.help()}\n\n${message}\n`);
      process.exit(EXIT.usage);
    })
    .epilogue('Exit codes: 0 ok, 1 failure recorded, 2 usage, 3 not runnable, 4 safety refusal, 5 configuration, 6 unknown keys (sweep).')
    .help()
    .parseAsync();
}
