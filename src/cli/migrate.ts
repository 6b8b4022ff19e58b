import type { CommandModule } from 'yargs';
import { connect } from '../db.js';
import { migrate } from '../migrate.js';
import { requireDatabaseUrl, run } from './common.js';

export const migrateCommand: CommandModule = {
  command: 'migrate',
  describe: 'Apply pending schema migrations to DATABASE_URL (idempotent); reports the write-fence implementation',
  handler: () =>
    run(async (out) => {
      const url = requireDatabaseUrl();
      await migrate(url);
      // 'native' (db/native installed on the server) or 'plpgsql' (fallback);
      // docs/fence.md "Native fast path".
      const sql = connect(url, { max: 1, applicationName: 'community-deletion migrate' });
      try {
        const [row] = await sql<{ fence: string }[]>`select community_deletion.write_fence_implementation() as fence`;
        const fence = row!.fence;
        out.result(
          { migrated: true, write_fence: fence },
          fence === 'native'
            ? 'migrations applied; write fence: native'
            : 'migrations applied; write fence: plpgsql (the native library is not installed on this server: make -C db/native install, then select community_deletion.install_write_fence())',
        );
      } finally {
        await sql.end({ timeout: 5 });
      }
    }),
};
