// Managed mode of `deletions migrate` (README "Managed PostgreSQL").
//
// Committed migrations are immutable, and three of them (000003, 000007,
// 000009) contain statements only a superuser may run: CREATE EVENT TRIGGER
// (the schema-destruction lock and the registered-table DDL guard) and, in
// 000003, CREATE ROLE … BYPASSRLS for community_deletion_owner. On a managed
// server (RDS, Cloud SQL, Azure) nobody is superuser, so those files cannot
// run as written. Migrations written since (db/engine/roles.sql,
// db/engine/triggers.sql) guard these statements themselves at run time.
//
// When the migrating role is not a superuser, `deletions migrate` runs the
// committed migrations from a temporary copy in which exactly those
// statements — and nothing else — are wrapped in the same run-time guard
// ("only if current_user is a superuser"). The rewrite is pinned: each
// rewritten file is identified by its recorded hash and must contain exactly
// the expected number of each statement, or migrate refuses before touching
// the database. A file not in the table must contain none of them. The copy
// keeps every header, so graphile_migrate.migrations records the original
// hashes: a database installed this way continues with the ordinary
// migrations later, as superuser or not. Rewritten files carry
// `--! AllowInvalidHash` (graphile-migrate's own marker for a body that no
// longer matches its hash).
import { mkdtemp, mkdir, readdir, readFile, writeFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The run-time test the guards use (the same text as db/engine/*.sql). */
export const IS_SUPERUSER_SQL =
  '(select r.rolsuper from pg_catalog.pg_roles r where r.rolname = current_user)';

interface Rule {
  name: string;
  pattern: RegExp;
  replace: (match: string, ...groups: string[]) => string;
}

const RULES: Rule[] = [
  {
    // DROP/CREATE EVENT TRIGGER: superuser only (or the trigger's owner, a
    // superuser), on every version up to 18.
    name: 'event_trigger',
    pattern: /^drop event trigger if exists (\w+);\ncreate event trigger \1\n\s+on (\w+)\n\s+execute function ([\w.]+)\(\);$/gm,
    replace: (_m, name, event, fn) =>
      [
        'do $cd_managed$',
        'begin',
        `  if ${IS_SUPERUSER_SQL} then`,
        `    execute 'drop event trigger if exists ${name}';`,
        `    execute 'create event trigger ${name} on ${event} execute function ${fn}()';`,
        '  else',
        `    raise notice 'community deletion: event trigger ${name} not created (not superuser; DDL lock: explicit)';`,
        '  end if;',
        'end',
        '$cd_managed$;',
      ].join('\n'),
  },
  {
    // A lone DROP EVENT TRIGGER IF EXISTS (000007 drops the old public.*
    // ones first): only the trigger's owner, a superuser, may drop it.
    name: 'drop_event_trigger',
    pattern: /^drop event trigger if exists (\w+);$/gm,
    replace: (_m, name) =>
      [
        'do $cd_managed$',
        'begin',
        `  if ${IS_SUPERUSER_SQL} then`,
        `    execute 'drop event trigger if exists ${name}';`,
        '  end if;',
        'end',
        '$cd_managed$;',
      ].join('\n'),
  },
  {
    // ALTER … OWNER TO community_deletion_owner needs the new owner to hold
    // CREATE on the schema (a superuser skips the check). The engine schema
    // is created in 000007; src/migrate.ts revokes the privilege after the run.
    name: 'engine_schema_create',
    pattern: /^create schema community_deletion;$/gm,
    replace: (m) => `${m}\ngrant create on schema community_deletion to community_deletion_owner; -- managed mode, revoked after the run`,
  },
  {
    // CREATE/ALTER ROLE … [NO]BYPASSRLS: changing the attribute is superuser
    // only. A non-superuser states no attribute (a new role gets NOBYPASSRLS).
    name: 'role_bypassrls_attribute',
    pattern: /case when v_role\.bypass_rls then 'bypassrls' else 'nobypassrls' end/g,
    replace: () =>
      `case when not ${IS_SUPERUSER_SQL} then '' when v_role.bypass_rls then 'bypassrls' else 'nobypassrls' end`,
  },
  {
    // … and a non-superuser never tries to correct the attribute.
    name: 'role_bypassrls_check',
    pattern: /rolbypassrls <> v_role\.bypass_rls/g,
    replace: () => `(rolbypassrls <> v_role.bypass_rls and ${IS_SUPERUSER_SQL})`,
  },
];

/** Expected matches per rewritten committed file, keyed by its Hash header. */
const PINNED: Record<string, Record<string, number>> = {
  'sha1:da6ac035d873f9d641a52731fe820116abf75444': { event_trigger: 3, role_bypassrls_attribute: 2, role_bypassrls_check: 1 }, // 000003
  'sha1:15059bcbd0a4938562f4e9ff3843e7ebe477012b': { event_trigger: 3, drop_event_trigger: 3, engine_schema_create: 1 }, // 000007
  'sha1:1bcd6ecdc407d0f38c058799c52994804c03c9b5': { event_trigger: 4 }, // 000009
};

export class ManagedRewriteError extends Error {
  override name = 'ManagedRewriteError';
}

/** Rewrites one committed migration's text for a non-superuser. */
export function rewriteCommittedMigration(fileName: string, text: string): string {
  const hash = /^--! Hash: (\S+)$/m.exec(text)?.[1];
  if (!hash) throw new ManagedRewriteError(`managed mode: ${fileName} has no Hash header`);
  const expected = PINNED[hash] ?? {};
  let body = text;
  for (const rule of RULES) {
    const count = (body.match(rule.pattern) ?? []).length;
    const want = expected[rule.name] ?? 0;
    if (count !== want) {
      throw new ManagedRewriteError(
        `managed mode: ${fileName} contains ${count} unguarded ${rule.name} statement(s), expected ${want}; ` +
          'a migration that needs a superuser must guard the statement itself (db/engine/roles.sql, db/engine/triggers.sql)',
      );
    }
    if (count > 0) body = body.replace(rule.pattern, rule.replace as (m: string, ...g: string[]) => string);
  }
  if (/^\s*(create|alter|drop) event trigger/im.test(body)) {
    throw new ManagedRewriteError(`managed mode: ${fileName} has an event-trigger statement outside a run-time guard`);
  }
  // Every migration, rewritten or not, first takes the schema/destruction
  // lock the event trigger would take (community_deletion.ddl_lock(); its
  // key function is in every version that has an engine to protect).
  const headerEnd = body.indexOf('\n\n');
  if (headerEnd < 0) throw new ManagedRewriteError(`managed mode: ${fileName} has no blank line after its headers`);
  body = `${body.slice(0, headerEnd)}\n\n${DDL_LOCK_PRELUDE}${body.slice(headerEnd + 2)}`;
  if (!/^--! AllowInvalidHash$/m.test(body)) {
    body = body.replace(/^(--! Hash: \S+)$/m, '$1\n--! AllowInvalidHash');
  }
  return body;
}

/** Prepended to every migration in managed mode: the explicit DDL lock. */
export const DDL_LOCK_PRELUDE = [
  '-- managed mode (src/managed.ts): the schema/destruction lock, as community_deletion.ddl_lock()',
  'do $cd_managed$',
  'begin',
  "  if pg_catalog.to_regprocedure('community_deletion._schema_destruction_lock_key()') is not null then",
  '    perform pg_catalog.pg_advisory_xact_lock(community_deletion._schema_destruction_lock_key());',
  '  end if;',
  'end',
  '$cd_managed$;',
  '',
].join('\n');

/**
 * A temporary migrations folder holding the committed migrations as a
 * non-superuser can run them. The caller removes it with `cleanup()`.
 */
export async function managedMigrationsFolder(
  migrationsFolder: string,
): Promise<{ folder: string; cleanup: () => Promise<void> }> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'community-deletion-managed-'));
  const cleanup = () => rm(folder, { recursive: true, force: true });
  try {
    const committed = path.join(migrationsFolder, 'committed');
    await mkdir(path.join(folder, 'committed'));
    for (const name of (await readdir(committed)).sort()) {
      if (!name.endsWith('.sql')) continue;
      const text = await readFile(path.join(committed, name), 'utf8');
      await writeFile(path.join(folder, 'committed', name), rewriteCommittedMigration(name, text));
    }
    return { folder, cleanup };
  } catch (e) {
    await cleanup();
    throw e;
  }
}
