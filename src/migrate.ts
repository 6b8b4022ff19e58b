// Applies the committed migrations with graphile-migrate, the same engine as
// `npm run migrate`. Idempotent: already-applied migrations are skipped.
// Progress goes to stderr so stdout stays machine-readable.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate as gmMigrate, Logger } from 'graphile-migrate';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const stderrLogger = new Logger(() => (level: string, message: string) => {
  if (level !== 'debug') process.stderr.write(`${message}\n`);
});

export async function migrate(databaseUrl: string): Promise<void> {
  await gmMigrate({
    connectionString: databaseUrl,
    migrationsFolder: path.join(root, 'db', 'migrations'),
    manageGraphileMigrateSchema: true,
    logger: stderrLogger,
  });
}
