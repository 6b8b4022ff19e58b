// The protocol model (model/protocol.pml) checked by Spin through
// model/check.sh: every safety property and the liveness property verified
// exhaustively ("errors: 0"), every mutant of the model caught with a
// counterexample. Needs `spin` (Debian package spin 6.5) and gcc, no
// database. See model/README.md.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const modelDir = path.join(root, 'model');
const script = path.join(modelDir, 'check.sh');
const model = readFileSync(path.join(modelDir, 'protocol.pml'), 'utf8');

const PROPERTIES = ['P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'LIVE'];
// Every mutant switch the model defines must be run by check.sh.
const MUTANTS = [...new Set(model.match(/\bMUTANT_[A-Z0-9_]+\b/g) ?? [])].sort();

function spinInstalled(): boolean {
  const r = spawnSync('spin', ['-V'], { encoding: 'utf8' });
  return !r.error && r.status === 0 && /Spin Version 6\./.test(r.stdout);
}

t.test('model/check.sh: every property verified, every mutant caught', async (t) => {
  if (!spinInstalled()) {
    t.fail(
      'Spin is not installed: the protocol model cannot be checked. ' +
        'Install it with `apt-get install -y spin` (Debian package spin 6.5; CI installs it in .ci/run).',
    );
    return;
  }
  t.ok(MUTANTS.length >= 10, `the model defines mutants (${MUTANTS.length})`);

  const before = readdirSync(modelDir).sort();
  const r = spawnSync('bash', [script], {
    cwd: root,
    encoding: 'utf8',
    timeout: 14 * 60 * 1000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const out = r.stdout ?? '';
  t.equal(r.status, 0, `check.sh exits 0\n${out.slice(-4000)}\n${r.stderr ?? ''}`);
  t.match(out, /^== RESULT: OK$/m, 'check.sh reports OK');

  for (const c of ['faults', 'migration', 'serving']) {
    t.match(out, new RegExp(`^config ${c} +state-vector \\d+ byte, depth reached \\d+, states stored \\d+, errors: 0,`, 'm'),
      `exhaustive safety run of configuration ${c}: errors: 0`);
    t.match(out, new RegExp(`^liveness ${c} +state-vector \\d+ byte, depth reached \\d+, states stored \\d+, errors: 0,`, 'm'),
      `liveness run of configuration ${c}: errors: 0`);
  }
  for (const p of PROPERTIES) {
    t.match(out, new RegExp(`^PROPERTY ${p} .*: VERIFIED \\(.*errors: 0\\)$`, 'm'), `property ${p} verified`);
  }
  for (const m of MUTANTS) {
    const caught = new RegExp(`^MUTANT ${m} breaks (P[1-6]|LIVE) \\(\\w+\\): CAUGHT - errors: [1-9]\\d*, trail of \\d+ steps`, 'm');
    const equivalent = new RegExp(`^EQUIVALENT ${m} \\(\\w+\\): no counterexample, as expected`, 'm');
    t.ok(caught.test(out) || equivalent.test(out), `mutant ${m} caught (or reported as an equivalent mutant)`);
  }
  t.notMatch(out, /NOT CAUGHT|NOT VERIFIED|BROKEN/, 'nothing failed');
  t.same(readdirSync(modelDir).sort(), before, 'check.sh left no pan or trail files in model/');
});
