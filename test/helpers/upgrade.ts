// Upgrade tests (test/upgrade/<NNNNNN>-<what>.test.ts): build a database at
// an older migration level, put it in use with that level's API, then upgrade
// it exactly as a deployment would and check that nothing in flight was lost.
//
// Every migration that touches engine objects gets such a test. The levels are
// built by graphile-migrate itself from byte-for-byte copies of the committed
// files (it checks their hash chain), never from hand-written SQL.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { Redis } from 'ioredis';
import postgres from 'postgres';
import type { S3Store } from '../../src/s3.js';
import { adminSql, createTestDatabase, type TestDatabase } from './db.js';
import { hex } from './e2e.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const migrationsFolder = path.join(root, 'db', 'migrations');
const committedFolder = path.join(migrationsFolder, 'committed');
const gm = path.join(root, 'node_modules', '.bin', 'graphile-migrate');

/** The committed migration files in order, checked to be numbered 000001, 000002, … without gaps. */
export async function committedMigrations(): Promise<string[]> {
  const files = (await readdir(committedFolder)).filter((f) => f.endsWith('.sql')).sort();
  files.forEach((file, i) => {
    if (!file.startsWith(`${String(i + 1).padStart(6, '0')}-`)) throw new Error(`committed migrations are not numbered contiguously at ${file}`);
  });
  return files;
}

/** The level a fresh `npm run migrate` reaches (current.sql aside). */
export async function latestLevel(): Promise<number> {
  return (await committedMigrations()).length;
}

/**
 * graphile-migrate with only DATABASE_URL from the connection variables, and
 * without tap's loader options (the binary is plain node). Resolves with its
 * output; rejects with it.
 */
function runGraphileMigrate(args: string[], cwd: string, databaseUrl: string): Promise<string> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k === 'NODE_OPTIONS' || k.startsWith('TAP') || k === 'SHADOW_DATABASE_URL' || k === 'ROOT_DATABASE_URL') continue;
    env[k] = v;
  }
  env.DATABASE_URL = databaseUrl;
  return new Promise((resolve, reject) => {
    execFile(gm, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      if (error) reject(new Error(`graphile-migrate ${args.join(' ')} (in ${cwd}) failed: ${error.message}\n${output}`));
      else resolve(output);
    });
  });
}

/** Migrations graphile-migrate has recorded as applied: `<NNNNNN>.sql` and the file's `--! Hash`. */
export async function appliedMigrations(db: Pick<TestDatabase, 'sql'>): Promise<{ filename: string; hash: string }[]> {
  return db.sql<{ filename: string; hash: string }[]>`select filename, hash from graphile_migrate.migrations order by filename`;
}

/** What appliedMigrations reports once the given committed files are applied. */
async function expectedApplied(files: readonly string[]): Promise<{ filename: string; hash: string }[]> {
  return Promise.all(
    files.map(async (file) => {
      const hash = /^--! Hash: (\S+)$/m.exec(await readFile(path.join(committedFolder, file), 'utf8'))?.[1];
      if (!hash) throw new Error(`${file} has no "--! Hash:" header`);
      return { filename: `${file.slice(0, 6)}.sql`, hash };
    }),
  );
}

/**
 * A new database with exactly the committed migrations 000001..n applied, by
 * graphile-migrate: a clone of this process's level-n template (below).
 */
export async function databaseAtLevel(n: number): Promise<TestDatabase> {
  const files = await committedMigrations();
  if (!Number.isInteger(n) || n < 1 || n > files.length) throw new Error(`no migration level ${n}: the committed levels are 1..${files.length}`);
  return createTestDatabase({ template: await levelTemplate(n, files) });
}

/**
 * The level templates this process built (level -> database name). A test
 * file that calls databaseAtLevel drops them in its teardown
 * (dropLevelTemplates); scripts/test.sh drops any a killed process left.
 */
const levelTemplates = new Map<number, Promise<string>>();

function levelTemplate(n: number, files: readonly string[]): Promise<string> {
  let template = levelTemplates.get(n);
  if (!template) {
    template = buildLevelTemplate(n, files);
    levelTemplates.set(n, template);
    template.catch(() => levelTemplates.delete(n));
  }
  return template;
}

/** Drops every level template this process built. */
export async function dropLevelTemplates(): Promise<void> {
  const names = await Promise.allSettled([...levelTemplates.values()]);
  levelTemplates.clear();
  const admin = adminSql();
  try {
    for (const name of names) {
      if (name.status === 'fulfilled') await admin.unsafe(`drop database if exists "${name.value}" with (force)`);
    }
  } finally {
    await admin.end();
  }
}

/**
 * Builds the level-n template the way a deployment reaches level n: a clone
 * of the highest level template below n already built (a deployment at that
 * level upgrading to n) or an empty database, then migrateToLevel(n).
 */
async function buildLevelTemplate(n: number, files: readonly string[]): Promise<string> {
  const below = [...levelTemplates.keys()].filter((level) => level < n).sort((a, b) => b - a)[0];
  const from = below === undefined ? undefined : await levelTemplates.get(below);
  const db = from === undefined ? await createTestDatabase({ empty: true }) : await createTestDatabase({ template: from });
  try {
    await migrateToLevel(db, n, files);
    await db.sql.end({ timeout: 5 }); // a template must have no connections
    return db.name;
  } catch (error) {
    await db.drop();
    throw error;
  }
}

/**
 * Upgrades a database (at a level below n, or empty) to level n the way a
 * deployment reaches it: by graphile-migrate, from a temporary migrations
 * folder holding byte-for-byte copies of the committed files 000001..n (it
 * checks their hash chain). Everything else in the project's .gmrc is kept
 * (only the folder changes), and `fixtures` links to db/ as in the real
 * folder, so an `--!include` would resolve the same way. Checks that
 * graphile-migrate then records exactly those n files with their hashes.
 */
export async function migrateToLevel(db: Pick<TestDatabase, 'sql' | 'url'>, n: number, files?: readonly string[]): Promise<void> {
  const committed = files ?? (await committedMigrations());
  if (!Number.isInteger(n) || n < 1 || n > committed.length) throw new Error(`no migration level ${n}: the committed levels are 1..${committed.length}`);
  const gmrc = await readFile(path.join(root, '.gmrc'), 'utf8');
  const folderSetting = /("migrationsFolder"\s*:\s*)"\.\/db\/migrations"/g;
  if ((gmrc.match(folderSetting) ?? []).length !== 1) throw new Error('.gmrc does not set "migrationsFolder": "./db/migrations" exactly once');
  const work = await mkdtemp(path.join(os.tmpdir(), `cd-level-${n}-`));
  try {
    await mkdir(path.join(work, 'migrations', 'committed'), { recursive: true });
    await symlink(path.join(root, 'db'), path.join(work, 'migrations', 'fixtures'));
    for (const file of committed.slice(0, n)) await copyFile(path.join(committedFolder, file), path.join(work, 'migrations', 'committed', file));
    await writeFile(path.join(work, '.gmrc'), gmrc.replace(folderSetting, '$1"./migrations"'));
    await runGraphileMigrate(['migrate'], work, db.url);
    const applied = JSON.stringify(await appliedMigrations(db));
    const expected = JSON.stringify(await expectedApplied(committed.slice(0, n)));
    if (applied !== expected) throw new Error(`expected the migrations ${expected} applied, found ${applied}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * True when a current.sql text has something besides comments and blank
 * lines (a `--!include` line counts: graphile-migrate expands it), the rule
 * of scripts/lib.sh current_sql_has_content.
 */
export function sqlHasContent(text: string): boolean {
  return text.split(/\r?\n/).some((line) => !/^\s*(--([^!].*)?)?$/.test(line));
}

async function currentSqlHasContent(): Promise<boolean> {
  try {
    return sqlHasContent(await readFile(path.join(migrationsFolder, 'current.sql'), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** The project's own `graphile-migrate migrate` (repository root, its .gmrc): every committed migration. */
export async function migrateCommitted(url: string): Promise<void> {
  await runGraphileMigrate(['migrate'], root, url);
}

/**
 * Upgrades the database the way `npm run migrate` and the test template do
 * (scripts/lib.sh build_from_migrations): the committed migrations, then
 * current.sql (work in progress) when it has content.
 */
export async function upgradeToLatest(url: string): Promise<void> {
  await migrateCommitted(url);
  if (await currentSqlHasContent()) await runGraphileMigrate(['watch', '--once'], root, url);
}

/**
 * A fresh database built the same way as an upgrade ends: every migration,
 * then current.sql — a clone of scripts/test.sh's build of exactly that
 * (DELETIONS_MIGRATED_TEMPLATE) when it set one.
 */
export async function databaseAtLatest(): Promise<TestDatabase> {
  const shared = process.env.DELETIONS_MIGRATED_TEMPLATE;
  if (shared) return createTestDatabase({ template: shared });
  const db = await createTestDatabase({ empty: true });
  try {
    await upgradeToLatest(db.url);
    return db;
  } catch (error) {
    await db.drop();
    throw error;
  }
}

/**
 * One sorted line per catalog fact (scripts/catalog-snapshot.sql, the parity
 * check's): equal snapshots mean the same tables, constraints, functions,
 * triggers, owners and privileges.
 */
export function catalogSnapshot(url: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', path.join(root, 'scripts', 'catalog-snapshot.sql')],
      { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`catalog snapshot of ${url} failed: ${error.message}\n${stderr}`));
        else resolve(stdout.split('\n').filter((line) => line !== ''));
      });
  });
}

/** Lines only in `a` (prefixed -) and only in `b` (prefixed +): a readable difference of two snapshots. */
export function snapshotDifference(a: readonly string[], b: readonly string[]): string[] {
  const inA = new Set(a);
  const inB = new Set(b);
  return [...a.filter((l) => !inB.has(l)).map((l) => `- ${l}`), ...b.filter((l) => !inA.has(l)).map((l) => `+ ${l}`)];
}

/** Runs a psql script against the database (e.g. db/tests/fixtures/helpers.sql once the database is at the latest level). */
export function runSqlFile(url: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', file], (error, _stdout, stderr) => {
      if (error) reject(new Error(`psql -f ${file} failed: ${error.message}\n${stderr}`));
      else resolve();
    });
  });
}

/**
 * A community with rows in a few scoped tables, a guarded read-state event and
 * a provenance row, written with plain SQL on the host's public tables only
 * (no engine function, no test fixture), so it works at every migration level.
 * Returns the community id.
 */
export async function seedCommunityRows(sql: postgres.Sql, host: string): Promise<string> {
  return sql.begin(async (tx) => {
    const [community] = await tx<{ id: string }[]>`
      insert into public.communities (host, name, signing_key, icon)
      values (${host}, ${`Community ${host}`}, ${Buffer.from(hex(`${host}:key`), 'hex')}, ${`icon-${host}.png`})
      returning id`;
    const id = community!.id;
    const [channel] = await tx<{ id: string }[]>`
      insert into public.channels (community_id, name, topic) values (${id}, 'general', ${`all things ${host}`}) returning id`;
    for (let i = 1; i <= 2; i++) {
      const pk = hex(`${host}:user:${i}`);
      const ev = hex(`${host}:event:${i}`);
      await tx`insert into public.users (community_id, pubkey, display_name) values (${id}, ${pk}, ${`user ${i}`})`;
      await tx`insert into public.relay_members (community_id, pubkey, role) values (${id}, ${pk}, ${i === 1 ? 'owner' : 'member'})`;
      await tx`insert into public.pubkey_allowlist (community_id, pubkey, added_by) values (${id}, ${pk}, 'seed')`;
      await tx`insert into public.events (community_id, id, pubkey, kind, channel_id, content)
               values (${id}, ${ev}, ${pk}, 1, ${channel!.id}, ${`hello ${i}`})`;
      await tx`insert into public.reactions (community_id, event_id, pubkey, content) values (${id}, ${ev}, ${pk}, '+')`;
      await tx`insert into public.product_feedback (community_id, submitted_by, body) values (${id}, ${pk}, ${`feedback ${i}`})`;
    }
    // Hard-deleting it is guarded (only the engine may): the purge must still be admitted after an upgrade.
    await tx`insert into public.events (community_id, id, pubkey, kind, d_tag, content)
             values (${id}, ${hex(`${host}:read-state`)}, ${hex(`${host}:user:1`)}, 30078, 'read-state:general', '{}')`;
    return id;
  });
}

/**
 * Objects and Redis keys of a community, independent of the migration level:
 * under each owned prefix two keys with two versions and a delete marker,
 * the first with one more version on top (7 entries per prefix); in Redis
 * string keys and a hash in `buzz:<id>:*`, plus the bare `buzz:<id>`, which
 * is outside the namespace and must survive a deletion.
 */
export async function seedStorageAndCache(store: S3Store, redis: Redis, id: string, tag: string): Promise<void> {
  const put = (key: string, body: string) => store.client.send(new PutObjectCommand({ Bucket: store.bucket, Key: key, Body: body }));
  await Promise.all(
    [0, 1].flatMap((i) => {
      const blob = hex(`${tag}:blob:${i}`);
      return [`_meta/${id}/${blob}.json`, `_uploads/${id}/${blob}.json`, `repos/${id}/repo-${i}.json`].map(async (key) => {
        for (let v = 0; v < 2; v++) await put(key, JSON.stringify({ key, v, tag }));
        await store.client.send(new DeleteObjectCommand({ Bucket: store.bucket, Key: key }));
        if (i === 0) await put(key, JSON.stringify({ key, v: 'after-marker', tag }));
      });
    }),
  );
  const pipeline = redis.pipeline();
  for (let i = 0; i < 3; i++) pipeline.set(`buzz:${id}:session:${i}`, `${tag}:${i}`);
  pipeline.hset(`buzz:${id}:presence`, { alice: 'online', bob: 'away' });
  pipeline.set(`buzz:${id}`, 'bare key outside the namespace');
  await pipeline.exec();
}

/**
 * Order-independent digest of the community's rows in the given public
 * tables plus its communities row (the rule of tests.community_fingerprint,
 * but with the table list passed in, so it works at any level).
 */
export async function communityRowsDigest(sql: postgres.Sql, tables: readonly string[], id: string): Promise<string> {
  const parts: string[] = [];
  for (const table of [...tables].sort()) {
    const [row] = await sql.unsafe<{ part: string }[]>(
      `select coalesce(string_agg(md5(x::text), ',' order by md5(x::text)), '') as part from public.${quoteIdent(table)} x where community_id = $1`,
      [id],
    );
    parts.push(`${table}:${row!.part}`);
  }
  const [community] = await sql<{ part: string }[]>`select md5(c::text) as part from public.communities c where c.id = ${id}`;
  parts.push(`communities:${community?.part ?? 'absent'}`);
  return parts.join(';');
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Every row of a table as jsonb, in a stable order: what "the upgrade kept the rows" compares. */
export async function tableRows(sql: postgres.Sql, table: string): Promise<unknown[]> {
  const [row] = await sql.unsafe<{ rows: unknown[] }[]>(
    `select coalesce(jsonb_agg(to_jsonb(x) order by to_jsonb(x)::text), '[]'::jsonb) as rows from ${table} x`,
  );
  return row!.rows;
}

type Row = Record<string, unknown>;

/**
 * The rows after an upgrade restricted to the columns the rows had before:
 * a later migration may add columns, but every value that existed must be
 * kept (a dropped column shows as '<dropped>').
 */
export function onOldColumns(before: readonly unknown[], after: readonly unknown[]): Row[] {
  const columns = [...new Set((before as Row[]).flatMap((r) => Object.keys(r)))];
  return (after as Row[]).map((r) => Object.fromEntries(columns.map((c) => [c, c in r ? r[c] : '<dropped>'])));
}

/** The SQLSTATE a statement fails with, or 'ok'. */
export async function sqlStateOf(query: PromiseLike<unknown>): Promise<string> {
  try {
    await query;
    return 'ok';
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string') throw error;
    return code;
  }
}

/**
 * What the application (role community_deletion_app, on its own connection)
 * gets when it inserts a row of the community into a scoped table: 'allowed'
 * (then rolled back, so nothing changes) or the SQLSTATE of the refusal.
 */
export async function applicationWrite(url: string, communityId: string): Promise<string> {
  const app = postgres(url, { max: 1, onnotice: () => {} });
  const rollback = new Error('rollback');
  try {
    await app.begin(async (tx) => {
      await tx`set local role community_deletion_app`;
      await tx`insert into public.pubkey_allowlist (community_id, pubkey) values (${communityId}, ${hex('application write probe')})`;
      throw rollback;
    });
    throw new Error('the probe transaction committed');
  } catch (error) {
    if (error === rollback) return 'allowed';
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string') throw error;
    return code;
  } finally {
    await app.end();
  }
}

/**
 * A LOGIN role (cluster-wide, like the engine's roles) that is a member of the
 * given group roles: created and granted only when missing, under an advisory
 * lock, so test files and databases sharing the cluster can ask for it at the
 * same time. Trust authentication on the test server lets it connect as is.
 */
export async function ensureLoginRole(name: string, memberOf: readonly string[]): Promise<void> {
  const admin = adminSql();
  try {
    await admin.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext('community-deletion test login roles'))`;
      const [existing] = await tx<{ rolcanlogin: boolean }[]>`select rolcanlogin from pg_roles where rolname = ${name}`;
      if (!existing) await tx.unsafe(`create role ${quoteIdent(name)} login nosuperuser inherit`);
      else if (!existing.rolcanlogin) throw new Error(`role ${name} exists but cannot log in`);
      for (const group of memberOf) {
        const [granted] = await tx<{ n: number }[]>`
          select count(*)::int as n from pg_auth_members m
           where m.roleid = ${group}::regrole and m.member = ${name}::regrole`;
        if (granted!.n === 0) await tx.unsafe(`grant ${quoteIdent(group)} to ${quoteIdent(name)}`);
      }
    });
  } finally {
    await admin.end();
  }
}

/** A connection to the database as another login role (the URL's user replaced). */
export function connectAs(url: string, role: string): postgres.Sql {
  const asRole = new URL(url);
  asRole.username = role;
  asRole.password = '';
  return postgres(asRole.toString(), { max: 1, onnotice: () => {} });
}
