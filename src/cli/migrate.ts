import type { CommandModule } from 'yargs';
import { migrate } from '../migrate.js';
import { run, requireDatabaseUrl, withEngine } from './common.js';

export const migrateCommand: CommandModule = {
  command: 'migrate',
  describe:
    'Apply pending schema migrations to DATABASE_URL (idempotent; as a non-superuser in managed mode); reports the engine schema version, the write-fence implementation and what is degraded',
  handler: () =>
    run(async (out) => {
      const { managed } = await migrate(requireDatabaseUrl());
      // The schema-version gate runs after migrating: a database that is
      // still not at this driver's version (a newer driver migrated it) is
      // reported as such, exit 5.
      await withEngine('community-deletion migrate', async (engine) => {
        const schemaVersion = await engine.assertSchemaVersion();
        // 'native' (db/native installed on the server) or 'plpgsql' (fallback);
        // docs/fence.md "Native fast path".
        const fence = await engine.writeFenceImplementation();
        // What is degraded and why (docs/managed.md): native fence, DDL lock,
        // DDL guard, RLS exemption.
        const report = await engine.installationReport();
        const lines = [
          `migrations applied${managed ? ' (managed mode: the migrating role is not a superuser)' : ''}; engine schema version ${schemaVersion}`,
          `write fence: ${fence}`,
          ...report.degraded.map((d) => `${d.what}: ${d.state} (${d.why})`),
        ];
        if (report.degraded.length === 0) lines.push('nothing degraded (native fence, event triggers, BYPASSRLS)');
        out.result(
          {
            migrated: true,
            schema_version: schemaVersion,
            write_fence: fence,
            managed,
            installation: report,
          },
          lines.join('\n'),
        );
      });
    }),
};
