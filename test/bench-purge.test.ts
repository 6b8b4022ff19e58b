// The plumbing of `npm run bench -- --only purge` at a tiny size: the group
// runs end to end (engine and naive script, bystander writer, sampler, vacuum
// probe) and writes every figure of issue 15 §4–7 to the JSON. No figure is
// judged here — ratios on a shared machine are the benchmark's business, never
// a test's; only that each was measured.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Row {
  id: string;
  baseline: number | null;
  ours: number | null;
  ratio: number | null;
  target: string;
  met: boolean | null;
  detail?: Record<string, unknown>;
}

t.test('npm run bench -- --only purge measures items 4-7 at a tiny size', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-purge-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const out = path.join(dir, 'results.json');
  const env: Record<string, string | undefined> = { ...process.env };
  for (const k of Object.keys(env)) if (k === 'NODE_OPTIONS' || k.startsWith('TAP')) delete env[k];
  // 2,000 and 10,000 rows in batches of at most 500: several batches per size.
  const r = spawnSync('npx', ['tsx', 'scripts/bench/index.ts', '--only', 'purge', '--rows', '2000', '--idle-seconds', '1', '--batch-rows', '500', '--out', out],
    { cwd: root, env, encoding: 'utf8', timeout: 600_000 });
  t.equal(r.status, 0, r.stderr.slice(-3000));
  const result = JSON.parse(readFileSync(out, 'utf8')) as { results: Row[]; sizes: { purge: { baseRows: number; largeRows: number } } };
  t.same([result.sizes.purge.baseRows, result.sizes.purge.largeRows], [2000, 10000]);
  const byId = new Map(result.results.map((row) => [row.id, row]));
  const ids = ['purge_longest_txn', 'purge_schema_lock', 'purge_longest_txn_naive',
    'purge_writer_p99_vs_idle_base', 'purge_writer_p99_vs_naive_base', 'purge_writer_p99_vs_idle_large', 'purge_writer_p99_vs_naive_large',
    'purge_deletion_vs_naive', 'purge_vacuum_base', 'purge_vacuum_large'];
  t.same(result.results.map((row) => row.id).sort(), [...ids].sort(), 'exactly the purge group figures');
  for (const id of ['purge_longest_txn', 'purge_longest_txn_naive', 'purge_deletion_vs_naive', 'purge_writer_p99_vs_idle_large']) {
    const row = byId.get(id)!;
    t.ok(row.baseline !== null && row.baseline > 0 && row.ours !== null && row.ours > 0, `${id}: both sides measured`);
    t.ok(row.ratio !== null && row.ratio > 0, `${id}: a ratio`);
    t.ok(row.target.length > 0, `${id}: a target`);
  }
  t.equal(byId.get('purge_longest_txn_naive')!.met, null, 'the naive figure is informational');
  t.equal(byId.get('purge_vacuum_large')!.met, null, 'the vacuum figure is informational');
  t.type(byId.get('purge_longest_txn')!.met, 'boolean', 'the longest-transaction figure is judged against its target');
  // The engine used the batched purge with the setting the bench put in place.
  const detail = byId.get('purge_longest_txn')!.detail as { purge_batch_rows: number; batches: number[]; batch_calls: [number, number][][] };
  t.equal(detail.purge_batch_rows, 500);
  t.ok(detail.batches[0]! >= 4 && detail.batches[1]! >= 20, `batches per size: ${detail.batches.join(', ')}`);
  t.ok(detail.batch_calls.flat().every(([, rows]) => rows <= 500), 'no batch removed more than purge_batch_rows');
  // The bystander writer ran in the idle period and during the purge.
  const writer = byId.get('purge_writer_p99_vs_idle_large')!.detail as Record<string, { statements: number; failed: number }>;
  for (const phase of ['engine_idle', 'engine_purge', 'naive_idle', 'naive_purge']) {
    t.ok(writer[phase]!.statements > 0, `writer statements during ${phase}`);
    t.equal(writer[phase]!.failed, 0, `no writer statement failed during ${phase}`);
  }
  // The vacuum probe churned its table during both deletions of the larger tenant.
  const vacuum = byId.get('purge_vacuum_large')!.detail as Record<string, { churned: number; vacuum_removed: number | null } | null>;
  for (const who of ['engine', 'naive']) {
    t.equal(vacuum[who]?.churned, 20_000, `the ${who} run churned bench.churn`);
    t.type(vacuum[who]?.vacuum_removed, 'number', `VACUUM VERBOSE's count was read (${who})`);
  }
  t.match(r.stdout, /met\?/, 'the table is printed');
});

t.test('the bench takes the maximum of any number of latencies', async (t) => {
  // A 20 M-row run's bystander writer records ~300,000 latencies; spreading
  // them into Math.max overflowed the call stack after a 28-minute purge.
  const { maxOf } = await import('../scripts/bench/lib.js');
  const many = Array.from({ length: 500_000 }, (_, i) => (i * 7919) % 500_000);
  many[123_456] = 1_000_001;
  t.equal(maxOf(many), 1_000_001, 'the largest of 500,000 values');
  t.equal(maxOf([]), null, 'none: null');
  t.equal(maxOf([-3, -1, -2]), -1, 'negative values too');
});
