// npm run bench [-- --quick] [-- --only fence,deletion,fleet,memory,freeze,catalog,purge] [-- --out FILE]
//                [-- --rows N] [-- --scale N] [-- --batch-rows N] [-- --rest-ratio R] [-- --idle-seconds S]   (purge group)
//
// Issue 7 §3 benchmarks. Every figure is a ratio against a baseline measured
// in the same run; absolute times are reported, never judged, and nothing here
// is a test (no thresholds fail a build). Each measurement runs in its own
// freshly cloned database (template built from the migrations, current.sql
// included), with its own moto_server and the community's own Redis namespace
// (buzz:<fresh uuid>:*). Results: a table on stdout and JSON in
// bench-results.json (repo root, or --out). See docs/benchmarks.md.
//
//   1. fence   — insert throughput into a scoped table of an active community:
//                (a) no fence, (b) a seed-style row fence, (c) ours as
//                installed (native when db/native is on the server), and for
//                information (c') ours on the PL/pgSQL fallback; single-row
//                autocommit INSERTs and 1,000-row multi-row INSERTs.
//   2. deletion — one community of 1,000,000 rows, 5,000 object versions,
//                10,000 Redis keys: the engine (claim → retention_pending) vs a
//                naive script on an identical copy.
//   3. fleet   — the same 10,000-row community deleted in a fleet of 100,000
//                and of 2,000,000 bystander rows.
//   4. memory  — executor peak RSS (bin/deletions run, child process) deleting
//                20,000 vs 2,000 object versions.
//   5. freeze  — scripts/bench-freeze.sh (1,000,000-entry manifest freeze),
//                informational.
//   6. purge   — issue 15 §4–7 (scripts/bench/purge.ts): the batched purge of
//                a 1 M- and a 5 M-row community (--rows N: N and 5 × N;
//                --scale N adds N million) vs the naive script — longest
//                transaction and schema-lock hold, a bystander writer's
//                p50/p99, the whole deletion, a VACUUM during the purge.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { benchPurge, type PurgeSizes } from './purge.js';
import {
  Databases,
  TimedEngine,
  connectTo,
  countRedis,
  countVersions,
  log,
  median,
  ownedKeys,
  pgServer,
  prepareRequest,
  putObjects,
  redisUrl,
  root,
  runCli,
  runEngine,
  runNaive,
  seedRedis,
  startBucket,
  withRedis,
  type Bucket,
  type Row,
} from './lib.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const onlyArg = argv.find((a) => a.startsWith('--only'));
const onlyValue = onlyArg?.includes('=') ? onlyArg.split('=')[1] : onlyArg ? argv[argv.indexOf(onlyArg) + 1] : undefined;
function option(name: string): string | undefined {
  const arg = argv.find((a) => a === name || a.startsWith(`${name}=`));
  if (!arg) return undefined;
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[argv.indexOf(arg) + 1];
}
function numberOption(name: string): number | undefined {
  const raw = option(name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} needs a positive number, got ${raw}`);
  return value;
}
// --scale N: the purge group also deletes an N-million-row community (not part
// of the default bench; alone, it implies --only purge).
const scale = numberOption('--scale');
const only = new Set((onlyValue ?? (scale !== undefined ? 'purge' : 'fence,deletion,fleet,memory,freeze,catalog,purge')).split(',').map((s) => s.trim()));
for (const group of only) {
  if (!['fence', 'deletion', 'fleet', 'memory', 'freeze', 'catalog', 'purge'].includes(group)) throw new Error(`unknown bench group ${group}`);
}
const outArg = argv.find((a) => a.startsWith('--out'));
const outFile = path.resolve(
  root,
  (outArg?.includes('=') ? outArg.split('=')[1] : outArg ? argv[argv.indexOf(outArg) + 1] : undefined) ?? 'bench-results.json',
);

const sizes = quick
  ? {
      fenceRounds: 2, singleRows: 1000, bulkStatements: 15,
      deletionRows: 100_000, deletionObjects: 1000, deletionKeys: 2000,
      fleetTargetRows: 10_000, fleetSmall: 50_000, fleetLarge: 500_000, fleetObjects: 50, fleetKeys: 100,
      memorySmall: 500, memoryLarge: 5000,
      freezeEntries: 100_000,
      purgeRows: 100_000,
      purgeIdleSeconds: 5,
    }
  : {
      fenceRounds: 3, singleRows: 3000, bulkStatements: 40,
      deletionRows: 1_000_000, deletionObjects: 5000, deletionKeys: 10_000,
      fleetTargetRows: 10_000, fleetSmall: 100_000, fleetLarge: 2_000_000, fleetObjects: 100, fleetKeys: 100,
      memorySmall: 2000, memoryLarge: 20_000,
      freezeEntries: 1_000_000,
      purgeRows: 1_000_000,
      purgeIdleSeconds: 10,
    };
// --rows N: the purge group's smaller tenant (the larger is 5 × N).
const purgeRows = Math.round(numberOption('--rows') ?? sizes.purgeRows);
const purgeSizes: PurgeSizes = {
  baseRows: purgeRows,
  largeRows: purgeRows * 5,
  scaleRows: scale === undefined ? null : Math.round(scale * 1_000_000),
  bystanders: 4,
  bystanderRows: 10_000,
  objects: 500,
  keys: 500,
  writerRate: 200,
  idleSeconds: numberOption('--idle-seconds') ?? sizes.purgeIdleSeconds,
  churnRows: 20_000,
  batchRows: numberOption('--batch-rows') ?? null,
  restRatio: numberOption('--rest-ratio') ?? null,
};

const rows: Row[] = [];
const server = pgServer();
const dbs = new Databases(server);

function ratioRow(r: Omit<Row, 'ratio' | 'met'>, direction: 'higher' | 'lower', bound: number, measuredRatio?: number): Row {
  const ratio = measuredRatio ?? (r.baseline && r.ours !== null ? r.ours / r.baseline : null);
  const met = ratio === null ? null : direction === 'higher' ? ratio >= bound : ratio <= bound;
  const row = { ...r, ratio, met };
  rows.push(row);
  log(`${r.measurement}: ${r.baseline_label} ${fmt(r.baseline)} ${r.unit}, ${r.ours_label} ${fmt(r.ours)} ${r.unit}, ratio ${ratio?.toFixed(3)} (target ${r.target})`);
  return row;
}

function fmt(n: number | null): string {
  if (n === null) return '—';
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  return n.toFixed(2);
}

// ---------------------------------------------------------------------------
// 1. Fence overhead on serving writes

// 'ours' is the fence as the migrations install it (native when db/native is
// installed on the server); 'plpgsql' is ours with the PL/pgSQL fallback
// (community_deletion.install_write_fence(false)), reported for information.
type Variant = 'none' | 'seed' | 'ours' | 'plpgsql';
type Shape = 'single' | 'bulk';
const variants: Variant[] = ['none', 'seed', 'ours', 'plpgsql'];

interface FenceTarget {
  variant: Variant;
  name: string;
  sql: postgres.Sql;
  id: string;
  rows: number;
  ms: number;
}

/**
 * One round of one shape: a fresh database per variant, all three open at
 * once, and the timed work interleaved in small blocks (rotating the order)
 * so that drift on a shared machine — other processes, checkpoints, the disk
 * flush time of the commits — lands on all three variants alike.
 */
async function fenceRound(template: string, shape: Shape, round: number): Promise<Record<Variant, { rows: number; ms: number }>> {
  const targets: FenceTarget[] = [];
  try {
    for (const variant of variants) {
      const name = await dbs.clone(template, `fence_${shape}_${round}_${variant}`);
      const sql = connectTo(dbs.url(name), 1);
      const [community] = await sql<{ id: string }[]>`
        insert into public.communities (host, name) values (${`fence-${variant}.bench`}, 'bench') returning id`;
      await sql`select bench.use_fence('public.pubkey_allowlist'::regclass, ${variant})`;
      // Serving writers run as the application role (same connection: max 1).
      await sql`set role community_deletion_app`;
      targets.push({ variant, name, sql, id: community!.id, rows: 0, ms: 0 });
    }
    const insertOne = (t: FenceTarget, key: string) =>
      t.sql`insert into public.pubkey_allowlist (community_id, pubkey) values (${t.id}, ${key})`;
    const insertMany = (t: FenceTarget, stmt: number) => {
      const batch = Array.from({ length: 1000 }, (_, j) => ({ community_id: t.id, pubkey: `b${stmt}-${j}` }));
      return t.sql`insert into public.pubkey_allowlist ${t.sql(batch, 'community_id', 'pubkey')}`;
    };
    // Warm up: connections, prepared statements, plan and relation caches.
    for (const t of targets) {
      if (shape === 'single') for (let i = 0; i < 100; i++) await insertOne(t, `warm-${i}`);
      else for (let i = 0; i < 2; i++) await insertMany(t, -1 - i);
    }
    const blockSize = shape === 'single' ? 50 : 1;
    const blocks = shape === 'single' ? Math.ceil(sizes.singleRows / blockSize) : sizes.bulkStatements;
    for (let b = 0; b < blocks; b++) {
      for (let k = 0; k < targets.length; k++) {
        const t = targets[(b + k + round) % targets.length]!;
        const started = performance.now();
        if (shape === 'single') for (let i = 0; i < blockSize; i++) await insertOne(t, `k${b}-${i}`);
        else await insertMany(t, b);
        t.ms += performance.now() - started;
        t.rows += shape === 'single' ? blockSize : 1000;
      }
    }
    return Object.fromEntries(targets.map((t) => [t.variant, { rows: t.rows, ms: t.ms }])) as Record<Variant, { rows: number; ms: number }>;
  } finally {
    for (const t of targets) {
      await t.sql.end({ timeout: 5 });
      await dbs.drop(t.name);
    }
  }
}

async function benchFence(template: string): Promise<void> {
  const probe = connectTo(dbs.url(template), 1);
  const [impl] = await probe<{ impl: string }[]>`select community_deletion.write_fence_implementation() as impl`;
  await probe.end({ timeout: 5 });
  const implementation = impl!.impl;
  log(`   the migrations installed the ${implementation} write fence${implementation === 'native' ? '' : ' (db/native is not installed on this server: make -C db/native install)'}`);
  log(`1. fence overhead: ${sizes.fenceRounds} rounds × {none, seed-style, ours, ours on the PL/pgSQL fallback} × {${sizes.singleRows} single-row, ${sizes.bulkStatements} × 1,000-row} INSERTs`);
  for (const shape of ['single', 'bulk'] as Shape[]) {
    const rounds: Record<Variant, number>[] = [];
    const total = Object.fromEntries(variants.map((v) => [v, { rows: 0, ms: 0 }])) as Record<Variant, { rows: number; ms: number }>;
    for (let round = 0; round < sizes.fenceRounds; round++) {
      const r = await fenceRound(template, shape, round);
      const rps = Object.fromEntries(variants.map((v) => [v, r[v].rows / (r[v].ms / 1000)])) as Record<Variant, number>;
      rounds.push(rps);
      for (const v of variants) {
        total[v].rows += r[v].rows;
        total[v].ms += r[v].ms;
      }
      log(`   round ${round + 1} ${shape}: ${variants.map((v) => `${v} ${Math.round(rps[v]).toLocaleString('en-US')} rows/s`).join(', ')}`);
    }
    // Each round interleaves the variants, so a round's ratio is
    // measured under one machine state; the figure is the median of the
    // rounds' ratios (a round disturbed by a neighbour cannot carry it), shown
    // next to the median throughputs.
    const m = (v: Variant) => median(rounds.map((r) => r[v]));
    const ratioOf = (v: Variant) => median(rounds.map((r) => r.ours / r[v]));
    const label = shape === 'single' ? 'single-row autocommit INSERT' : '1,000-row multi-row INSERT';
    const detail = {
      rounds_rows_per_second: rounds,
      rows_per_variant: total.none.rows,
      microseconds_per_row_median: Object.fromEntries(variants.map((v) => [v, 1e6 / m(v)])),
      microseconds_per_row_total: Object.fromEntries(variants.map((v) => [v, (total[v].ms * 1000) / total[v].rows])),
    };
    ratioRow({ id: `fence_${shape}_vs_none`, measurement: `fence: ${label}, ours vs no fence`, baseline_label: '(a) no fence', baseline: m('none'),
      ours_label: '(c) ours', ours: m('ours'), unit: 'rows/s', target: '≥ 0.90', detail }, 'higher', 0.9, ratioOf('none'));
    ratioRow({ id: `fence_${shape}_vs_seed`, measurement: `fence: ${label}, ours vs seed-style row fence`, baseline_label: '(b) seed-style', baseline: m('seed'),
      ours_label: '(c) ours', ours: m('ours'), unit: 'rows/s', target: '≥ 1.00', detail }, 'higher', 1.0, ratioOf('seed'));
    const fallback = median(rounds.map((r) => r.plpgsql / r.none));
    rows.push({ id: `fence_${shape}_plpgsql_vs_none`, measurement: `fence: ${label}, ours on the PL/pgSQL fallback vs no fence`,
      baseline_label: '(a) no fence', baseline: m('none'), ours_label: "(c') PL/pgSQL fallback", ours: m('plpgsql'), unit: 'rows/s',
      ratio: fallback, target: 'informational', met: null, detail: { implementation_of_ours: implementation } });
    log(`fence: ${label}, PL/pgSQL fallback vs no fence: ratio ${fallback.toFixed(3)} (informational)`);
  }
}

// ---------------------------------------------------------------------------
// 2. Deletion cost vs the naive way

async function seedDatabase(name: string, body: (sql: postgres.Sql) => Promise<void>): Promise<void> {
  const sql = connectTo(dbs.url(name), 1);
  try {
    await body(sql);
    await sql.unsafe('vacuum analyze');
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function seedStorage(bucket: Bucket, communityId: string, objects: number, keys: number): Promise<void> {
  await Promise.all([putObjects(bucket, ownedKeys(communityId, objects)), seedRedis(communityId, keys)]);
}

async function benchDeletion(template: string): Promise<void> {
  const { deletionRows: n, deletionObjects: objects, deletionKeys: keys } = sizes;
  log(`2. deletion vs naive: ${n.toLocaleString('en-US')} rows, ${objects} object versions, ${keys} Redis keys`);
  const engineDb = await dbs.clone(template, 'deletion_engine');
  let communityId = '';
  const seedStarted = performance.now();
  await seedDatabase(engineDb, async (sql) => {
    const [t] = await sql<{ id: string }[]>`select bench.seed_community('deletion-target.bench', ${n}) as id`;
    communityId = t!.id;
    await sql`select bench.seed_community('deletion-bystander.bench', 10000)`;
  });
  log(`   seeded PostgreSQL in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s; cloning it for the naive run`);
  const naiveDb = await dbs.clone(engineDb, 'deletion_naive');
  const rowsBefore = await (async () => {
    const sql = connectTo(dbs.url(engineDb));
    try {
      const [r] = await sql<{ n: string }[]>`select bench.scoped_rows(${communityId}) as n`;
      return Number(r!.n);
    } finally {
      await sql.end({ timeout: 5 });
    }
  })();

  // The engine.
  let engine;
  let purgeBatches = 0;
  {
    const bucket = await startBucket();
    try {
      await seedStorage(bucket, communityId, objects, keys);
      const sql = connectTo(dbs.url(engineDb), 1);
      let requestId: string;
      try {
        ({ requestId } = await prepareRequest(sql, bucket, 'deletion-target.bench'));
      } finally {
        await sql.end({ timeout: 5 });
      }
      log('   engine: running Executor.runOnce (claim → retention_pending)');
      let timed: TimedEngine | undefined;
      engine = await runEngine(dbs.url(engineDb), bucket, requestId, { engine: (s) => (timed = new TimedEngine(s)) });
      purgeBatches = timed!.calls.filter((c) => c.call === 'purge_postgres_batch').length;
      if (purgeBatches === 0) throw new Error('the engine did not use the batched purge (no purge_postgres_batch call)');
      log(`   engine: the PostgreSQL purge took ${purgeBatches} batches (purge_postgres_batch) and finish_postgres_purge`);
      const left = { versions: await countVersions(bucket, communityId), keys: await countRedis(communityId) };
      if (left.versions !== 0 || left.keys !== 0) throw new Error(`the engine left ${JSON.stringify(left)}`);
      log(`   engine: ${(engine.ms / 1000).toFixed(1)} s — ${engine.stages.map((s) => `${s.stage} ${(s.ms / 1000).toFixed(1)}s`).join(', ')}`);
    } finally {
      bucket.stop();
    }
  }
  await dbs.drop(engineDb);

  // The naive script, on the identical copy, with S3 and Redis re-seeded identically.
  let naive;
  {
    const bucket = await startBucket();
    try {
      await seedStorage(bucket, communityId, objects, keys);
      log('   naive: DELETE per table, list + DeleteObjects, SCAN + UNLINK');
      naive = await runNaive(dbs.url(naiveDb), bucket, communityId);
      const left = { versions: await countVersions(bucket, communityId), keys: await countRedis(communityId) };
      if (left.versions !== 0 || left.keys !== 0) throw new Error(`the naive script left ${JSON.stringify(left)}`);
      log(`   naive: ${(naive.ms / 1000).toFixed(1)} s (PostgreSQL ${(naive.pgMs / 1000).toFixed(1)} s, S3 ${(naive.s3Ms / 1000).toFixed(1)} s, Redis ${(naive.redisMs / 1000).toFixed(1)} s)`);
    } finally {
      bucket.stop();
    }
  }
  await dbs.drop(naiveDb);
  ratioRow({
    id: 'deletion_vs_naive', measurement: `deletion: ${n.toLocaleString('en-US')} rows + ${objects} versions + ${keys} keys, engine vs naive`,
    baseline_label: 'naive script', baseline: naive.ms / 1000, ours_label: 'engine', ours: engine.ms / 1000, unit: 's', target: '≤ 1.20',
    detail: { rows: rowsBefore, objects, keys, purge_batches: purgeBatches, engine_stages_ms: engine.stages, naive_ms: { ...naive, statements: undefined } },
  }, 'lower', 1.2);
}

// ---------------------------------------------------------------------------
// 3. Cost grows with the tenant, not the fleet

async function fleetOnce(template: string, label: string, bystanderRows: number): Promise<{ ms: number[]; stages: unknown[] }> {
  const name = await dbs.clone(template, `fleet_${label}`);
  const perCommunity = bystanderRows >= 1_000_000 ? 100_000 : 10_000;
  const communities = Math.max(1, Math.round(bystanderRows / perCommunity));
  const targets: { host: string; id: string }[] = [];
  const seedStarted = performance.now();
  await seedDatabase(name, async (sql) => {
    for (let i = 0; i < communities; i++) await sql`select bench.seed_community(${`fleet-${label}-bystander-${i}.bench`}, ${perCommunity})`;
    for (const t of ['t1', 't2', 't3']) {
      const host = `fleet-${label}-${t}.bench`;
      const [r] = await sql<{ id: string }[]>`select bench.seed_community(${host}, ${sizes.fleetTargetRows}) as id`;
      targets.push({ host, id: r!.id });
    }
  });
  log(`   ${label}: ${communities} bystanders × ${perCommunity.toLocaleString('en-US')} rows seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
  const bucket = await startBucket();
  const ms: number[] = [];
  const stages: unknown[] = [];
  try {
    const sql = connectTo(dbs.url(name), 1);
    const requests: string[] = [];
    try {
      for (const t of targets) {
        await seedStorage(bucket, t.id, sizes.fleetObjects, sizes.fleetKeys);
        requests.push((await prepareRequest(sql, bucket, t.host)).requestId);
      }
    } finally {
      await sql.end({ timeout: 5 });
    }
    for (const requestId of requests) {
      const run = await runEngine(dbs.url(name), bucket, requestId);
      ms.push(run.ms);
      stages.push(run.stages);
    }
  } finally {
    bucket.stop();
    await dbs.drop(name);
  }
  log(`   ${label}: engine ${ms.map((x) => `${(x / 1000).toFixed(2)} s`).join(', ')}`);
  return { ms, stages };
}

async function benchFleet(template: string): Promise<void> {
  log(`3. fleet independence: a ${sizes.fleetTargetRows.toLocaleString('en-US')}-row community (three of them) in ${sizes.fleetSmall.toLocaleString('en-US')} vs ${sizes.fleetLarge.toLocaleString('en-US')} bystander rows`);
  const small = await fleetOnce(template, 'small', sizes.fleetSmall);
  const large = await fleetOnce(template, 'large', sizes.fleetLarge);
  ratioRow({
    id: 'fleet_large_vs_small', measurement: `fleet: ${sizes.fleetTargetRows.toLocaleString('en-US')}-row community, ${sizes.fleetLarge.toLocaleString('en-US')} vs ${sizes.fleetSmall.toLocaleString('en-US')} bystander rows`,
    baseline_label: 'small fleet', baseline: median(small.ms) / 1000, ours_label: 'large fleet', ours: median(large.ms) / 1000, unit: 's', target: '≤ 1.20',
    detail: { small_ms: small.ms, large_ms: large.ms, small_stages_ms: small.stages, large_stages_ms: large.stages },
  }, 'lower', 1.2);
}

// ---------------------------------------------------------------------------
// 4. Bounded memory

async function memoryOnce(template: string, objects: number): Promise<{ rssKb: number; ms: number }> {
  const name = await dbs.clone(template, `memory_${objects}`);
  const host = `memory-${objects}.bench`;
  let communityId = '';
  await seedDatabase(name, async (sql) => {
    const [r] = await sql<{ id: string }[]>`select bench.seed_community(${host}, 1000) as id`;
    communityId = r!.id;
  });
  const bucket = await startBucket();
  try {
    await seedStorage(bucket, communityId, objects, 100);
    const sql = connectTo(dbs.url(name), 1);
    let requestId: string;
    try {
      ({ requestId } = await prepareRequest(sql, bucket, host));
    } finally {
      await sql.end({ timeout: 5 });
    }
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: dbs.url(name),
      REDIS_URL: redisUrl(),
      BUZZ_S3_ENDPOINT: bucket.config.endpoint,
      BUZZ_S3_BUCKET: bucket.config.bucket,
      BUZZ_S3_ACCESS_KEY: 'bench',
      BUZZ_S3_SECRET_KEY: 'bench',
      BUZZ_S3_REGION: 'us-east-1',
      BUZZ_S3_ADDRESSING_STYLE: 'path',
      DELETIONS_REPORT_RSS: '1',
    };
    const run = await runCli(['run', requestId, '--json'], env);
    const outcome = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { kind?: string };
    if (run.code !== 0 || outcome.kind !== 'completed') throw new Error(`bin/deletions run exited ${run.code}: ${run.stdout}\n${run.stderr.slice(-2000)}`);
    const line = run.stderr.trim().split('\n').reverse().find((l) => l.startsWith('{"max_rss_kb"'));
    if (!line) throw new Error('the child did not report its peak RSS (DELETIONS_REPORT_RSS)');
    const left = await countVersions(bucket, communityId);
    if (left !== 0) throw new Error(`bin/deletions run left ${left} versions`);
    return { rssKb: (JSON.parse(line) as { max_rss_kb: number }).max_rss_kb, ms: run.ms };
  } finally {
    bucket.stop();
    await dbs.drop(name);
  }
}

async function benchMemory(template: string): Promise<void> {
  log(`4. bounded memory: bin/deletions run peak RSS deleting ${sizes.memoryLarge} vs ${sizes.memorySmall} object versions`);
  const small = await memoryOnce(template, sizes.memorySmall);
  log(`   ${sizes.memorySmall} versions: peak RSS ${(small.rssKb / 1024).toFixed(1)} MiB in ${(small.ms / 1000).toFixed(1)} s`);
  const large = await memoryOnce(template, sizes.memoryLarge);
  log(`   ${sizes.memoryLarge} versions: peak RSS ${(large.rssKb / 1024).toFixed(1)} MiB in ${(large.ms / 1000).toFixed(1)} s`);
  ratioRow({
    id: 'memory_large_vs_small', measurement: `memory: executor peak RSS, ${sizes.memoryLarge.toLocaleString('en-US')} vs ${sizes.memorySmall.toLocaleString('en-US')} versions`,
    baseline_label: `${sizes.memorySmall} versions`, baseline: small.rssKb / 1024, ours_label: `${sizes.memoryLarge} versions`, ours: large.rssKb / 1024,
    unit: 'MiB', target: '≤ 1.20', detail: { small, large },
  }, 'lower', 1.2);
}

// ---------------------------------------------------------------------------
// 5. Manifest freeze (scripts/bench-freeze.sh), informational

async function benchFreeze(): Promise<void> {
  log(`5. manifest freeze: scripts/bench-freeze.sh ${sizes.freezeEntries} (informational)`);
  const env = { ...process.env, PGHOST: server.host, PGPORT: server.port, PGUSER: server.user, ...(server.password ? { PGPASSWORD: server.password } : {}) };
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('bash', [path.join(root, 'scripts/bench-freeze.sh'), String(sizes.freezeEntries)], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  if (result.code !== 0) throw new Error(`bench-freeze.sh exited ${result.code}: ${result.stderr.slice(-2000)}`);
  const figures = JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as Record<string, number | string | null>;
  const row: Row = {
    id: 'freeze', measurement: `freeze: ${sizes.freezeEntries.toLocaleString('en-US')}-entry destructive manifest (append, then freeze)`,
    baseline_label: 'append', baseline: Number(figures.append_ms) / 1000, ours_label: 'freeze', ours: Number(figures.freeze_ms) / 1000,
    unit: 's', ratio: null, target: 'informational', met: null, detail: figures,
  };
  rows.push(row);
  log(`   append ${(Number(figures.append_ms) / 1000).toFixed(1)} s, freeze ${(Number(figures.freeze_ms) / 1000).toFixed(1)} s, backend peak RSS ${figures.backend_peak_rss_kb} kB, private heap after ${figures.backend_rss_anon_kb_after} kB`);
}

// ---------------------------------------------------------------------------
// 7. The catalog check (validate_catalog), which every purge batch runs once:
// its cost a call on the reference registry and with 120 more registered
// tables (each with a foreign key to the one before and its index), catalogs
// analyzed both times. One rule's query covers every table, so the check
// should grow no faster than the registry (≤ 5 × for 5 × the tables).

const extraCatalogTables = 120;

/** validate_catalog()'s cost a call: the median of 5 rounds of 20 calls in one session, after a warm-up call. */
async function catalogCheckMs(sql: postgres.Sql): Promise<number> {
  await sql.unsafe(`create or replace function pg_temp.catalog_check_ms(p_calls integer) returns numeric language plpgsql as $$
    declare t0 timestamptz;
    begin
      perform community_deletion.validate_catalog();
      t0 := clock_timestamp();
      for i in 1..p_calls loop perform community_deletion.validate_catalog(); end loop;
      return extract(epoch from clock_timestamp() - t0) * 1000 / p_calls;
    end $$`);
  const rounds: number[] = [];
  for (let i = 0; i < 5; i++) {
    const [r] = await sql<{ ms: string }[]>`select pg_temp.catalog_check_ms(20) as ms`;
    rounds.push(Number(r!.ms));
  }
  return median(rounds);
}

async function benchCatalog(template: string): Promise<void> {
  log(`7. the catalog check (validate_catalog, once in every purge batch): the reference registry vs ${extraCatalogTables} more tables`);
  const name = await dbs.clone(template, 'catalog');
  const sql = connectTo(dbs.url(name), 1);
  try {
    await sql.unsafe('analyze');
    const [before] = await sql<{ n: number }[]>`select count(*)::int as n from community_deletion.registered_tables`;
    const base = await catalogCheckMs(sql);
    await sql.unsafe(`do $$ begin
        for i in 1..${extraCatalogTables} loop
          execute format('create table public.bench_catalog_%s (community_id uuid not null references public.communities (id), '
                         'id bigint not null, parent bigint, primary key (community_id, id))', i);
          if i > 1 then
            execute format('alter table public.bench_catalog_%s add foreign key (community_id, parent) '
                           'references public.bench_catalog_%s (community_id, id)', i, i - 1);
            execute format('create index on public.bench_catalog_%s (community_id, parent)', i);
          end if;
          perform community_deletion.register_scoped_table(format('public.bench_catalog_%s', i)::regclass, 100000 - i);
        end loop;
      end $$`);
    await sql.unsafe('analyze');
    const [after] = await sql<{ n: number }[]>`select count(*)::int as n from community_deletion.registered_tables`;
    const big = await catalogCheckMs(sql);
    ratioRow({
      id: 'catalog_check_registry_growth',
      measurement: `catalog check: validate_catalog() a call, ${after!.n} vs ${before!.n} registered tables`,
      baseline_label: `${before!.n} tables`, baseline: base, ours_label: `${after!.n} tables`, ours: big,
      unit: 'ms', target: `≤ ${(after!.n / before!.n).toFixed(2)} (no faster than the registry grows)`,
      detail: { tables: [before!.n, after!.n], ms_per_call: [base, big] },
    }, 'lower', after!.n / before!.n);
  } finally {
    await sql.end({ timeout: 5 });
    await dbs.drop(name);
  }
}

// ---------------------------------------------------------------------------

async function machine() {
  const sql = connectTo(dbs.url('postgres'));
  try {
    const [v] = await sql<{ version: string; settings: Record<string, string> }[]>`
      select version(), (select jsonb_object_agg(name, current_setting(name)) from pg_settings
                          where name in ('shared_buffers', 'work_mem', 'synchronous_commit', 'fsync', 'max_wal_size')) as settings`;
    return {
      nproc: os.cpus().length,
      memory_mib: Math.round(os.totalmem() / 1024 / 1024),
      cpu: os.cpus()[0]?.model ?? 'unknown',
      postgres: v?.version,
      postgres_settings: v?.settings,
      node: process.version,
      redis: redisUrl().replace(/\/\/[^@]*@/, '//'),
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

function printTable(): void {
  const head = ['measurement', 'baseline', 'ours', 'ratio', 'target', 'met?'];
  const body = rows.map((r) => [
    r.measurement,
    `${r.baseline_label}: ${fmt(r.baseline)} ${r.unit}`,
    `${r.ours_label}: ${fmt(r.ours)} ${r.unit}`,
    r.ratio === null ? '—' : r.ratio.toFixed(3),
    r.target,
    r.met === null ? '—' : r.met ? 'PASS' : 'MISS',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
  process.stdout.write(`\n${line(head)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}\n${body.map(line).join('\n')}\n`);
}

async function main(): Promise<void> {
  const started = new Date();
  const t0 = performance.now();
  const command = `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`;
  // Fail early, with the reason, when a service is missing.
  await withRedis((redis) => redis.ping()).catch((error: Error) => {
    throw new Error(`Redis is not reachable at ${redisUrl()}: ${error.message}`);
  });
  const info = await machine();
  log(`machine: ${info.nproc} CPUs, ${info.memory_mib} MiB, ${info.postgres?.split(' on ')[0]}; ${quick ? 'quick sizes' : 'full sizes'}`);

  const template = dbs.name('tpl');
  log(`building the template database ${template} from the migrations`);
  dbs.buildFromMigrations(template);
  {
    const sql = connectTo(dbs.url(template));
    try {
      await sql.unsafe(readFileSync(path.join(root, 'scripts/bench/seed.sql'), 'utf8'));
    } finally {
      await sql.end({ timeout: 5 });
    }
  }
  try {
    if (only.has('fence')) await benchFence(template);
    if (only.has('memory')) await benchMemory(template);
    if (only.has('deletion')) await benchDeletion(template);
    if (only.has('fleet')) await benchFleet(template);
    if (only.has('freeze')) await benchFreeze();
    if (only.has('catalog')) await benchCatalog(template);
    if (only.has('purge')) await benchPurge({ dbs, template, sizes: purgeSizes, record: (row) => rows.push(row) });
  } finally {
    await dbs.dropAll();
  }
  const seconds = (performance.now() - t0) / 1000;
  printTable();
  const result = { command, quick, started_at: started.toISOString(), seconds, machine: info, sizes: { ...sizes, purge: purgeSizes }, results: rows };
  writeFileSync(outFile, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`\n${rows.length} figures in ${seconds.toFixed(0)} s; JSON written to ${outFile}\n`);
}

main().then(
  () => process.exit(0),
  async (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await dbs.dropAll().catch(() => {});
    process.exit(1);
  },
);
