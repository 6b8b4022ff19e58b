// Conformance of the real SQL engine with the protocol model (model/README.md):
// a fast-check model-based test. Random command sequences from the model's
// vocabulary — claim by executor 1 or 2, heartbeat, time passing (a lease
// expires), crash mid-transaction (the backend is terminated), stage steps with
// possibly stale tokens (the executor's next step, or any step function out of
// turn), application writes for the target and a bystander (through the write
// fence, as the application role), serving-write leases (acquire, renew,
// guarded write, release, expiry within and past settings.serving_lease_grace),
// operator abort and unblock, executor block/record_failure, and catalog drift
// (an unregistered table with a community column) — run against real
// PostgreSQL. After every command the test checks
//   * the outcome the in-test model expects (accepted, or refused with which
//     SQLSTATE) and the model's request/community/lease state against the rows;
//   * the model's invariants against the database, independently of the model:
//     P1 no target write commits while the community is not writable (except
//        under a serving lease admitted before the fence, while quiescing);
//     P2 the bystander's rows are untouched (fingerprint);
//     P3 the tombstone only when every chunk is stamped and every registered
//        table is empty for the target;
//     P4 abort refused after the first irreversible effect; an aborted
//        community is active (writable) again;
//     P5 a call with a token that is not the live lease (as the database shows
//        it before the call) is refused and changes nothing; a crashed
//        transaction leaves nothing;
//     P6 the stage moves one step forward at most (or to aborted).
// Time never passes for real: leases are long, and "time passes" moves
// lease_until / next_attempt_at into the past through the superuser connection
// (as the pgTAP lease tests do). S3 and Redis are abstracted: the key chunks
// are appended and stamped as the pgTAP destruction fixtures do.
//
// Fixed seed and bounded size by default (npm test); CONFORMANCE_SEED,
// CONFORMANCE_RUNS, CONFORMANCE_COMMANDS override them (npm run model runs a
// long randomized run). A failure is shrunk to a minimal command sequence and
// reported with fast-check's seed and path.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { sqlStateOf } from '../src/errors.js';
import { createTestDatabase } from './helpers/db.js';

const SEED = Number(process.env.CONFORMANCE_SEED ?? 17);
const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 60);
const MAX_COMMANDS = Number(process.env.CONFORMANCE_COMMANDS ?? 100);
const MAX_FAILURES = 2; // settings.max_consecutive_failures in the test database
const PURGE_BATCH_ROWS = 25; // settings.purge_batch_rows: a seeded community needs a few batches

const db = await createTestDatabase();
const sql = db.sql;
t.teardown(() => db.drop());

// Time passes only when a command says so ("time passes", "serving lease
// expires"): every real-time window the model cannot see is far longer than any
// run, however slow the machine — a retry wait after record_failure (5 s by
// default; a loaded CI machine once took longer than that between a failure and
// the next claim, and the claim got a lease the model did not expect), the
// serving-lease grace and the quiescing cap.
await sql`update community_deletion.settings
             set max_consecutive_failures = ${MAX_FAILURES}, purge_batch_rows = ${PURGE_BATCH_ROWS},
                 retry_base_delay = '1 day', retry_max_delay = '2 days',
                 serving_lease_grace = '1 hour', serving_lease_quiescing_cap = '1 day'`;
const [bystanderRow] = await sql<{ id: string }[]>`select tests.seed_community('bystander.conformance.example', 1) as id`;
const bystanderId = bystanderRow!.id;

// ---------------------------------------------------------------------------
// The model

const STAGES = ['approved', 'fenced', 'drained', 'bindings_removed', 'postgres_purged', 'cache_purged',
  'logically_verified', 'retention_pending', 'aborted'] as const;
type Stage = (typeof STAGES)[number];
const order = (s: string) => STAGES.indexOf(s as Stage);
const runnable = (s: Stage) => s !== 'retention_pending' && s !== 'aborted';
const terminal = (s: Stage) => !runnable(s);
const abortable = (s: Stage) => s === 'approved' || s === 'fenced';
type Exec = 1 | 2;
type Token = { gen: number; fg: number | null };
type ServingState = 'live' | 'grace' | 'expired' | 'released';
interface ServingLease { id: string; owner: string; gen: number; fg: number; state: ServingState }

interface Model {
  stage: Stage;
  blocked: boolean;
  retryWait: boolean; // next_attempt_at in the future
  streak: number; // consecutive failures at this stage
  owner: Exec | null;
  gen: number; // lease_generation
  live: boolean; // lease_until >= now()
  fg: number | null; // request fence generation
  community: 'active' | 'quiescing' | 'fenced' | 'tombstone';
  cfg: number; // community deletion_fence_generation
  tokens: Record<Exec, Token | null>;
  appended: [boolean, boolean];
  stamped: [boolean, boolean];
  frozen: boolean;
  purgeDone: boolean;
  drift: boolean;
  serving: ServingLease[]; // every lease ever acquired in this run
  slots: [number | null, number | null]; // index into serving, per writer
}

interface Run {
  no: number;
  requestId: string;
  communityId: string;
  host: string;
  entries: [Entry, Entry];
  manifest: unknown;
  bystanderFp: string;
  driftTable: string;
  commands: number;
  furthest: number; // the latest stage (order) the request reached
}

interface Entry { key: string; version_id: string; kind: 'object' }
type World = { m: Model; r: Run };

let runCounter = 0;
let commandCounter = 0;
const kinds: Record<string, number> = {}; // executed commands by kind
const codes: Record<string, number> = {}; // checked outcomes by SQLSTATE
const bump = (h: Record<string, number>, k: string) => (h[k] = (h[k] ?? 0) + 1);

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** The two owned entries of the run's storage (one chunk each, chunk size 1) and the summary they hash to. */
function storage(communityId: string, prefixes: string[]): { entries: [Entry, Entry]; manifest: unknown } {
  const meta = `_meta/${communityId}/`;
  const keys = [sha256(`${communityId}:a`), sha256(`${communityId}:b`)].map((h) => `${meta}${h}.json`).sort();
  const entries = keys.map((key) => ({ key, version_id: 'v1', kind: 'object' as const })) as [Entry, Entry];
  let chain = '';
  for (const e of entries) chain = sha256(chain + `${e.key}\t${e.version_id}\t${e.kind}\n`);
  const empty = sha256('');
  return {
    entries,
    manifest: {
      version: 1,
      chunk_size: 1,
      prefixes: prefixes.map((p) => p === meta
        ? { prefix: p, object_count: 2, total_bytes: 2, keys_digest: chain }
        : { prefix: p, object_count: 0, total_bytes: 0, keys_digest: empty }),
    },
  };
}

async function newRun(): Promise<World> {
  const no = ++runCounter;
  const host = `run-${no}.conformance.example`;
  const [seeded] = await sql<{ id: string }[]>`select tests.seed_community(${host}, 1) as id`;
  const communityId = seeded!.id;
  const [submitted] = await sql<{ id: string }[]>`select id from community_deletion.submit(${host}, 'alice', 'conformance')`;
  const requestId = submitted!.id;
  await sql`
    select community_deletion.freeze_inventory(${requestId}::uuid, jsonb_build_object(
      'version', 1, 'chunk_size', 10000,
      'prefixes', (select jsonb_agg(jsonb_build_object('prefix', p, 'object_count', 0, 'total_bytes', 0,
                                                       'keys_digest', encode(sha256(''::bytea), 'hex'))
                                    order by p collate "C")
                     from unnest(community_deletion._owned_prefixes(${communityId}::uuid)) p)), tests.store_identity())`;
  await sql`select tests.approve(${requestId}::uuid, 'bob')`;
  const prefixes = (await sql<{ p: string }[]>`
    select p from unnest(community_deletion._owned_prefixes(${communityId}::uuid)) p order by p collate "C"`).map((x) => x.p);
  const [row] = await sql<{ gen: string; cfg: string }[]>`
    select r.lease_generation as gen, c.deletion_fence_generation as cfg
      from community_deletion.requests r join public.communities c on c.id = r.community_id where r.id = ${requestId}::uuid`;
  const { entries, manifest } = storage(communityId, prefixes);
  const m: Model = {
    stage: 'approved', blocked: false, retryWait: false, streak: 0, owner: null, gen: Number(row!.gen), live: false,
    fg: null, community: 'active', cfg: Number(row!.cfg), tokens: { 1: null, 2: null },
    appended: [false, false], stamped: [false, false], frozen: false, purgeDone: false, drift: false,
    serving: [], slots: [null, null],
  };
  const r: Run = { no, requestId, communityId, host, entries, manifest, bystanderFp: await fingerprint(bystanderId),
    driftTable: `conformance_drift_${no}`, commands: 0, furthest: 0 };
  return { m, r };
}

async function endRun(w: World): Promise<void> {
  await sql.unsafe(`drop table if exists public.${w.r.driftTable}`);
}

async function fingerprint(community: string): Promise<string> {
  const [row] = await sql<{ fp: string }[]>`select tests.community_fingerprint(${community}::uuid) as fp`;
  return row!.fp;
}

// ---------------------------------------------------------------------------
// Calling the engine

type Outcome<T = unknown> = { code: string; value?: T; message?: string };

async function attempt<T>(f: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { code: '00000', value: await f() };
  } catch (error) {
    const code = sqlStateOf(error);
    if (!code) throw error;
    return { code, message: (error as Error).message };
  }
}

/** The executor step functions, with the stage their token must be at. */
const STEP_FUNCTIONS = ['begin_quiescing', 'fence', 'clear_key_chunks', 'append_key_chunk', 'freeze_destructive_manifest',
  'mark_drained', 'stamp_key_chunk', 'mark_bindings_removed', 'purge_postgres_batch', 'finish_postgres_purge',
  'mark_cache_purged', 'verify_postgres_absence', 'mark_logically_verified', 'mark_retention_pending'] as const;
type StepFn = (typeof STEP_FUNCTIONS)[number];
const STEP_STAGE: Record<StepFn, Stage> = {
  begin_quiescing: 'approved', fence: 'approved', clear_key_chunks: 'fenced', append_key_chunk: 'fenced',
  freeze_destructive_manifest: 'fenced', mark_drained: 'fenced', stamp_key_chunk: 'drained',
  mark_bindings_removed: 'drained', purge_postgres_batch: 'bindings_removed', finish_postgres_purge: 'bindings_removed',
  mark_cache_purged: 'postgres_purged', verify_postgres_absence: 'cache_purged', mark_logically_verified: 'cache_purged',
  mark_retention_pending: 'logically_verified',
};
/** Functions that validate the catalog before they verify the token (DL7C1 wins over DL4L1). */
const CATALOG_FIRST = new Set<StepFn>(['purge_postgres_batch', 'finish_postgres_purge', 'verify_postgres_absence', 'mark_logically_verified']);
const POST_FENCE = (fn: StepFn) => fn !== 'begin_quiescing' && fn !== 'fence';

interface Step { fn: StepFn; n: 0 | 1 }

const lit = (v: string | number | null) => (v === null ? 'null' : `'${String(v).replace(/'/g, "''")}'`);

/** The SQL text of a step call with token `tok` of executor e (n: the chunk number for append/stamp). */
function stepText(r: Run, e: Exec, tok: Token, s: Step): string {
  const T = `${lit(r.requestId)}::uuid, ${lit(`executor-${e}`)}, ${lit(tok.gen)}::bigint`;
  const TF = `${T}, ${lit(tok.fg)}::bigint`;
  const call = (args: string) => `select community_deletion.${s.fn}(${args})::text as v`;
  switch (s.fn) {
    case 'begin_quiescing':
    case 'fence':
      return call(T);
    case 'append_key_chunk':
      return call(`${TF}, ${s.n}, ${lit(`_meta/${r.communityId}/`)}, ${lit(JSON.stringify([r.entries[s.n]]))}::jsonb`);
    case 'freeze_destructive_manifest': return call(`${TF}, ${lit(JSON.stringify(r.manifest))}::jsonb`);
    case 'stamp_key_chunk': return call(`${TF}, ${s.n}, '{"deleted": 1}'::jsonb`);
    case 'mark_bindings_removed':
    case 'mark_cache_purged':
    case 'mark_logically_verified':
    case 'mark_retention_pending':
      return call(`${TF}, '{}'::jsonb`);
    default:
      return call(TF);
  }
}

/** What the driver (src/executor.ts) would call next, as the model sees the request. */
function nextStep(m: Model, variant: number): Step {
  switch (m.stage) {
    case 'approved': return { fn: m.community === 'active' ? 'begin_quiescing' : 'fence', n: 0 };
    case 'fenced':
      if (!m.appended[0]) return { fn: 'append_key_chunk', n: 0 };
      if (!m.appended[1]) return { fn: 'append_key_chunk', n: 1 };
      return { fn: m.frozen ? 'mark_drained' : 'freeze_destructive_manifest', n: 0 };
    case 'drained':
      if (!m.stamped[0]) return { fn: 'stamp_key_chunk', n: 0 };
      if (!m.stamped[1]) return { fn: 'stamp_key_chunk', n: 1 };
      return { fn: 'mark_bindings_removed', n: 0 };
    case 'bindings_removed': return { fn: m.purgeDone ? 'finish_postgres_purge' : 'purge_postgres_batch', n: 0 };
    case 'postgres_purged': return { fn: 'mark_cache_purged', n: 0 };
    case 'cache_purged': return { fn: variant % 2 === 0 ? 'verify_postgres_absence' : 'mark_logically_verified', n: 0 };
    default: return { fn: 'mark_retention_pending', n: 0 };
  }
}

// ---------------------------------------------------------------------------
// The model's expectations

const servingHold = (m: Model) => m.serving.some((l) => l.state === 'live' || l.state === 'grace');
const servingLive = (m: Model) => m.serving.some((l) => l.state === 'live');

/** The token is the live, unblocked lease at `stage` (and at the request's fence generation when `post`). */
function tokenOk(m: Model, e: Exec, stage: Stage, post: boolean): boolean {
  const tok = m.tokens[e];
  return !!tok && m.owner === e && m.gen === tok.gen && m.live && !m.blocked && m.stage === stage
    && (!post || (tok.fg !== null && tok.fg === m.fg));
}

/** The SQLSTATE the model expects for executor e calling step s ('00000': accepted). */
function expectStep(m: Model, e: Exec, s: Step): string {
  const ok = tokenOk(m, e, STEP_STAGE[s.fn], POST_FENCE(s.fn));
  if (CATALOG_FIRST.has(s.fn) && m.drift) return 'DL7C1';
  if (!ok) return 'DL4L1';
  switch (s.fn) {
    case 'begin_quiescing': return m.drift ? 'DL7C1' : '00000';
    case 'fence':
      if (m.drift) return 'DL7C1';
      if (m.community !== 'quiescing') return 'DL2S1';
      return servingHold(m) ? 'DL5D1' : '00000';
    case 'clear_key_chunks': return m.frozen ? 'DL6F1' : '00000';
    case 'append_key_chunk':
      if (m.frozen) return 'DL6F1';
      // chunks are appended in order: only the next chunk number is accepted
      return s.n === m.appended.filter(Boolean).length ? '00000' : 'DL6K1';
    case 'freeze_destructive_manifest':
      if (m.frozen) return '00000';
      if (servingHold(m)) return 'DL5D1';
      return m.appended[0] && m.appended[1] ? '00000' : 'DL6K1';
    case 'mark_drained':
      if (!m.frozen) return 'DL2S1';
      return servingHold(m) ? 'DL5D1' : '00000';
    case 'stamp_key_chunk': return m.stamped[s.n] ? 'DL6F1' : '00000';
    case 'mark_bindings_removed': return m.stamped[0] && m.stamped[1] ? '00000' : 'DL6K2';
    case 'purge_postgres_batch': return '00000';
    case 'finish_postgres_purge': return m.purgeDone ? '00000' : 'DL6P1';
    default: return '00000';
  }
}

function advance(m: Model, to: Stage): void {
  m.stage = to;
  m.streak = 0;
}

/** Applies an accepted step to the model (value: the function's result as text). */
function applyStep(m: Model, e: Exec, s: Step, value: string | null): void {
  switch (s.fn) {
    case 'begin_quiescing': m.community = 'quiescing'; break;
    case 'fence':
      m.cfg += 1;
      m.fg = m.cfg;
      m.community = 'fenced';
      m.tokens[e]!.fg = m.fg;
      advance(m, 'fenced');
      break;
    case 'clear_key_chunks': m.appended = [false, false]; break;
    case 'append_key_chunk': m.appended[s.n] = true; break;
    case 'freeze_destructive_manifest': m.frozen = true; break;
    case 'mark_drained': advance(m, 'drained'); break;
    case 'stamp_key_chunk': m.stamped[s.n] = true; break;
    case 'mark_bindings_removed': advance(m, 'bindings_removed'); break;
    case 'purge_postgres_batch': m.purgeDone = (JSON.parse(value ?? '{}') as { done?: boolean }).done === true; break;
    case 'finish_postgres_purge': m.community = 'tombstone'; advance(m, 'postgres_purged'); break;
    case 'mark_cache_purged': advance(m, 'cache_purged'); break;
    case 'verify_postgres_absence': break;
    case 'mark_logically_verified': advance(m, 'logically_verified'); break;
    case 'mark_retention_pending': advance(m, 'retention_pending'); m.owner = null; m.live = false; break;
  }
}

// ---------------------------------------------------------------------------
// Database observations and the invariants

interface Observed {
  stage: Stage;
  blocked: boolean;
  owner: string | null;
  gen: number;
  live: boolean;
  fg: number | null;
  community: string;
  cfg: number;
  stamped: number;
  chunks: number;
  purgeBatches: number;
  targetRows: number;
  progress: string; // a digest of every row progress is recorded in
}

async function observe(r: Run): Promise<Observed> {
  const [o] = await sql<{
    stage: Stage; blocked: boolean; owner: string | null; gen: string; live: boolean; fg: string | null;
    community: string; cfg: string; stamped: number; chunks: number; purge_batches: number; target_rows: number; progress: string;
  }[]>`
    select r.stage, r.blocked_at is not null as blocked, r.lease_owner as owner, r.lease_generation as gen,
           coalesce(r.lease_until >= now(), false) as live, r.fence_generation as fg,
           c.deletion_state as community, c.deletion_fence_generation as cfg,
           (select count(*)::int from community_deletion.manifest_keys k where k.request_id = r.id and k.deleted_at is not null) as stamped,
           (select count(*)::int from community_deletion.manifest_keys k where k.request_id = r.id) as chunks,
           (select count(*)::int from community_deletion.checkpoints k
             where k.request_id = r.id and k.stage = 'bindings_removed' and k.status = 'completed') as purge_batches,
           (select coalesce(sum(x.row_count), 0)::int from tests.scoped_row_counts(r.community_id) x) as target_rows,
           md5(r::text
               || coalesce((select string_agg(k::text, ',' order by k.stage, k.unit_key) from community_deletion.checkpoints k where k.request_id = r.id), '')
               || coalesce((select string_agg(k::text, ',' order by k.chunk_no) from community_deletion.manifest_keys k where k.request_id = r.id), '')
               || c::text) as progress
      from community_deletion.requests r join public.communities c on c.id = r.community_id
     where r.id = ${r.requestId}::uuid`;
  return {
    stage: o!.stage, blocked: o!.blocked, owner: o!.owner, gen: Number(o!.gen), live: o!.live,
    fg: o!.fg === null ? null : Number(o!.fg), community: o!.community, cfg: Number(o!.cfg), stamped: o!.stamped,
    chunks: o!.chunks, purgeBatches: o!.purge_batches, targetRows: o!.target_rows, progress: o!.progress,
  };
}

class Violation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Violation';
  }
}
function must(cond: boolean, what: string, detail?: unknown): asserts cond {
  if (!cond) throw new Violation(`${what}${detail === undefined ? '' : `: ${JSON.stringify(detail)}`}`);
}

/** The state invariants (P2, P3, P4, P6) and the model's view of the request, after every command. */
async function checkState(w: World, before: Observed, label: string): Promise<Observed> {
  const { m, r } = w;
  const o = await observe(r);
  // P6: one step forward at most, never back; aborted only from an abortable stage.
  if (o.stage === 'aborted') must(before.stage === 'aborted' || abortable(before.stage), `P6 ${label}: aborted from ${before.stage}`);
  else must(order(o.stage) === order(before.stage) || order(o.stage) === order(before.stage) + 1,
    `P6 ${label}: stage ${before.stage} -> ${o.stage}`);
  must(o.gen >= before.gen && o.cfg >= before.cfg, `P6 ${label}: a generation went back`, { before, o });
  // P2: the bystander is untouched.
  must((await fingerprint(bystanderId)) === r.bystanderFp, `P2 ${label}: the bystander's rows changed`);
  // P3: the tombstone only when everything is gone.
  if (o.community === 'tombstone') {
    must(o.targetRows === 0, `P3 ${label}: tombstone with ${o.targetRows} target rows in registered tables`);
    if (m.drift) {
      const [d] = await sql.unsafe<{ n: number }[]>(
        `select count(*)::int as n from public.${r.driftTable} where community_id = '${r.communityId}'::uuid`);
      must(d!.n === 0,
        `P3 ${label}: tombstone while an unregistered table holds ${d!.n} rows copied from the target`);
    }
    must(order(o.stage) >= order('postgres_purged') && o.stage !== 'aborted', `P3 ${label}: tombstone at stage ${o.stage}`);
    if (order(o.stage) < order('logically_verified')) must(o.chunks === 2 && o.stamped === 2, `P3 ${label}: tombstone with unstamped chunks`, o);
  }
  // P4: an aborted community is writable again.
  if (o.stage === 'aborted') must(o.community === 'active', `P4 ${label}: aborted but the community is ${o.community}`);
  // The model's view.
  const view = { stage: m.stage, blocked: m.blocked, owner: m.owner === null ? null : `executor-${m.owner}`, gen: m.gen,
    live: m.live, fg: m.fg, community: m.community, cfg: m.cfg };
  const seen = { stage: o.stage, blocked: o.blocked, owner: o.owner, gen: o.gen, live: o.live, fg: o.fg, community: o.community, cfg: o.cfg };
  must(JSON.stringify(view) === JSON.stringify(seen), `model ${label}: the model and the database disagree`, { model: view, database: seen });
  must(o.stamped === m.stamped.filter(Boolean).length || order(o.stage) >= order('logically_verified'),
    `model ${label}: stamped chunks`, { model: m.stamped, database: o.stamped });
  return o;
}

/** Whether executor e's token is the live lease as the database shows it (model-independent, for P5). */
function currentInDb(o: Observed, e: Exec, tok: Token | null): boolean {
  return !!tok && o.owner === `executor-${e}` && o.gen === tok.gen && o.live && !o.blocked;
}

function expectCode(label: string, expected: string, got: Outcome): void {
  bump(codes, got.code);
  must(got.code === expected, `model ${label}: expected ${expected}, got ${got.code}${got.message ? ` (${got.message})` : ''}`);
}

// ---------------------------------------------------------------------------
// Commands

abstract class Cmd implements fc.AsyncCommand<World, World> {
  check(_w: Readonly<World>): boolean {
    return true;
  }
  abstract label(): string;
  abstract exec(w: World, before: Observed): Promise<void>;
  async run(_m: World, w: World): Promise<void> {
    commandCounter += 1;
    w.r.commands += 1;
    bump(kinds, this.label().replace(/[ (].*$/, ''));
    const before = await observe(w.r);
    await this.exec(w, before);
    await checkState(w, before, this.label());
    if (w.m.stage !== 'aborted') w.r.furthest = Math.max(w.r.furthest, order(w.m.stage));
  }
  toString(): string {
    return this.label();
  }
}

class Claim extends Cmd {
  constructor(readonly e: Exec) { super(); }
  label() { return `claim(E${this.e})`; }
  async exec(w: World) {
    await claim(w, this.e, this.label());
  }
}

/** claim(executor e) for the request: the model says whether a lease comes back (or drift blocks it). */
async function claim({ m, r }: World, e: Exec, label: string): Promise<void> {
  const got = await attempt(() => sql<{ lease_generation: string; fence_generation: string | null }[]>`
    select lease_generation, fence_generation from community_deletion.claim(${`executor-${e}`}, ${r.requestId}::uuid, 3600)`);
  expectCode(label, '00000', got);
  const claimable = runnable(m.stage) && !m.blocked && !m.retryWait && !(m.owner !== null && m.live);
  const rows = got.value!;
  if (claimable && m.drift) {
    must(rows.length === 0, `model ${label}: claim under catalog drift returned a lease`);
    m.blocked = true;
    m.owner = null;
    m.live = false;
    return;
  }
  must(rows.length === (claimable ? 1 : 0), `model ${label}: expected ${claimable ? 'a lease' : 'zero rows'}, got ${rows.length} rows`);
  if (claimable) {
    m.gen += 1;
    m.owner = e;
    m.live = true;
    m.tokens[e] = { gen: m.gen, fg: m.fg };
    must(Number(rows[0]!.lease_generation) === m.gen, `model ${label}: lease generation`);
  }
}

class Heartbeat extends Cmd {
  constructor(readonly e: Exec) { super(); }
  override check(w: Readonly<World>) { return w.m.tokens[this.e] !== null; }
  label() { return `heartbeat(E${this.e})`; }
  async exec({ m, r }: World, before: Observed) {
    const tok = m.tokens[this.e]!;
    const got = await attempt(() => sql`
      select community_deletion.heartbeat(${r.requestId}::uuid, ${`executor-${this.e}`}, ${tok.gen}::bigint, 'run', 3600)`);
    const ok = m.owner === this.e && m.gen === tok.gen && m.live && !m.blocked && runnable(m.stage);
    expectCode(this.label(), ok ? '00000' : 'DL4L1', got);
    if (!currentInDb(before, this.e, tok)) must(got.code !== '00000', `P5 ${this.label()}: a stale lease was renewed`);
  }
}

/** Time passes: the executor lease expires and any retry wait is over (lease_until / next_attempt_at moved to the past). */
class TimePasses extends Cmd {
  label() { return 'time passes (executor lease expires, retry wait over)'; }
  async exec({ m, r }: World) {
    await sql`
      update community_deletion.requests
         set lease_until = case when lease_until is null then null else now() - interval '1 second' end,
             next_attempt_at = least(next_attempt_at, now() - interval '1 second')
       where id = ${r.requestId}::uuid and stage not in ('retention_pending', 'aborted')`;
    m.live = false;
    m.retryWait = false;
  }
}

/**
 * The executor's next action: without a token it claims (as src/executor.ts
 * does), with one it takes the next step with that token (stale or not).
 */
class Drive extends Cmd {
  constructor(readonly e: Exec, readonly variant: number) { super(); }
  override check(w: Readonly<World>) { return w.m.tokens[this.e] === null || !terminal(w.m.stage); }
  label() { return `drive(E${this.e}${this.variant % 2 ? ', alt' : ''})`; }
  async exec(w: World, before: Observed) {
    if (w.m.tokens[this.e] === null) await claim(w, this.e, `${this.label()} = claim`);
    else await callStep(w, before, this.e, nextStep(w.m, this.variant), this.label());
  }
}

/** Any step function, out of turn (a rogue or confused driver), with the executor's token. */
class Rogue extends Cmd {
  constructor(readonly e: Exec, readonly fn: StepFn, readonly n: 0 | 1) { super(); }
  override check(w: Readonly<World>) { return w.m.tokens[this.e] !== null; }
  label() { return `rogue(E${this.e}, ${this.fn}${this.fn === 'append_key_chunk' || this.fn === 'stamp_key_chunk' ? ` ${this.n}` : ''})`; }
  async exec(w: World, before: Observed) {
    await callStep(w, before, this.e, { fn: this.fn, n: this.n }, this.label());
  }
}

async function callStep(w: World, before: Observed, e: Exec, s: Step, label: string): Promise<void> {
  const { m, r } = w;
  const tok = m.tokens[e]!;
  const expected = expectStep(m, e, s);
  const got = await attempt(async () => (await sql.unsafe<{ v: string | null }[]>(stepText(r, e, tok, s)))[0]!.v);
  const fullLabel = `${label} = ${s.fn}${s.fn.endsWith('key_chunk') && s.fn !== 'clear_key_chunks' ? ` ${s.n}` : ''}`;
  // P5: a token that is not the live lease changes nothing.
  if (!currentInDb(before, e, tok)) {
    must(got.code !== '00000', `P5 ${fullLabel}: a stale token's call was accepted`);
    must((await observe(r)).progress === before.progress, `P5 ${fullLabel}: a refused stale call changed the rows`);
  }
  expectCode(fullLabel, expected, got);
  if (got.code === '00000') applyStep(m, e, s, got.value ?? null);
  else must((await observe(r)).progress === before.progress, `model ${fullLabel}: a refused call changed the rows`);
}

/** The executor dies mid-transaction: its next step runs in a transaction whose backend is terminated before COMMIT. */
class Crash extends Cmd {
  constructor(readonly e: Exec, readonly variant: number) { super(); }
  override check(w: Readonly<World>) { return w.m.tokens[this.e] !== null && !terminal(w.m.stage); }
  label() { return `crash(E${this.e} mid-transaction)`; }
  async exec({ m, r }: World, before: Observed) {
    const s = nextStep(m, this.variant);
    const tok = m.tokens[this.e]!;
    // A second session (dblink) runs the step inside an open transaction; its
    // backend is terminated before COMMIT, as when the executor's host dies.
    const c = await sql.reserve(); // one session holds the dblink connection
    try {
      await c`select public.dblink_connect('conformance_crash', ${dblinkTarget()})`;
      const [backend] = await c<{ pid: number }[]>`select pid from public.dblink('conformance_crash', 'select pg_backend_pid()') as t(pid integer)`;
      const pid = backend!.pid;
      await c`select public.dblink_exec('conformance_crash', 'begin')`;
      await c`select * from public.dblink('conformance_crash', ${stepText(r, this.e, tok, s)}, false) as t(v text)`;
      await c`select pg_terminate_backend(${pid})`;
      // The backend is gone once pg_stat_activity no longer lists it (its locks released).
      for (;;) {
        const [row] = await c<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where pid = ${pid}`;
        if (row!.n === 0) break;
      }
    } finally {
      await c`select public.dblink_disconnect('conformance_crash')`.catch(() => {});
      c.release();
    }
    m.tokens[this.e] = null; // the process restarts without a lease
    must((await observe(r)).progress === before.progress, `P5 ${this.label()}: a crashed transaction left rows behind`);
  }
}

/** The test database as a dblink connection string (same server and login as the pool). */
function dblinkTarget(): string {
  const u = new URL(db.url);
  return `host=${u.hostname} port=${u.port || 5432} user=${decodeURIComponent(u.username)} dbname=${db.name}`;
}

class Block extends Cmd {
  constructor(readonly e: Exec) { super(); }
  override check(w: Readonly<World>) { return w.m.tokens[this.e] !== null; }
  label() { return `block(E${this.e})`; }
  async exec({ m, r }: World, before: Observed) {
    const tok = m.tokens[this.e]!;
    const got = await attempt(() => sql`
      select community_deletion.block(${r.requestId}::uuid, ${`executor-${this.e}`}, ${tok.gen}::bigint, ${m.stage}, 'conformance', 'a permanent failure')`);
    if (!currentInDb(before, this.e, tok)) must(got.code !== '00000', `P5 ${this.label()}: a stale token blocked the request`);
    const ok = m.owner === this.e && m.gen === tok.gen && m.live && !m.blocked && runnable(m.stage);
    expectCode(this.label(), ok ? '00000' : 'DL4L1', got);
    if (ok) {
      m.blocked = true;
      m.owner = null;
      m.live = false;
    }
  }
}

class Fail extends Cmd {
  constructor(readonly e: Exec) { super(); }
  override check(w: Readonly<World>) { return w.m.tokens[this.e] !== null; }
  label() { return `record_failure(E${this.e})`; }
  async exec({ m, r }: World, before: Observed) {
    const tok = m.tokens[this.e]!;
    const got = await attempt(() => sql<{ v: { blocked: boolean } }[]>`
      select community_deletion.record_failure(${r.requestId}::uuid, ${`executor-${this.e}`}, ${tok.gen}::bigint, ${m.stage}, 'conformance', 'a transient failure') as v`);
    if (!currentInDb(before, this.e, tok)) must(got.code !== '00000', `P5 ${this.label()}: a stale token recorded a failure`);
    const ok = m.owner === this.e && m.gen === tok.gen && m.live && !m.blocked && runnable(m.stage);
    expectCode(this.label(), ok ? '00000' : 'DL4L1', got);
    if (ok) {
      m.streak += 1;
      m.owner = null;
      m.live = false;
      if (m.streak >= MAX_FAILURES) m.blocked = true;
      else m.retryWait = true;
      must(got.value![0]!.v.blocked === m.blocked, `model ${this.label()}: blocked`);
    }
  }
}

class Abort extends Cmd {
  label() { return 'abort (operator)'; }
  async exec({ m, r }: World, before: Observed) {
    const irreversible = before.stamped > 0 || before.purgeBatches > 0 || order(before.stage) >= order('drained');
    const got = await attempt(() => sql`select 1 from community_deletion.abort(${r.requestId}::uuid, 'carol', 'conformance abort')`);
    // P4: abort never succeeds after the first irreversible effect.
    if (irreversible) must(got.code !== '00000', `P4 ${this.label()}: abort accepted after an irreversible effect`, before);
    const expected = terminal(m.stage) ? 'DL2T1' : !abortable(m.stage) ? 'DL2S1' : servingLive(m) ? 'DL5D1' : '00000';
    expectCode(this.label(), expected, got);
    if (got.code === '00000') {
      m.stage = 'aborted';
      m.cfg += 1;
      m.fg = m.cfg;
      m.community = 'active';
      m.owner = null;
      m.live = false;
      m.gen += 1;
      m.blocked = false;
      m.retryWait = false;
      m.streak = 0;
      m.appended = [false, false]; // an unfrozen enumeration's chunks are removed
    }
  }
}

class Unblock extends Cmd {
  label() { return 'unblock (operator)'; }
  async exec({ m, r }: World) {
    const got = await attempt(() => sql`select 1 from community_deletion.unblock(${r.requestId}::uuid, 'carol', 'conformance unblock')`);
    const expected = terminal(m.stage) ? 'DL2T1' : !m.blocked ? 'DL2B2' : m.owner !== null && m.live ? 'DL4L2' : '00000';
    expectCode(this.label(), expected, got);
    if (got.code === '00000') {
      m.blocked = false;
      m.streak = 0;
      m.retryWait = false;
      m.owner = null;
      m.live = false;
    }
  }
}

/** An application write (INSERT into a registered scoped table) as community_deletion_app, through the write fence. */
class AppWrite extends Cmd {
  constructor(readonly bystander: boolean) { super(); }
  label() { return this.bystander ? 'write(bystander)' : 'write(target)'; }
  async exec(w: World, before: Observed) {
    const { m, r } = w;
    const community = this.bystander ? bystanderId : r.communityId;
    const got = await attempt(() => sql.begin(async (tx) => {
      await tx`set local role community_deletion_app`;
      await tx`insert into public.audit_log (community_id, actor, action) values (${community}::uuid, 'conformance', ${`write-${commandCounter}`})`;
    }));
    if (this.bystander) {
      expectCode(this.label(), '00000', got);
      r.bystanderFp = await fingerprint(bystanderId);
      return;
    }
    // P1: a plain target write commits only while the community is active.
    if (got.code === '00000') must(before.community === 'active', `P1 ${this.label()}: a write committed while the community was ${before.community}`);
    expectCode(this.label(), m.community === 'active' ? '00000' : '55000', got);
  }
}

class ServingAcquire extends Cmd {
  constructor(readonly slot: 0 | 1) { super(); }
  label() { return `serving acquire(W${this.slot})`; }
  async exec({ m, r }: World) {
    const owner = `relay-${this.slot}`;
    const got = await attempt(() => sql<{ id: string; generation: string; fence_generation: string }[]>`
      select id, generation, fence_generation from community_deletion.acquire_serving_lease(${r.communityId}::uuid, 'media_upload', ${owner}, 3600)`);
    expectCode(this.label(), m.community === 'active' ? '00000' : 'DL5S1', got);
    if (got.code === '00000') {
      const row = got.value![0]!;
      must(Number(row.fence_generation) === m.cfg, `model ${this.label()}: the lease's fence generation`);
      m.serving.push({ id: row.id, owner, gen: Number(row.generation), fg: Number(row.fence_generation), state: 'live' });
      m.slots[this.slot] = m.serving.length - 1;
    }
  }
}

/** The serving lease is still honoured: live, the community active or quiescing at the lease's fence generation. */
const servingValid = (m: Model, l: ServingLease) =>
  l.state === 'live' && (m.community === 'active' || m.community === 'quiescing') && m.cfg === l.fg;

class ServingRenew extends Cmd {
  constructor(readonly slot: 0 | 1) { super(); }
  override check(w: Readonly<World>) { return w.m.slots[this.slot] !== null; }
  label() { return `serving renew(W${this.slot})`; }
  async exec({ m }: World) {
    const l = m.serving[m.slots[this.slot]!]!;
    const got = await attempt(() => sql`
      select community_deletion.renew_serving_lease(${l.id}::uuid, ${l.owner}, ${l.gen}::bigint, ${l.fg}::bigint, 3600)`);
    expectCode(this.label(), servingValid(m, l) ? '00000' : 'DL5S1', got);
  }
}

/** The external effect's final write under the serving lease: guard_serving_write + INSERT in one transaction. */
class ServingWrite extends Cmd {
  constructor(readonly slot: 0 | 1) { super(); }
  override check(w: Readonly<World>) { return w.m.slots[this.slot] !== null; }
  label() { return `serving guarded write(W${this.slot})`; }
  async exec({ m, r }: World, before: Observed) {
    const l = m.serving[m.slots[this.slot]!]!;
    const valid = servingValid(m, l);
    const got = await attempt(() => sql.begin(async (tx) => {
      await tx`set local role community_deletion_app`;
      await tx`select community_deletion.guard_serving_write(${l.id}::uuid, ${l.owner}, ${l.gen}::bigint, ${l.fg}::bigint)`;
      await tx`insert into public.audit_log (community_id, actor, action) values (${r.communityId}::uuid, 'conformance', ${`serving-${commandCounter}`})`;
    }));
    // P1: a target write under a serving lease commits only while active or quiescing (never after the fence).
    if (got.code === '00000') {
      must(before.community === 'active' || before.community === 'quiescing',
        `P1 ${this.label()}: a serving write committed while the community was ${before.community}`);
    }
    expectCode(this.label(), valid ? '00000' : 'DL5S1', got);
  }
}

class ServingRelease extends Cmd {
  constructor(readonly slot: 0 | 1) { super(); }
  override check(w: Readonly<World>) { return w.m.slots[this.slot] !== null; }
  label() { return `serving release(W${this.slot})`; }
  async exec({ m }: World) {
    const l = m.serving[m.slots[this.slot]!]!;
    const got = await attempt(() => sql<{ v: boolean }[]>`
      select community_deletion.release_serving_lease(${l.id}::uuid, ${l.owner}, ${l.gen}::bigint, ${l.fg}::bigint) as v`);
    expectCode(this.label(), '00000', got);
    must(got.value![0]!.v === (l.state !== 'released'), `model ${this.label()}: release returned ${got.value![0]!.v}`);
    l.state = 'released';
  }
}

/** The serving lease's holder stalls: its lease expires, within settings.serving_lease_grace or past it. */
class ServingExpire extends Cmd {
  constructor(readonly slot: 0 | 1, readonly pastGrace: boolean) { super(); }
  override check(w: Readonly<World>) { return w.m.slots[this.slot] !== null && w.m.serving[w.m.slots[this.slot]!]!.state !== 'released'; }
  label() { return `serving lease expires(W${this.slot}, ${this.pastGrace ? 'past the grace' : 'within the grace'})`; }
  async exec({ m }: World) {
    const l = m.serving[m.slots[this.slot]!]!;
    await sql`
      update community_deletion.serving_write_leases
         set lease_until = now() - interval '1 second'
                           - case when ${this.pastGrace} then (select s.serving_lease_grace from community_deletion.settings s) else interval '0' end
       where id = ${l.id}::uuid`;
    l.state = this.pastGrace ? 'expired' : 'grace';
  }
}

/** Catalog drift: an unregistered table with a community column appears (a migration), or goes away again. */
class Drift extends Cmd {
  constructor(readonly create: boolean) { super(); }
  override check(w: Readonly<World>) { return w.m.drift !== this.create; }
  label() { return this.create ? 'migration: create table … as select (target rows, community_id, unregistered)' : 'migration: drop that table'; }
  async exec({ m, r }: World) {
    // CREATE TABLE … AS SELECT: the migration copies the target's rows still in
    // a registered table into a table without a fence (the model's T3).
    if (this.create) {
      await sql.unsafe(`create table public.${r.driftTable} as
        select a.community_id, a.action from public.audit_log a where a.community_id = '${r.communityId}'::uuid`);
    }
    else await sql.unsafe(`drop table public.${r.driftTable}`);
    m.drift = this.create;
  }
}

const exec = fc.constantFrom<Exec>(1, 2);
const slot = fc.constantFrom<0 | 1>(0, 1);
const w = (weight: number, arbitrary: fc.Arbitrary<Cmd>) => ({ weight, arbitrary });
// One weighted choice: the driver's next step dominates, so runs reach the later stages.
const command: fc.Arbitrary<Cmd> = fc.oneof(
  w(50, fc.tuple(exec, fc.nat(1)).map(([e, v]) => new Drive(e, v))),
  w(6, exec.map((e) => new Claim(e))),
  w(2, exec.map((e) => new Heartbeat(e))),
  w(2, fc.constant(new TimePasses())),
  w(2, fc.tuple(exec, fc.nat(1)).map(([e, v]) => new Crash(e, v))),
  w(6, fc.tuple(exec, fc.constantFrom(...STEP_FUNCTIONS), fc.constantFrom<0 | 1>(0, 1)).map(([e, f, n]) => new Rogue(e, f, n))),
  w(1, exec.map((e) => new Block(e))),
  w(2, exec.map((e) => new Fail(e))),
  w(1, fc.constant(new Abort())),
  w(2, fc.constant(new Unblock())),
  w(3, fc.boolean().map((b) => new AppWrite(b))),
  w(1, slot.map((s) => new ServingAcquire(s))),
  w(1, slot.map((s) => new ServingRenew(s))),
  w(2, slot.map((s) => new ServingWrite(s))),
  w(2, slot.map((s) => new ServingRelease(s))),
  w(2, fc.tuple(slot, fc.boolean()).map(([s, p]) => new ServingExpire(s, p))),
  w(1, fc.constant(new Drift(true))),
  w(4, fc.constant(new Drift(false))), // a drifted catalog is usually repaired soon
);

interface Outcomes { failed: boolean; report: string; sequences: number; commands: number; furthest: Record<string, number> }

/** Runs the property: `runs` random sequences from `seed`, shrinking a failure unless `shrink` is false. */
async function conformance(seed: number, runs: number, shrink = true): Promise<Outcomes> {
  let sequences = 0;
  const commandsBefore = commandCounter;
  const furthest: Record<string, number> = {};
  const result = await fc.check(
    fc.asyncProperty(fc.commands([command], { maxCommands: MAX_COMMANDS, size: 'max' }), async (cmds) => {
      sequences += 1;
      const w = await newRun();
      try {
        await fc.asyncModelRun(() => ({ model: w, real: w }), cmds);
      } finally {
        const stage = STAGES[w.r.furthest]!;
        furthest[stage] = (furthest[stage] ?? 0) + 1;
        await endRun(w);
      }
    }),
    { seed, numRuns: runs, verbose: 1, endOnFailure: !shrink },
  );
  return {
    failed: result.failed,
    report: result.failed ? `${String(result.errorInstance)}\n${fc.defaultReportMessage(result) ?? ''}` : '',
    sequences,
    commands: commandCounter - commandsBefore,
    furthest,
  };
}

/**
 * Weakened engines (each a `create or replace` of one function in this test
 * database, undone afterwards): the property must fail on every one of them.
 */
const MUTANTS: Record<string, { fn: string; from: string; to: string; rule: string }> = {
  stamp_without_token: {
    fn: 'stamp_key_chunk',
    from: "v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'drained', p_fence_generation);",
    to: 'select r.* into v_request from community_deletion.requests r where r.id = p_request_id;',
    rule: 'P5: a stale executor stamps a chunk',
  },
  fence_ignores_serving_leases: {
    fn: 'fence', from: 'if v_live > 0 then', to: 'if false then',
    rule: 'the fence waits for admitted serving leases (DL5D1)',
  },
  abort_after_destruction: {
    fn: 'abort', from: 'if not community_deletion._stage_is_abortable(v_request.stage) then', to: 'if false then',
    rule: 'P4: abort after the first irreversible effect',
  },
  claim_takes_a_live_lease: {
    fn: 'claim', from: 'and (r.lease_until is null or r.lease_until < now())', to: '',
    rule: 'claim never takes over a live lease',
  },
};

async function applyMutant(name: string): Promise<() => Promise<void>> {
  const mutant = MUTANTS[name];
  if (!mutant) throw new Error(`unknown CONFORMANCE_MUTANT ${name}; known: ${Object.keys(MUTANTS).join(', ')}`);
  const [row] = await sql<{ def: string }[]>`
    select pg_get_functiondef(p.oid) as def from pg_proc p
     where p.pronamespace = 'community_deletion'::regnamespace and p.proname = ${mutant.fn}`;
  const original = row!.def;
  const mutated = original.replace(mutant.from, mutant.to);
  if (mutated === original) throw new Error(`mutant ${name}: "${mutant.from}" not found in ${mutant.fn}`);
  await sql.unsafe(mutated);
  return async () => {
    await sql.unsafe(original);
  };
}

const ONLY_MUTANT = process.env.CONFORMANCE_MUTANT;
/** The mutants npm test runs (without shrinking: the first failing sequence is enough). */
const BITE_MUTANTS = ['fence_ignores_serving_leases', 'claim_takes_a_live_lease'];

t.test('the SQL engine conforms to the protocol model (random command sequences, invariants after every command)',
  { skip: ONLY_MUTANT ? 'CONFORMANCE_MUTANT is set' : false }, async (t) => {
    const o = await conformance(SEED, RUNS);
    t.comment(`seed ${SEED}: ${o.sequences} sequences (${RUNS} runs${o.failed ? ' + shrinking' : ''}), ${o.commands} commands executed`);
    t.comment(`sequences by the latest stage reached: ${JSON.stringify(o.furthest)}`);
    t.comment(`commands by kind: ${JSON.stringify(kinds)}`);
    t.comment(`checked outcomes by SQLSTATE: ${JSON.stringify(codes)}`);
    if (o.failed) t.fail(`the engine does not conform: ${o.report}`);
    else t.pass(`${RUNS} random command sequences conform`);
  });

// CONFORMANCE_MUTANT=<name> runs the property (with shrinking) against one
// weakened engine and reports the minimal counterexample; it must fail.
t.test(`a weakened engine fails the property${ONLY_MUTANT ? ` (${ONLY_MUTANT}, shrunk)` : ''}`,
  { skip: ONLY_MUTANT ? false : process.env.CONFORMANCE_BITE === '0' ? 'CONFORMANCE_BITE=0' : false }, async (t) => {
    for (const name of ONLY_MUTANT ? [ONLY_MUTANT] : BITE_MUTANTS) {
      const restore = await applyMutant(name);
      try {
        const o = await conformance(SEED, ONLY_MUTANT ? Math.max(RUNS, 200) : 200, !!ONLY_MUTANT);
        t.comment(`${name}: ${o.failed ? 'refuted' : 'NOT refuted'} after ${o.sequences} sequences, ${o.commands} commands`);
        if (ONLY_MUTANT) t.comment(o.report);
        t.ok(o.failed, `mutant ${name} (${MUTANTS[name]!.rule}) is refuted`);
      } finally {
        await restore();
      }
    }
  });
