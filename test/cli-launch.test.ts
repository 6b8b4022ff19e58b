// bin/deletions starts the CLI from a bundle of src/ (bin/launch.mjs): built
// on the first start, reused while src/ is unchanged, rebuilt after any
// change, never half-written when starts race, and the sources run through
// tsx when no bundle can be written. Each case runs in a copy of the
// project's bin/ and src/ (node_modules linked), so the real checkout's
// dist/ is left alone; the last one compares the real checkout's output
// through the bundle and through the sources.
import t, { type Test } from 'tap';
import { execFile, spawnSync } from 'node:child_process';
import { cp, mkdtemp, readFile, readdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k === 'NODE_OPTIONS' || k.startsWith('TAP') || k.startsWith('DELETIONS_')) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

function run(projectRoot: string, args: string[], extra: Record<string, string> = {}) {
  return spawnSync(path.join(projectRoot, 'bin', 'deletions'), args, { env: cleanEnv(extra), encoding: 'utf8' });
}

/** run() without blocking, so several starts can race (execFile collects the output). */
function runAsync(projectRoot: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(path.join(projectRoot, 'bin', 'deletions'), args, { env: cleanEnv() }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }));
  });
}

/** A copy of the project's bin/, src/ and package.json with node_modules linked. */
async function projectCopy(t: Test): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cli-launch-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await cp(path.join(root, 'bin'), path.join(dir, 'bin'), { recursive: true });
  await cp(path.join(root, 'src'), path.join(dir, 'src'), { recursive: true });
  await cp(path.join(root, 'package.json'), path.join(dir, 'package.json'));
  await cp(path.join(root, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
  await symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** The bundles' entry files (dist/cli-<key>.mjs; their chunks are dist/cli-<key>-<hash>.mjs). */
const bundles = async (dir: string) => (await readdir(path.join(dir, 'dist'))).filter((n) => /^cli-[0-9a-f]{20}\.mjs$/.test(n)).sort();

/** The files an entry file imports statically (`from "..."`): its chunks and the packages. */
const staticImports = async (file: string) => [...(await readFile(file, 'utf8')).matchAll(/\bfrom\s*"([^"]+)"/g)].map((m) => m[1]!);
const FALLBACK = /running the TypeScript sources directly/;

t.test('the first start builds a bundle, the next reuses it, a change to src/ builds a new one', async (t) => {
  const dir = await projectCopy(t);
  const first = run(dir, ['--help']);
  t.equal(first.status, 0, first.stderr);
  t.match(first.stdout, /Durable, operator-controlled deletion of one community/);
  t.notMatch(first.stderr, FALLBACK, 'no fallback to the sources');
  const built = await bundles(dir);
  t.equal(built.length, 1, `one bundle: ${built.join(', ')}`);
  const key = built[0]!.slice(0, -'.mjs'.length);
  const imports = await staticImports(path.join(dir, 'dist', built[0]!));
  const chunks = imports.filter((i) => i.startsWith('./'));
  t.ok(chunks.length > 0 && chunks.every((c) => c.startsWith(`./${key}-`)), `the entry imports its own chunks: ${chunks.join(', ')}`);
  // What only some commands use is loaded by them, from chunks: a usage error or a PostgreSQL-only command does not pay for it.
  t.same(imports.filter((i) => /^(@aws-sdk\/|ioredis$|graphile-migrate$|prom-client$)/.test(i)), [],
    'the entry file loads neither the S3 nor the Redis client, graphile-migrate or prom-client');
  const inChunks = (await Promise.all((await readdir(path.join(dir, 'dist'))).filter((n) => n.startsWith(`${key}-`))
    .map((n) => staticImports(path.join(dir, 'dist', n))))).flat();
  t.ok(['@aws-sdk/client-s3', 'ioredis'].every((p) => inChunks.includes(p)), 'its chunks do');

  const second = run(dir, ['--help']);
  t.equal(second.status, 0, second.stderr);
  t.same(await bundles(dir), built, 'the unchanged sources reuse the bundle');
  t.equal(second.stdout, first.stdout);

  const main = path.join(dir, 'src', 'cli', 'main.ts');
  const text = await readFile(main, 'utf8');
  const edited = text.replace('deletion of one community (tenant).', 'deletion of one community (tenant), edited.');
  t.not(edited, text, 'the usage line was found to edit');
  await writeFile(main, edited);
  const third = run(dir, ['--help']);
  t.equal(third.status, 0, third.stderr);
  t.match(third.stdout, /one community \(tenant\), edited\./, 'the edited source is what runs');
  const after = await bundles(dir);
  t.equal(after.length, 2, 'a new bundle for the new sources (the old one is removed only once it is an hour old)');
  t.ok(after.includes(built[0]!), 'the previous bundle is still there for a start that was about to load it');

  // esbuild reads tsconfig.json's compiler options: a change to it is a change too.
  await writeFile(path.join(dir, 'tsconfig.json'), `${await readFile(path.join(dir, 'tsconfig.json'), 'utf8')}\n`);
  const fourth = run(dir, ['--help']);
  t.equal(fourth.status, 0, fourth.stderr);
  t.equal((await bundles(dir)).length, 3, 'a new bundle after tsconfig.json changed');

  // Bundles of other sources, entry and chunks, are removed by the next build once they are an hour old.
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  for (const name of await readdir(path.join(dir, 'dist'))) await utimes(path.join(dir, 'dist', name), twoHoursAgo, twoHoursAgo);
  await writeFile(main, `${edited}\n`);
  const fifth = run(dir, ['--help']);
  t.equal(fifth.status, 0, fifth.stderr);
  const left = await bundles(dir);
  t.equal(left.length, 1, 'only the new bundle is left');
  const newKey = left[0]!.slice(0, -'.mjs'.length);
  const strays = (await readdir(path.join(dir, 'dist'))).filter((n) => !n.startsWith(newKey));
  t.same(strays, [], 'no entry or chunk of an old bundle is left');
});

t.test('starts racing on a fresh checkout all run, and leave one whole bundle', async (t) => {
  const dir = await projectCopy(t);
  const results = await Promise.all(Array.from({ length: 4 }, () => runAsync(dir, ['--help'])));
  for (const r of results) {
    t.equal(r.code, 0, r.stderr);
    t.match(r.stdout, /deletions migrate/);
  }
  const names = await readdir(path.join(dir, 'dist'));
  t.equal(names.filter((n) => n.endsWith('.tmp')).length, 0, `no partial bundle is left: ${names.join(', ')}`);
  const entries = await bundles(dir);
  t.equal(entries.length, 1, 'one bundle');
  const chunks = (await staticImports(path.join(dir, 'dist', entries[0]!))).filter((i) => i.startsWith('./'));
  t.same(chunks.filter((c) => !names.includes(c.slice(2))), [], 'every chunk its entry imports is there');
});

t.test('no bundle can be written: the sources run through tsx, saying so on stderr', async (t) => {
  const dir = await projectCopy(t);
  await writeFile(path.join(dir, 'dist'), 'a file where the bundle directory would go\n');
  const r = run(dir, ['--help']);
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /deletions migrate/);
  t.match(r.stderr, FALLBACK);
  const usage = run(dir, ['list', '--limit', 'abc', '--json']);
  t.equal(usage.status, 2, 'exit codes are the same from the sources');
  t.match(JSON.parse(usage.stdout), { flag: '--limit', exit_code: 2 });
});

t.test('DELETIONS_CLI_FROM_SOURCE=1 runs the sources without building anything', async (t) => {
  const dir = await projectCopy(t);
  const r = run(dir, ['--help'], { DELETIONS_CLI_FROM_SOURCE: '1' });
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /deletions migrate/);
  t.notMatch(r.stderr, FALLBACK);
  t.same((await readdir(dir)).sort(), ['bin', 'node_modules', 'package.json', 'src', 'tsconfig.json'], 'no dist/ was created');
});

t.test('this checkout: the bundle and the sources print the same help and refuse the same input', async (t) => {
  for (const args of [['--help'], ['submit', '--help'], ['list', '--limit', '1.5', '--json'], ['inspect', 'not-a-uuid', '--json']]) {
    const bundled = run(root, args);
    const source = run(root, args, { DELETIONS_CLI_FROM_SOURCE: '1' });
    t.same([bundled.status, bundled.stdout], [source.status, source.stdout], `deletions ${args.join(' ')}`);
  }
});
