// scripts/function-sources.sh (run by `npm test` as its own suite) must catch
// a function source that no migration deployed: an edited body, a new file,
// a deployed function whose file is gone, an include index out of step, and
// a file holding more than its one function. Each case edits a copy of
// db/functions (or db/engine) and runs the real check against the migrations.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migratedTemplate } from './helpers/migrated.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Every case compares with the same migrations: they are built once, and each
// run of function-sources.sh clones that database (DELETIONS_MIGRATED_TEMPLATE).
const migrated = migratedTemplate(t, root);

function check(edit: (functions: string, engine: string) => void): { code: number | null; output: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'cd-sources-'));
  try {
    const functions = path.join(dir, 'functions');
    const engine = path.join(dir, 'engine');
    cpSync(path.join(root, 'db', 'functions'), functions, { recursive: true });
    cpSync(path.join(root, 'db', 'engine'), engine, { recursive: true });
    edit(functions, engine);
    const run = spawnSync('bash', [path.join(root, 'scripts', 'function-sources.sh'), functions, engine],
      { encoding: 'utf8', env: { ...process.env, DELETIONS_MIGRATED_TEMPLATE: migrated } });
    return { code: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

t.test('the sources as committed match the migrations', async (t) => {
  const r = check(() => {});
  t.equal(r.code, 0, r.output);
  t.match(r.output, /function sources: OK/);
});

t.test('an edited function body that no migration includes is caught, naming the function', async (t) => {
  const r = check((functions) => {
    const file = path.join(functions, 'inspect.sql');
    const text = readFileSync(file, 'utf8');
    const edited = text.replace("'no deletion request %'", "'no such deletion request %'");
    t.not(edited, text, 'the edit applies');
    writeFileSync(file, edited);
  });
  t.equal(r.code, 1, r.output);
  t.match(r.output, /community_deletion\.inspect\(uuid\)/);
});

t.test('a new function file that no migration deployed is caught', async (t) => {
  const r = check((functions, engine) => {
    writeFileSync(
      path.join(functions, 'shiny_new.sql'),
      "-- Not deployed.\ncreate or replace function community_deletion.shiny_new()\n  returns integer\n  language sql\n  immutable\n  set search_path = ''\nas $$\n  select 1\n$$;\n",
    );
    appendFileSync(path.join(engine, 'functions.sql'), '--!include functions/shiny_new.sql\n');
  });
  t.equal(r.code, 1, r.output);
  t.match(r.output, /community_deletion\.shiny_new\(\)/);
});

t.test('a deployed function without its source file is caught', async (t) => {
  const r = check((functions, engine) => {
    unlinkSync(path.join(functions, 'release.sql'));
    const index = path.join(engine, 'functions.sql');
    writeFileSync(index, readFileSync(index, 'utf8').replace('--!include functions/release.sql\n', ''));
  });
  t.equal(r.code, 1, r.output);
  t.match(r.output, /community_deletion\.release\(uuid,text,bigint\) is deployed but has no source file/);
});

t.test('an include index that misses a file is caught', async (t) => {
  const r = check((_functions, engine) => {
    const index = path.join(engine, 'functions.sql');
    writeFileSync(index, readFileSync(index, 'utf8').replace('--!include functions/release.sql\n', ''));
  });
  t.equal(r.code, 1, r.output);
  t.match(r.output, /does not list exactly the files/);
  t.match(r.output, /release\.sql/);
});

t.test('a file with a statement besides its function is caught', async (t) => {
  const r = check((functions) => {
    appendFileSync(path.join(functions, 'abort.sql'), "\ngrant execute on function community_deletion.abort(uuid, text, text) to public;\n");
  });
  t.equal(r.code, 1, r.output);
  t.match(r.output, /abort\.sql holds statements besides its function/);
});
