// The real CLI against real PostgreSQL, Redis and S3 refuses every bad input
// of issue 14 with the documented exit code, naming the flag, and explains:
// repeated options, malformed --delay/--limit/--sample-size, control
// characters, a missing ID, usage errors as JSON, --reason-file - (stdin),
// over-long texts (the limit named), submit against a missing bucket /
// unreachable S3 / unreachable Redis (exit 5, no request created), missing
// privileges (exit 5); list filters and pages, fits 100 columns unless
// --wide and escapes stored control characters; inspect --watch follows a
// request until it is terminal (one JSON document per change).
import t from 'tap';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import http from 'node:http';
import { createTestDatabase, urlAs } from '../helpers/db.js';
import {
  approverEnv, bin, deletions, e2eStores, seedCommunity, show, startDeletions, submitAndApprove, type CliResult, type Env,
} from '../helpers/e2e.js';

const { db, sql, bucket, redis, env } = await e2eStores(t);
const tag = `badinput-${process.pid}`;
const host = `target-${tag}.example`;
await seedCommunity(sql, bucket.store, redis, host, { rows: 1, keys: 1, versions: 1, redisKeys: 1 });

const requestCount = async (): Promise<number> => {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from community_deletion.requests`;
  return row!.n;
};

/** bin/deletions with the given stdin. */
function withStdin(args: string[], stdinText: string, environment: Env): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env: environment as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout.trim());
      } catch {
        json = undefined;
      }
      resolve({ code, signal, stdout, stderr, json });
    });
    child.stdin.end(stdinText);
  });
}

const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** bin/deletions on a pseudo-terminal (util-linux `script`): the human output. */
function onTerminal(args: string[], environment: Env): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', `stty cols 200; ${[bin, ...args].map(sh).join(' ')}`, '/dev/null'], {
      env: environment as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout: stdout.replace(/\r\n/g, '\n'), stderr: '', json: undefined }));
  });
}

/** A local TCP port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

t.test('submit refuses bad input and unusable stores before creating a request (exit 2 / 5)', async (t) => {
  const base = ['submit', '--host', host];
  const cases: { args: string[]; env?: Env; code: number; match: object }[] = [
    { args: [...base, '--requested-by', 'alice@ops', '--requested-by', 'bob@ops'], code: 2, match: { flag: '--requested-by', error: /2 times/ } },
    { args: ['submit', '--host', host, '--host', 'other.example', '--requested-by', 'alice@ops'], code: 2, match: { flag: '--host' } },
    { args: [...base, '--requested-by', 'alice\u001b[31m@ops'], code: 2, match: { flag: '--requested-by', error: /control characters/ } },
    { args: [...base, '--requested-by', 'alice\n@ops'], code: 2, match: { flag: '--requested-by', error: /control characters/ } },
    { args: [...base, '--requested-by', 'alice@ops', '--reason', 'x'.repeat(4097)], code: 2, match: { flag: '--reason', error: /4097 bytes; the limit is 4096 bytes/ } },
    { args: [...base, '--requested-by', 'a'.repeat(513)], code: 2, match: { flag: '--requested-by', error: /the limit is 512 bytes/ } },
    { args: [...base, '--requested-by', 'alice@ops'], env: { BUZZ_S3_BUCKET: `missing-${tag}` }, code: 5, match: { error: /bucket missing-.* does not exist/, variable: 'BUZZ_S3_BUCKET' } },
    { args: [...base, '--requested-by', 'alice@ops'], env: { DELETIONS_CHUNK_SIZE: '0' }, code: 5, match: { variable: 'DELETIONS_CHUNK_SIZE' } },
  ];
  for (const c of cases) {
    const r = await deletions(c.args, { ...env, ...c.env });
    t.equal(r.code, c.code, `${c.args.join(' ').slice(0, 80)}: ${show(r)}`);
    t.match(r.json, { exit_code: c.code, ...c.match });
  }
  const port = await closedPort();
  const s3Down = await deletions([...base, '--requested-by', 'alice@ops'], { ...env, BUZZ_S3_ENDPOINT: `http://127.0.0.1:${port}` });
  t.equal(s3Down.code, 5, show(s3Down));
  t.match(s3Down.json, { error: /S3 .*unreachable/, variable: 'BUZZ_S3_ENDPOINT' });
  const redisDown = await deletions([...base, '--requested-by', 'alice@ops'], { ...env, REDIS_URL: `redis://127.0.0.1:${port}` });
  t.equal(redisDown.code, 5, show(redisDown));
  t.match(redisDown.json, { error: /Redis .*unreachable/, variable: 'REDIS_URL' });
  t.equal(await requestCount(), 0, 'no request was created by any refused submit');
});

let requestId = '';

t.test('submit with --reason-file - reads the reason from stdin', async (t) => {
  const r = await withStdin(['submit', '--host', host, '--requested-by', 'alice@ops', '--reason-file', '-'], 'ticket 1234:\nthe tenant asked to be forgotten\n', env);
  t.equal(r.code, 0, show(r));
  t.match(r.json, { stage: 'inventoried', reason: 'ticket 1234:\nthe tenant asked to be forgotten' });
  requestId = r.json.id;
  const both = await deletions(['abort', requestId, '--aborted-by', 'alice@ops', '--reason', 'x', '--reason-file', '-'], env);
  t.equal(both.code, 2, show(both));
  t.match(both.json, { flag: '--reason-file', error: /not both/ });
});

t.test('approve: repeated identities, malformed --delay, bad --not-before are usage errors naming the flag', async (t) => {
  const approver = approverEnv(env);
  const cases: [string[], string, RegExp][] = [
    [['--approved-by', 'bob@ops', '--approved-by', 'carol@ops'], '--approved-by', /2 times/],
    [['--approved-by', 'bob@ops', '--delay', '5 fortnights'], '--delay', /not a duration/],
    [['--approved-by', 'bob@ops', '--delay', "1 day'; select 1; --"], '--delay', /not a duration/],
    [['--approved-by', 'bob@ops', '--delay', '1h', '--delay', '2h'], '--delay', /2 times/],
    [['--approved-by', 'bob@ops', '--not-before', 'tomorrow'], '--not-before', /ISO 8601/],
    [['--approved-by', 'bob@ops', '--note', 'ok \u001b]0;owned\u0007'], '--note', /control characters/],
  ];
  for (const [extra, flag, error] of cases) {
    const r = await deletions(['approve', requestId, ...extra], approver);
    t.equal(r.code, 2, `${extra.join(' ')}: ${show(r)}`);
    t.match(r.json, { flag, error, exit_code: 2 });
  }
  const [row] = await sql<{ stage: string }[]>`select stage from community_deletion.requests where id = ${requestId}`;
  t.equal(row!.stage, 'inventoried', 'nothing was approved');
});

t.test('a missing ID is named; usage errors are JSON on stdout; -h works', async (t) => {
  for (const command of ['inspect', 'approve', 'abort', 'unblock', 'run']) {
    const r = await deletions([command], env);
    t.equal(r.code, 2, show(r));
    t.match(r.json, { error: new RegExp(`missing ID.*deletions ${command} ID`), exit_code: 2, usage: true });
    t.match(r.stderr, /missing ID/);
  }
  const unknown = await deletions(['list', '--bogus'], env);
  t.equal(unknown.code, 2, show(unknown));
  t.match(unknown.json, { error: /Unknown argument: bogus/, exit_code: 2 });
  const notUuid = await deletions(['inspect', 'not-a-uuid'], env);
  t.equal(notUuid.code, 2, show(notUuid));
  t.match(notUuid.json, { error: /not a UUID/, flag: 'ID' });

  for (const command of ['submit', 'list', 'inspect', 'approve', 'abort', 'unblock', 'status', 'run', 'drain', 'worker', 'sweep', 'migrate']) {
    const help = await deletions([command, '-h'], env);
    t.equal(help.code, 0, show(help));
    t.match(help.stdout, /Environment: DATABASE_URL/, `${command} --help lists its environment`);
    t.match(help.stdout, /Exit codes:\n\s+0 {2}done/, `${command} --help lists its exit codes`);
    t.match(help.stdout, /Examples:\n\s+deletions /, `${command} --help has an example`);
  }
  const completion = await deletions(['completion'], env);
  t.equal(completion.code, 0, show(completion));
  t.match(completion.stdout, /deletions --get-yargs-completions/);
  const completionExtra = await deletions(['completion', 'bogus'], env);
  t.equal(completionExtra.code, 2, show(completionExtra));
  t.match(completionExtra.json, { error: /Unknown argument: bogus/, exit_code: 2 });
});

t.test('integers: --limit and --sample-size are integers in range (exit 2 naming the flag)', async (t) => {
  for (const [args, flag] of [
    [['list', '--limit', '1.5'], '--limit'], [['list', '--limit', 'abc'], '--limit'], [['list', '--limit', '-1'], '--limit'],
    [['list', '--limit', '1', '--limit', '2'], '--limit'], [['sweep', '--sample-size', 'abc'], '--sample-size'],
    [['sweep', '--sample-size', '-1'], '--sample-size'], [['sweep', '--cap', '1e3'], '--cap'],
  ] as [string[], string][]) {
    const r = await deletions(args, env);
    t.equal(r.code, 2, `${args.join(' ')}: ${show(r)}`);
    t.match(r.json, { flag, exit_code: 2 });
  }
});

t.test('a value that starts with "-" is named with its flag, and --interval is checked before connecting', async (t) => {
  const split = await deletions(['list', '--watch', '--interval', '-1s'], env);
  t.equal(split.code, 2, show(split));
  t.match(split.json, { flag: '--interval', error: /--interval -1s: a value starting with "-" is read as options; write --interval=-1s/ });
  // No database to reach: the flag is refused before any connection (exit 2, not 5).
  const nowhere = { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/cd_no_such_database' };
  for (const args of [['list', '--interval=-1s'], ['list', '--watch', '--interval', '0s'], ['inspect', '00000000-0000-4000-8000-000000000001', '--interval', 'often']]) {
    const r = await deletions(args, nowhere);
    t.equal(r.code, 2, `${args.join(' ')}: ${show(r)}`);
    t.match(r.json, { flag: '--interval', exit_code: 2 });
  }
});

t.test('a lease longer than claim grants (DELETIONS_LEASE_SECONDS > 3600) is exit 5 naming the variable', async (t) => {
  for (const args of [['drain', '--executor-id', 'exec-lease'], ['worker', '--executor-id', 'exec-lease']]) {
    const r = await deletions(args, { ...env, DELETIONS_LEASE_SECONDS: '7200' });
    t.equal(r.code, 5, `${args[0]}: ${show(r)}`);
    t.match(r.json, { exit_code: 5, variable: 'DELETIONS_LEASE_SECONDS', error: /between 1 and 3600, got "7200"/ }, args.join(' '));
  }
});

t.test('--executor-id with control characters is a usage error naming the flag, before connecting', async (t) => {
  // No database to reach: the flag is refused before any connection (exit 2, not 5).
  const nowhere = { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/cd_no_such_database' };
  const unknownId = '00000000-0000-4000-8000-0000000000e1';
  for (const args of [
    ['run', unknownId, '--executor-id', 'a\u001b[2Jb'],
    ['drain', '--executor-id', 'a\u001b[2Jb'],
    ['worker', '--executor-id', 'tab\there'],
    ['run', unknownId, '--executor-id', ''],
  ]) {
    const r = await deletions(args, nowhere);
    t.equal(r.code, 2, `${JSON.stringify(args)}: ${show(r)}`);
    t.match(r.json, { exit_code: 2, flag: '--executor-id' }, JSON.stringify(args));
  }
});

t.test('missing privileges are a configuration problem (exit 5), not a failure', async (t) => {
  const role = `cd_test_nopriv_${process.pid}`;
  await sql.unsafe(`create role ${role} login`);
  t.teardown(() => sql.unsafe(`drop owned by ${role}; drop role if exists ${role}`));
  const r = await deletions(['list'], { ...env, DATABASE_URL: urlAs(env.DATABASE_URL!, role) });
  t.equal(r.code, 5, show(r));
  t.match(r.json, { sqlstate: '42501', exit_code: 5 });
});

t.test('list filters by state and host, pages past a page with --before', async (t) => {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const h = `page-${i}-${tag}.example`;
    await sql`select tests.seed_community(${h}, 1)`;
    ids.push(await submitAndApprove(sql, bucket.store, h));
  }
  const blocked = await sql<{ id: string }[]>`
    select r.id from community_deletion.block_preclaim(${ids[1]!}::uuid, 'pre_claim:test', ${'bad \u001b[2J key'}) b
      cross join community_deletion.requests r where r.id = ${ids[1]!}`;
  t.equal(blocked.length, 1);

  const onlyBlocked = await deletions(['list', '--state', 'blocked'], env);
  t.equal(onlyBlocked.code, 0, show(onlyBlocked));
  t.same(onlyBlocked.json.map((r: { request_id: string }) => r.request_id), [ids[1]]);
  const byHost = await deletions(['list', '--state', 'runnable', '--host', `PAGE-2-${tag}.example`], env);
  t.same(byHost.json.map((r: { request_id: string }) => r.request_id), [ids[2]]);
  const badState = await deletions(['list', '--state', 'bogus'], env);
  t.equal(badState.code, 2, show(badState));

  const all = await deletions(['list'], env);
  const order = all.json.map((r: { request_id: string }) => r.request_id) as string[];
  t.equal(order.length, 4);
  const page1 = await deletions(['list', '--limit', '2'], env);
  const page2 = await deletions(['list', '--limit', '2', '--before', page1.json[1].request_id], env);
  t.same([...page1.json, ...page2.json].map((r: { request_id: string }) => r.request_id), order, 'two pages of 2 give the whole list');
  t.match(all.json[0], { created_at: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/ }, 'times are ISO 8601 UTC');

  const narrow = await onTerminal(['list'], env);
  t.equal(narrow.code, 0, narrow.stdout);
  const lines = narrow.stdout.split('\n').filter((l) => l.trim() !== '');
  for (const line of lines) t.ok(line.length <= 100, `fits 100 columns (${line.length}): ${line}`);
  t.match(narrow.stdout, /page-0-badinput-\d*…/, 'long hosts end with an ellipsis');
  const wide = await onTerminal(['list', '--wide'], env);
  t.equal(wide.code, 0, wide.stdout);
  t.match(wide.stdout, new RegExp(`page-0-${tag}\\.example`), '--wide shows the whole host');
  t.match(wide.stdout, /bad \\e\[2J key/, 'a stored escape sequence is shown escaped');
  t.notMatch(wide.stdout, /\u001b\[2J/, 'and never executed');
  const inspect = await onTerminal(['inspect', ids[1]!], env);
  t.match(inspect.stdout, /next: remediate the cause, then deletions unblock .* --reason/, 'the explanation points to the CLI command');
  t.match(inspect.stdout, /community_deletion\.unblock/, 'and to the SQL function');
  t.notMatch(inspect.stdout, /\u001b\[2J/);
});

t.test('inspect --watch prints one JSON document per change until the request is terminal', async (t) => {
  const watcher = startDeletions(['inspect', requestId, '--watch', '--interval', '1s'], env);
  let seen = '';
  watcher.child.stdout!.on('data', (c: Buffer) => (seen += c.toString()));
  while (!seen.includes('\n')) await new Promise((r) => setTimeout(r, 50));
  const aborted = await deletions(['abort', requestId, '--aborted-by', 'alice@ops', '--reason', 'withdrawn while watched'], env);
  t.equal(aborted.code, 0, show(aborted));
  const done = await watcher.done;
  t.equal(done.code, 0, show(done));
  const docs = done.stdout.trim().split('\n').map((l) => JSON.parse(l) as { state: string; object_versions?: unknown });
  t.equal(docs[0]!.state, 'waiting_for_approval');
  t.match(docs[0], { object_versions: { deleted: 0, total: 0 }, next_step: /deletions approve .* --approved-by WHO \(SQL: community_deletion\.approve\)/ });
  t.equal(docs[docs.length - 1]!.state, 'aborted', 'the watch ends at the terminal state');
  t.equal(new Set(docs.map((d) => JSON.stringify(d))).size, docs.length, 'only changes are printed');
  const again = await deletions(['inspect', requestId, '--watch'], env);
  t.equal(again.code, 0, show(again));
  t.equal(again.stdout.trim().split('\n').length, 1, 'a terminal request prints once and ends');
  const badInterval = await deletions(['inspect', requestId, '--watch', '--interval', 'often'], env);
  t.equal(badInterval.code, 2, show(badInterval));
  t.match(badInterval.json, { flag: '--interval' });
});

t.test('a well-formed --delay (1h30m) and a --note-file are accepted', async (t) => {
  const h = `delay-${tag}.example`;
  await sql`select tests.seed_community(${h}, 1)`;
  const submitted = await deletions(['submit', '--host', h, '--requested-by', 'alice@ops'], env);
  t.equal(submitted.code, 0, show(submitted));
  const note = await withStdin(['approve', submitted.json.id, '--approved-by', 'bob@ops', '--delay', '1h30m', '--note-file', '-'], 'checked with the tenant\n', approverEnv(env));
  t.equal(note.code, 0, show(note));
  const [a] = await sql<{ seconds: number; note: string }[]>`
    select extract(epoch from not_before - approved_at)::int as seconds, note from community_deletion.approvals where request_id = ${submitted.json.id}`;
  t.same(a, { seconds: 5400, note: 'checked with the tenant' });
  const inspected = await deletions(['inspect', submitted.json.id], env);
  t.match(inspected.json, { state: 'grace_period', next_step: /deletions abort/ });
});

t.test('sweep against a missing bucket or an unreachable S3 is a configuration problem (exit 5)', async (t) => {
  const missing = await deletions(['sweep'], { ...env, BUZZ_S3_BUCKET: `missing-${tag}` });
  t.equal(missing.code, 5, show(missing));
  t.match(missing.json, { exit_code: 5 });
  const port = await closedPort();
  const down = await deletions(['sweep'], { ...env, BUZZ_S3_ENDPOINT: `http://127.0.0.1:${port}` });
  t.equal(down.code, 5, show(down));
  t.match(down.json, { exit_code: 5 });
});

/**
 * An S3 front that forwards everything to the test server except
 * ListObjectVersions, which it holds unanswered (and reports), so a submit
 * is deterministically inside its inventory when the test interrupts it.
 */
async function holdingListings(upstream: string): Promise<{ endpoint: string; listing: Promise<void>; close(): Promise<void> }> {
  const target = new URL(upstream);
  const held: http.ServerResponse[] = [];
  let listed!: () => void;
  const listing = new Promise<void>((resolve) => (listed = resolve));
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && new URL(req.url ?? '/', 'http://x').searchParams.has('versions')) {
      held.push(res);
      listed();
      return;
    }
    const out = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', (error) => res.destroy(error));
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    listing,
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

t.test('Ctrl-C during the inventory says how to resume or withdraw the request it leaves', async (t) => {
  const h = `interrupted-${tag}.example`;
  await sql`select tests.seed_community(${h}, 1)`;
  const front = await holdingListings(bucket.config.endpoint);
  t.teardown(() => front.close());
  const running = startDeletions(['submit', '--host', h, '--requested-by', 'alice@ops'], { ...env, BUZZ_S3_ENDPOINT: front.endpoint });
  await front.listing;
  running.child.kill('SIGINT');
  const r = await running.done;
  t.equal(r.code, 130, show(r));
  const [req] = await sql<{ id: string; stage: string }[]>`select id, stage from community_deletion.requests where community_host = ${h}`;
  t.equal(req!.stage, 'submitted', 'the request stays submitted');
  t.match(r.json, {
    request_id: req!.id, exit_code: 130,
    resume: new RegExp(`deletions submit --host ${h.replace(/\./g, '\\.')} --requested-by alice@ops`),
    withdraw: new RegExp(`deletions abort ${req!.id} --aborted-by alice@ops --reason`),
  });
  const resumed = await deletions(['submit', '--host', h, '--requested-by', 'alice@ops'], env);
  t.equal(resumed.code, 0, show(resumed));
  t.match(resumed.json, { id: req!.id, stage: 'inventoried' }, 'submitting again as the same requester resumes it');
});

t.test('list --watch prints the list again on every change until Ctrl-C', async (t) => {
  const h = `watched-${tag}.example`;
  await sql`select tests.seed_community(${h}, 1)`;
  const watcher = startDeletions(['list', '--watch', '--interval', '1s', '--host', h], env);
  let seen = '';
  watcher.child.stdout!.on('data', (c: Buffer) => (seen += c.toString()));
  while (!seen.includes('\n')) await new Promise((r) => setTimeout(r, 50));
  t.same(JSON.parse(seen.split('\n')[0]!), [], 'first document: no request for the host');
  await sql`select 1 from community_deletion.submit(${h}, 'alice@ops')`;
  while (seen.split('\n').length < 3) await new Promise((r) => setTimeout(r, 50));
  watcher.child.kill('SIGINT');
  const done = await watcher.done;
  t.equal(done.code, 0, show(done));
  const docs = done.stdout.trim().split('\n').map((l) => JSON.parse(l) as { community_host: string; state: string }[]);
  t.equal(docs.length, 2, 'one document per change');
  t.match(docs[1], [{ community_host: h, state: 'waiting_for_inventory' }]);
});
