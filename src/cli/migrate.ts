import type { CommandModule } from 'yargs';
import { migrate } from '../migrate.js';
import { requireDatabaseUrl, run } from './common.js';

export const migrateCommand: CommandModule = {
  command: 'migrate',
  describe: 'Apply pending schema migrations to DATABASE_URL (idempotent)',
  handler: () =>
    run(async (out) => {
      const url = requireDatabaseUrl();
      await migrate(url);
      out.result({ migrated: true }, 'migrations applied');
    }),
};
