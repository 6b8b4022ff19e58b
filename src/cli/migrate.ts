import type { CommandModule } from 'yargs';
import { migrate } from '../migrate.js';
import { run, requireDatabaseUrl, withEngine } from './common.js';

export const migrateCommand: CommandModule = {
  command: 'migrate',
  describe: 'Apply pending schema migrations to DATABASE_URL (idempotent); reports the engine schema version and the write-fence implementation',
  handler: () =>
    run(async (out) => {
      await migrate(requireDatabaseUrl());
      // The schema-version gate runs after migrating: a database that is
      // still not at this driver's version (a newer driver migrated it) is
      // reported as such, exit 5.
      await withEngine('community-deletion migrate', async (engine) => {
        const schemaVersion = await engine.assertSchemaVersion();
        // 'native' (db/native installed on the server) or 'plpgsql' (fallback);
        // docs/fence.md "Native fast path".
        const fence = await engine.writeFenceImplementation();
        out.result(
          { migrated: true, schema_version: schemaVersion, write_fence: fence },
          `migrations applied; engine schema version ${schemaVersion}; write fence: ${
            fence === 'native'
              ? 'native'
              : 'plpgsql (the native library is not installed on this server: make -C db/native install, then select community_deletion.install_write_fence())'
          }`,
        );
      });
    }),
};
