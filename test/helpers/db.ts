// Test databases: each test file clones the migrated template database that
// scripts/test.sh built (DELETIONS_TEST_TEMPLATE), so files are isolated and
// may commit freely. Real PostgreSQL; nothing is mocked.
import postgres from 'postgres';
import { randomBytes } from 'node:crypto';

const host = process.env.PGHOST ?? '127.0.0.1';
const port = process.env.PGPORT ?? '5432';
const user = process.env.PGUSER ?? 'postgres';

export function dbUrl(name: string): string {
  return `postgres://${user}@${host}:${port}/${name}`;
}

export function adminSql(): postgres.Sql {
  return postgres(dbUrl('postgres'), { max: 1, onnotice: () => {} });
}

export function templateName(): string {
  const name = process.env.DELETIONS_TEST_TEMPLATE;
  if (!name) throw new Error('DELETIONS_TEST_TEMPLATE is not set: run the TypeScript tests through `npm test` (scripts/test.sh)');
  return name;
}

export interface TestDatabase {
  name: string;
  url: string;
  sql: postgres.Sql;
  drop(): Promise<void>;
}

/**
 * A fresh database: a clone of the migrated template, empty with `empty: true`,
 * or a clone of another database (one without connections) with `template`.
 */
export async function createTestDatabase(options: { empty?: boolean; template?: string } = {}): Promise<TestDatabase> {
  const name = `cd_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = adminSql();
  try {
    if (options.empty) await admin.unsafe(`create database "${name}"`);
    else await admin.unsafe(`create database "${name}" template "${(options.template ?? templateName()).replaceAll('"', '""')}"`);
  } finally {
    await admin.end();
  }
  const sql = postgres(dbUrl(name), { max: 4, onnotice: () => {} });
  return {
    name,
    url: dbUrl(name),
    sql,
    async drop() {
      await sql.end({ timeout: 5 });
      const a = adminSql();
      try {
        await a.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await a.end();
      }
    },
  };
}

/**
 * The second operator's database login (db/tests/fixtures/logins.sql, created
 * by scripts/test.sh): the two-person rule refuses an approval from the login
 * that submitted, and tests submit as the superuser.
 */
export const APPROVER_LOGIN = 'cd_test_approver';

/** The same connection string as another login (trust authentication on the test server). */
export function urlAs(url: string, user: string): string {
  const u = new URL(url);
  u.username = user;
  u.password = '';
  return u.toString();
}

/** The URL of the database a pool is connected to. */
export function urlOf(sql: postgres.Sql): string {
  const o = sql.options as unknown as { host: string[]; port: number[]; database: string; user: string };
  return `postgres://${o.user}@${o.host[0]}:${o.port[0]}/${o.database}`;
}

/** community_deletion.approve from the second operator's login. */
export async function approveAsSecondLogin(sql: postgres.Sql, requestId: string, approvedBy = 'bob@ops', note = 'approved by a second operator'): Promise<void> {
  const approver = postgres(urlAs(urlOf(sql), APPROVER_LOGIN), { max: 1, onnotice: () => {} });
  try {
    await approver`select 1 from community_deletion.approve(${requestId}::uuid, ${approvedBy}, ${note})`;
  } finally {
    await approver.end({ timeout: 5 });
  }
}
