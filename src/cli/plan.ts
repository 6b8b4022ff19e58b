// deletions plan --host H: what a deletion of the community would remove, in
// all three stores, without creating a request and without writing anything:
// rows per registered table in purge order (community_deletion.plan, SQL),
// object versions and delete markers per owned prefix (the same enumeration
// submit freezes, src/inventory.ts, with the storage taxonomy), and the keys
// of the community's Redis namespace. The storage summary it prints is exactly
// what community_deletion.freeze_inventory accepts (docs/psql-walkthrough.sql).
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import type { Redis } from 'ioredis';
import { ConfigError, loadRedisConfig, loadS3Config, loadTuning } from '../config.js';
import type { PostgresPlan } from '../engine.js';
import { enumerateOwnedStorage, loadTaxonomy, type VersionLister } from '../inventory.js';
import type { SizedEntry, StorageSummary } from '../manifest.js';
import type { StoreIdentity } from '../store-identity.js';
import { namespacePattern, SCAN_COUNT } from '../cache-errors.js';
import { StorageError } from '../s3-errors.js';
import { CliError, run, withEngine } from './common.js';
import { EXIT } from './exit-codes.js';
import { Progress, table } from './format.js';
import { resolveHost } from './operator.js';

export interface PrefixPlan {
  prefix: string;
  /** Object versions (kind object). */
  object_versions: number;
  delete_markers: number;
  total_bytes: number;
  keys_digest: string;
}

export interface Plan {
  host: string;
  community_id: string;
  deletion_state: string;
  open_request: PostgresPlan['open_request'];
  postgres: Pick<PostgresPlan, 'tables' | 'rows_to_delete' | 'rows_to_unlink' | 'excluded_tables'>;
  s3: { endpoint: string; bucket: string; prefixes: PrefixPlan[]; object_versions: number; delete_markers: number };
  redis: { pattern: string; keys: number };
  /** The storage half of an inventory, as community_deletion.freeze_inventory takes it. */
  storage_summary: StorageSummary;
  /**
   * The stores the plan listed (S3 endpoint + bucket, Redis server + database),
   * as community_deletion.freeze_inventory takes its store_identity: a DBA's
   * freeze records them, so an executor configured for other stores is
   * refused (DL4S1) instead of adopting its own.
   */
  store_identity: StoreIdentity;
}

/**
 * A Redis client that fails fast instead of reconnecting forever (plan, doctor, seed),
 * in the database REDIS_URL names (verifyRedisDatabase: a database the server
 * refuses is a RedisDatabaseError, exit 5) unless `verify` is false (doctor
 * reports that as its own check).
 */
export async function connectRedisOnce(url: string, timeoutMs = 5_000, options: { verify?: boolean } = {}): Promise<Redis> {
  const [{ Redis }, { verifyRedisDatabase }] = await Promise.all([import('ioredis'), import('../redis.js')]);
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    if (options.verify !== false) await verifyRedisDatabase(client);
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return client;
}

/** Keys of the community's namespace (`buzz:<id>:*`, SCAN MATCH as the purge uses). */
export async function countNamespaceKeys(redis: Redis, communityId: string): Promise<number> {
  const pattern = namespacePattern(communityId);
  const prefix = Buffer.from(`buzz:${communityId}:`);
  let cursor = '0';
  const seen = new Set<string>();
  do {
    const [next, keys] = await redis.scanBuffer(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
    // SCAN may return a key twice; count each once.
    for (const key of keys) if (key.subarray(0, prefix.length).equals(prefix)) seen.add(key.toString('hex'));
    cursor = next.toString();
  } while (cursor !== '0');
  return seen.size;
}

/** Counts kinds per prefix while the enumeration builds the canonical summary. */
class CountingLister implements VersionLister {
  readonly counts = new Map<string, { objects: number; markers: number }>();
  constructor(private readonly inner: VersionLister) {}

  async *listVersions(prefix: string): AsyncIterable<SizedEntry> {
    const c = { objects: 0, markers: 0 };
    this.counts.set(prefix, c);
    for await (const entry of this.inner.listVersions(prefix)) {
      if (entry.kind === 'delete_marker') c.markers += 1;
      else c.objects += 1;
      yield entry;
    }
  }
}

function redisFailure(url: string, error: unknown): CliError {
  const where = (() => {
    try {
      const u = new URL(url);
      return `${u.hostname}:${u.port || '6379'}${u.pathname && u.pathname !== '/' ? u.pathname : ''}`;
    } catch {
      return 'REDIS_URL';
    }
  })();
  return new CliError(`Redis at ${where} is not usable: ${error instanceof Error ? error.message : String(error)}`, EXIT.config, { variable: 'REDIS_URL' });
}

export async function buildPlan(host: string, onProgress?: (label: string, n: number) => void): Promise<Plan> {
  // Every setting first: a configuration error costs nothing.
  const s3Config = loadS3Config();
  const redisConfig = loadRedisConfig();
  const tuning = loadTuning();
  return withEngine('deletions-plan', async (engine) => {
    const pg = await engine.plan(host);
    const { createS3Store } = await import('../s3.js');
    const store = createS3Store(s3Config);
    let summary: StorageSummary;
    const lister = new CountingLister(store);
    try {
      const taxonomy = await loadTaxonomy(engine);
      summary = await enumerateOwnedStorage(lister, taxonomy, pg.community_id, {
        chunkSize: tuning.chunkSize,
        onEntry: (prefix, n) => onProgress?.(`listing ${prefix}`, n),
      });
    } catch (error) {
      if (error instanceof StorageError) {
        throw new CliError(`S3 bucket ${s3Config.bucket} at ${s3Config.endpoint} could not be listed: ${error.message}`, EXIT.config, { variable: 'BUZZ_S3_BUCKET' });
      }
      throw error;
    } finally {
      store.client.destroy();
    }
    let redis: Redis;
    try {
      redis = await connectRedisOnce(redisConfig.url);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw redisFailure(redisConfig.url, error);
    }
    let keys: number;
    try {
      keys = await countNamespaceKeys(redis, pg.community_id);
    } catch (error) {
      throw redisFailure(redisConfig.url, error);
    } finally {
      redis.disconnect();
    }
    const { storeIdentityFromConfig } = await import('../store-identity.js');
    const prefixes = summary.prefixes.map((p) => {
      const c = lister.counts.get(p.prefix) ?? { objects: 0, markers: 0 };
      return { prefix: p.prefix, object_versions: c.objects, delete_markers: c.markers, total_bytes: p.total_bytes, keys_digest: p.keys_digest };
    });
    return {
      host: pg.host,
      community_id: pg.community_id,
      deletion_state: pg.deletion_state,
      open_request: pg.open_request,
      postgres: { tables: pg.tables, rows_to_delete: pg.rows_to_delete, rows_to_unlink: pg.rows_to_unlink, excluded_tables: pg.excluded_tables },
      s3: {
        endpoint: s3Config.endpoint,
        bucket: s3Config.bucket,
        prefixes,
        object_versions: prefixes.reduce((n, p) => n + p.object_versions, 0),
        delete_markers: prefixes.reduce((n, p) => n + p.delete_markers, 0),
      },
      redis: { pattern: `buzz:${pg.community_id}:*`, keys },
      storage_summary: summary,
      store_identity: storeIdentityFromConfig(s3Config, redisConfig),
    };
  });
}

export function humanPlan(plan: Plan): string {
  const lines = [
    `Plan for ${plan.host} (community ${plan.community_id}, ${plan.deletion_state}). Nothing was requested or written.`,
    plan.open_request
      ? `Open request: ${plan.open_request.id} at ${plan.open_request.stage} (requested by ${plan.open_request.requested_by}).`
      : 'Open request: none (deletions submit --host … creates one).',
    '',
    'PostgreSQL, in purge order (provenance rows keep their row, their community column is set to NULL):',
    table(plan.postgres.tables, ['table', 'kind', 'action', 'rows']),
    `rows to delete: ${plan.postgres.rows_to_delete}; provenance rows to unlink: ${plan.postgres.rows_to_unlink}`,
  ];
  if (plan.postgres.excluded_tables.length > 0) {
    lines.push(`registered as excluded (kept): ${plan.postgres.excluded_tables.map((t) => t.table).join(', ')}`);
  }
  lines.push(
    '',
    `S3 bucket ${plan.s3.bucket} at ${plan.s3.endpoint}, owned prefixes (every version and delete marker is deleted):`,
    table(plan.s3.prefixes, ['prefix', 'object_versions', 'delete_markers', 'total_bytes']),
    '',
    `Redis: ${plan.redis.keys} keys match ${plan.redis.pattern}`,
    '',
    'Counts are a snapshot: writes continue until the fence closes, and the executor deletes what is there then.',
  );
  return lines.join('\n');
}

type PlanArgs = { host?: string };
export const planCommand: CommandModule<object, PlanArgs> = {
  command: 'plan',
  describe: 'Show what deleting a community would remove (rows, object versions, Redis keys) without creating a request',
  builder: (y: Argv) =>
    y.option('host', { type: 'string', describe: 'community host (default, only when --host is absent: authority of RELAY_URL)' }) as Argv<PlanArgs>,
  handler: (args: ArgumentsCamelCase<PlanArgs>) =>
    run(async (out) => {
      const host = resolveHost(args.host);
      const progress = new Progress();
      const plan = await buildPlan(host, (label, n) => progress.update(label, n));
      progress.done();
      out.result(plan, humanPlan(plan));
    }),
};
