// npm run seed -- --host H [--rows N] [--objects M] [--keys K]
//
// For trying the engine (never for production: there the host application
// creates communities and their data): creates community H with about N rows
// spread over the registered scoped tables plus provenance rows (PostgreSQL,
// the benchmark's set-based seeder scripts/bench/seed.sql, installed into
// schema "bench"), exactly M object versions under its three owned S3
// prefixes in the shapes the storage taxonomy expects (60 % _meta/, 30 %
// _uploads/, 10 % repos/), and exactly K Redis keys in its namespace
// buzz:<id>:*. Uses DATABASE_URL, BUZZ_S3_* and REDIS_URL like the CLI; a
// missing bucket is created with versioning enabled (an existing one is left
// as it is: `deletions doctor` says whether it is versioned).
// Prints {"host","community_id","rows","rows_by_table","object_versions","redis_keys"}
// (JSON when stdout is not a terminal). Exit 0 done, 2 usage (bad option,
// host already taken), 5 configuration (missing variable, unreachable store).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import postgres from 'postgres';
import { ConfigError, loadDatabaseUrl, loadRedisConfig, loadS3Config } from '../src/config.js';
import { connect } from '../src/db.js';
import { createS3Client } from '../src/s3.js';
import { ensureVersionedBucket } from '../src/dev/local-s3.js';
import { ownedKeys, putObjects, root, seedRedis } from './bench/lib.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const EXIT_USAGE = 2;
const EXIT_CONFIG = 5;

class SeedError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

const count = (name: string, fallback: number) => ({
  type: 'string' as const,
  default: String(fallback),
  describe: name,
  coerce: (v: string) => {
    if (!/^[0-9]+$/.test(String(v).trim())) throw new Error(`--${name.split(' ')[0]} must be a non-negative integer, got ${JSON.stringify(v)}`);
    return Number(v);
  },
});

async function main(): Promise<void> {
  const args = await yargs(hideBin(process.argv))
    .scriptName('npm run seed --')
    .usage('$0 --host H [--rows N] [--objects M] [--keys K]\n\nCreate a community with data in PostgreSQL, S3 and Redis, for trying the engine.')
    .option('host', { type: 'string', demandOption: true, describe: 'host of the new community' })
    .option('rows', count('rows (about this many, at least 100, over the scoped tables)', 1000))
    .option('objects', count('objects (object versions under the owned S3 prefixes)', 30))
    .option('keys', count('keys (Redis keys in buzz:<id>:*)', 20))
    .option('json', { type: 'boolean', describe: 'JSON on stdout (default when stdout is not a TTY)' })
    .strict()
    .fail((message, error, y) => {
      process.stderr.write(`${y.help()}\n\n${error?.message ?? message}\n`);
      process.exit(EXIT_USAGE);
    })
    .help()
    .parseAsync();
  const host = args.host.trim();
  if (host === '') throw new SeedError('--host is empty', EXIT_USAGE);
  const rows = args.rows as unknown as number;
  const objects = args.objects as unknown as number;
  const keys = args.keys as unknown as number;

  // Every setting first, so a configuration error creates nothing.
  const databaseUrl = loadDatabaseUrl();
  const s3Config = loadS3Config();
  loadRedisConfig();

  const sql = connect(databaseUrl, { max: 1, applicationName: 'deletions-seed' });
  const s3 = createS3Client(s3Config, { maxAttempts: 2 });
  try {
    try {
      await s3.send(new HeadBucketCommand({ Bucket: s3Config.bucket }));
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== 404) {
        throw new SeedError(`S3 bucket ${s3Config.bucket} at ${s3Config.endpoint} is not usable: ${(error as Error).message || (error as Error).name}`, EXIT_CONFIG);
      }
      await ensureVersionedBucket(s3, s3Config.bucket);
      process.stderr.write(`created bucket ${s3Config.bucket} with versioning enabled\n`);
    }

    await sql.unsafe(readFileSync(path.join(root, 'scripts/bench/seed.sql'), 'utf8'));
    const [existing] = await sql<{ id: string }[]>`select id from public.communities where lower(host) = lower(${host})`;
    if (existing) throw new SeedError(`a community with host ${host} already exists (${existing.id}); pick another --host`, EXIT_USAGE);
    const [row] = await sql<{ id: string }[]>`select bench.seed_community(${host}, ${rows}) as id`;
    const id = row!.id;
    const tables = await sql<{ schema_name: string; table_name: string }[]>`
      select schema_name, table_name from community_deletion.registered_tables where kind = 'scoped' order by table_name collate "C"`;
    const byTable: { table_name: string; rows: number }[] = [];
    for (const t of tables) {
      const [c] = await sql<{ n: string }[]>`select count(*) as n from ${sql(t.schema_name)}.${sql(t.table_name)} where community_id = ${id}`;
      byTable.push({ table_name: t.table_name, rows: Number(c!.n) });
    }

    await putObjects({ client: s3, config: s3Config }, ownedKeys(id, objects), 8);
    await seedRedis(id, keys);

    const result = {
      host,
      community_id: id,
      rows: byTable.reduce((n, r) => n + r.rows, 0),
      rows_by_table: Object.fromEntries(byTable.map((r) => [r.table_name, r.rows])),
      object_versions: objects,
      redis_keys: keys,
    };
    if (args.json || !process.stdout.isTTY) process.stdout.write(`${JSON.stringify(result)}\n`);
    else {
      process.stdout.write(
        `community ${host} (${id}): ${result.rows} rows over ${byTable.length} scoped tables, ` +
          `${objects} object versions in ${s3Config.bucket}, ${keys} Redis keys buzz:${id}:*\n` +
          `see what a deletion would remove: bin/deletions plan --host ${host}\n`,
      );
    }
  } finally {
    s3.destroy();
    await sql.end({ timeout: 5 });
  }
}

main().catch((error: unknown) => {
  const exitCode =
    error instanceof SeedError ? error.exitCode
    : error instanceof ConfigError ? EXIT_CONFIG
    : error instanceof postgres.PostgresError ? EXIT_CONFIG
    : (error as { code?: string }).code === 'ECONNREFUSED' ? EXIT_CONFIG
    : 1;
  process.stderr.write(`seed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(exitCode);
});
