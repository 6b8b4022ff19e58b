// Applies the committed migrations with graphile-migrate, the same engine as
// `npm run migrate`. Idempotent: already-applied migrations are skipped.
// Progress goes to stderr so stdout stays machine-readable.
//
// A role that is not a superuser (a managed server: README "Managed
// PostgreSQL", docs/managed.md) migrates in managed mode: the committed
// migrations run from a copy in which the superuser-only statements are
// guarded at run time and every migration first takes the schema/destruction
// lock (src/managed.ts), with the privileges of withManagedPrivileges.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from './db.js';
import { managedMigrationsFolder } from './managed.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * graphile-migrate and a logger of it to stderr (debug lines dropped): loaded
 * by a migration only, not by every start of the CLI.
 */
async function loadGraphileMigrate() {
  const { migrate, Logger } = await import('graphile-migrate');
  const logger = new Logger(() => (level: string, message: string) => {
    if (level !== 'debug') process.stderr.write(`${message}\n`);
  });
  return { gmMigrate: migrate, logger };
}

export interface MigrateResult {
  /** true when the migrating role is not a superuser (managed mode). */
  managed: boolean;
}

export async function isSuperuser(databaseUrl: string): Promise<boolean> {
  const sql = connect(databaseUrl, { max: 1, applicationName: 'community-deletion migrate' });
  try {
    const [row] = await sql<{ rolsuper: boolean }[]>`
      select r.rolsuper from pg_catalog.pg_roles r where r.rolname = current_user`;
    return row?.rolsuper === true;
  } finally {
    await sql.end();
  }
}

/**
 * Runs `work` (migrations) as a non-superuser with what ALTER … OWNER TO
 * community_deletion_owner needs, and takes it back afterwards, whatever
 * happens:
 *  * the engine roles exist (db/engine/roles.sql, guarded: no BYPASSRLS);
 *  * the migrating role is a member of community_deletion_owner (only a
 *    member may give it an object; CREATEROLE allows the grant — on 16+
 *    through the ADMIN OPTION the role's creator holds). Revoked after:
 *    nobody stays a member;
 *  * community_deletion_owner holds CREATE on the schemas public and
 *    community_deletion (a new owner needs it on the object's schema; the
 *    engine schema, created by 000007, gets it there: src/managed.ts).
 *    Revoked after.
 */
export async function withManagedPrivileges<T>(databaseUrl: string, work: () => Promise<T>): Promise<T> {
  const sql = connect(databaseUrl, { max: 1, applicationName: 'community-deletion migrate' });
  let granted = false;
  const schemaCreate: string[] = [];
  try {
    await sql.unsafe(await readFile(path.join(root, 'db', 'engine', 'roles.sql'), 'utf8'));
    const [member] = await sql<{ member: boolean }[]>`
      select pg_catalog.pg_has_role(current_user, 'community_deletion_owner',
               case when pg_catalog.current_setting('server_version_num')::int >= 160000 then 'SET' else 'MEMBER' end)
             as member`;
    if (!member?.member) {
      await sql.unsafe('grant community_deletion_owner to current_user');
      granted = true;
    }
    for (const schema of ['public', 'community_deletion']) {
      const [row] = await sql<{ exists: boolean; can: boolean }[]>`
        select n.oid is not null as exists,
               n.oid is not null and pg_catalog.has_schema_privilege('community_deletion_owner', n.oid, 'CREATE') as can
          from (select 1) one left join pg_catalog.pg_namespace n on n.nspname = ${schema}`;
      if (row && !row.can) {
        if (row.exists) await sql.unsafe(`grant create on schema ${schema} to community_deletion_owner`);
        schemaCreate.push(schema);
      }
    }
    return await work();
  } finally {
    try {
      for (const schema of schemaCreate) {
        await sql.unsafe(`do $$ begin
          if exists (select 1 from pg_catalog.pg_namespace where nspname = '${schema}') then
            revoke create on schema ${schema} from community_deletion_owner;
          end if; end $$`);
      }
      if (granted) await sql.unsafe('revoke community_deletion_owner from current_user');
    } finally {
      await sql.end();
    }
  }
}

export async function migrate(databaseUrl: string): Promise<MigrateResult> {
  const migrationsFolder = path.join(root, 'db', 'migrations');
  const { gmMigrate, logger } = await loadGraphileMigrate();
  if (await isSuperuser(databaseUrl)) {
    await gmMigrate({
      connectionString: databaseUrl,
      migrationsFolder,
      manageGraphileMigrateSchema: true,
      logger,
    });
    return { managed: false };
  }
  const managed = await managedMigrationsFolder(migrationsFolder);
  try {
    await withManagedPrivileges(databaseUrl, () =>
      gmMigrate({
        connectionString: databaseUrl,
        migrationsFolder: managed.folder,
        manageGraphileMigrateSchema: true,
        logger,
      }),
    );
  } finally {
    await managed.cleanup();
  }
  return { managed: true };
}
