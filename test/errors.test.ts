// The SQLSTATE registry has one truth in two forms (docs/sqlstates.md for
// people, src/errors.ts for code); every code raised in db/functions is in it.
import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SQLSTATES, isRetryableSqlState, isStaleLease } from '../src/errors.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function docRows(): { name: string; code: string; retry: string }[] {
  const md = readFileSync(path.join(root, 'docs', 'sqlstates.md'), 'utf8');
  const rows: { name: string; code: string; retry: string }[] = [];
  for (const line of md.split('\n')) {
    const m = /^\| ([a-z_]+) \| ([0-9A-Z]{5}) \| (retryable|permanent) \|/.exec(line);
    if (m) rows.push({ name: m[1]!, code: m[2]!, retry: m[3]! });
  }
  return rows;
}

t.test('docs/sqlstates.md and src/errors.ts list the same codes', async (t) => {
  const doc = docRows();
  t.ok(doc.length >= 20, 'the doc table parsed');
  t.same(
    doc.map((r) => `${r.name} ${r.code} ${r.retry}`).sort(),
    SQLSTATES.map((s) => `${s.name} ${s.code} ${s.retry}`).sort(),
  );
});

t.test('codes are unique and follow the project family rules', async (t) => {
  const codes = SQLSTATES.map((s) => s.code);
  t.equal(new Set(codes).size, codes.length, 'no duplicate codes');
  for (const c of codes.filter((c) => c.startsWith('DL'))) {
    t.match(c, /^DL[1-9][A-Z][0-9A-Z]$/, `${c}: third char a non-zero digit, fourth a letter`);
  }
});

t.test('every errcode raised in db/functions is registered', async (t) => {
  const dir = path.join(root, 'db', 'functions');
  const registered = new Set<string>(SQLSTATES.map((s) => s.code));
  const raised = new Set<string>();
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
    const src = readFileSync(path.join(dir, f), 'utf8');
    for (const m of src.matchAll(/errcode\s*=\s*'([0-9A-Z]{5})'/g)) raised.add(m[1]!);
  }
  t.ok(raised.size > 0, 'found raised codes');
  for (const code of raised) t.ok(registered.has(code), `${code} is in the registry`);
});

t.test('classification is by code', async (t) => {
  t.equal(isRetryableSqlState('DL5D1'), true, 'serving not drained is retryable');
  t.equal(isRetryableSqlState('DL2S1'), false, 'wrong stage is permanent');
  t.equal(isRetryableSqlState('40001'), true, 'serialization failure is retryable');
  t.equal(isRetryableSqlState('08006'), true, 'connection failure class is retryable');
  t.equal(isRetryableSqlState('23505'), false, 'unique violation is permanent');
  t.equal(isStaleLease({ code: 'DL4L1', message: 'anything' }), true);
  t.equal(isStaleLease({ code: '42501', message: 'stale deletion lease' }), false, 'message text is ignored');
});
