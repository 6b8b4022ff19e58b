// How bin/deletions starts the CLI (src/cli/index.ts) without a build step,
// in this same process (signals such as SIGTERM/SIGKILL reach the CLI itself).
//
// The TypeScript sources are bundled by esbuild (which tsx already brings)
// into dist/cli-<key>.mjs, where <key> is a digest of every file under src/
// and of tsconfig.json; a bundle whose key matches is run as it is, and any
// change to them makes the next start build a new one (about a third of a
// second). Running the bundle costs about half the CPU of loading each
// source file through tsx's module hooks, which every operator command and
// every end-to-end test pays. The bundle is split (esbuild's code
// splitting): what the sources load with import() — the S3 and Redis
// clients, graphile-migrate, prom-client — sits in chunks
// dist/cli-<key>-<hash>.mjs that only a command using them loads, so a usage
// error, help or an operator command on PostgreSQL alone does not pay for
// them (0.4 s of CPU a start instead of 0.9 s unsplit, on this machine).
//
// The bundle lives one directory below the project root, as src/*.ts do, so
// code that finds the project from its own file (src/migrate.ts:
// `path.resolve(dirname(import.meta.url), '..')`) finds the same root.
// Packages stay external: they load from node_modules as before.
// The chunks are written first and the entry file last, so an entry file
// that exists always has its chunks.
//
// When the bundle cannot be built or written (esbuild missing, a read-only
// checkout), the sources run through tsx as before, with one line on stderr.
// DELETIONS_CLI_FROM_SOURCE=1 always runs the sources through tsx.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const entry = path.join(src, 'cli', 'index.ts');
const dist = path.join(root, 'dist');
/** Changes whenever the way bundles are built changes, so an old bundle is never reused. */
const BUILD_FORMAT = 'esm-node20-external-split-2';

function sourceFiles(dir, out = []) {
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, item.name);
    if (item.isDirectory()) sourceFiles(full, out);
    else if (item.isFile()) out.push(full);
  }
  return out;
}

/**
 * A digest of the build format, every file under src/ (path and content) and
 * tsconfig.json (esbuild reads its compiler options).
 */
function sourceKey() {
  const hash = createHash('sha256').update(BUILD_FORMAT).update('\0');
  const tsconfig = path.join(root, 'tsconfig.json');
  if (existsSync(tsconfig)) hash.update('tsconfig.json\0').update(readFileSync(tsconfig)).update('\0');
  for (const file of sourceFiles(src).sort()) {
    hash.update(path.relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 20);
}

/** Bundles of other keys left by earlier sources, once no start can still be about to load them. */
function removeStaleBundles(keep) {
  const hourAgo = Date.now() - 3600_000;
  for (const name of readdirSync(dist)) {
    if (!/^cli-[0-9a-f]+(-[0-9A-Za-z]+)?\.mjs(\.\d+\.tmp)?$/.test(name) || name.startsWith(keep)) continue;
    const full = path.join(dist, name);
    try {
      if (statSync(full).mtimeMs < hourAgo) rmSync(full, { force: true, recursive: true });
    } catch {
      // another start removed it first
    }
  }
}

async function bundlePath() {
  const key = `cli-${sourceKey()}`;
  const bundle = path.join(dist, `${key}.mjs`);
  if (existsSync(bundle)) return bundle;
  const esbuild = await import('esbuild');
  mkdirSync(dist, { recursive: true });
  // Written into a directory of its own, then renamed into dist/ file by
  // file, the entry last: starts running at the same moment never see half a
  // bundle, and the last rename wins (the same sources build the same files).
  const partial = path.join(dist, `${key}.mjs.${process.pid}.tmp`);
  try {
    await esbuild.build({
      entryPoints: { [key]: entry },
      bundle: true,
      splitting: true,
      chunkNames: `${key}-[hash]`,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outdir: partial,
      outExtension: { '.js': '.mjs' },
      logLevel: 'silent',
      legalComments: 'none',
    });
    const chunks = readdirSync(partial).filter((name) => name !== `${key}.mjs`);
    for (const name of chunks) renameSync(path.join(partial, name), path.join(dist, name));
    renameSync(path.join(partial, `${key}.mjs`), bundle);
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
  removeStaleBundles(key);
  return bundle;
}

async function fromSource() {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(entry).href);
}

if (process.env.DELETIONS_CLI_FROM_SOURCE === '1') {
  await fromSource();
} else {
  let bundle;
  try {
    bundle = await bundlePath();
  } catch (error) {
    process.stderr.write(`deletions: running the TypeScript sources directly (no bundle in ${dist}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)})\n`);
  }
  if (bundle) await import(pathToFileURL(bundle).href);
  else await fromSource();
}
