// Unit tests of the CLI's argument validation (src/cli/args.ts) and human
// output (src/cli/format.ts): repeated options, integers, durations, operator
// texts, files/stdin, control characters escaped in tables, JSON naming.
import t, { type Test } from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  LIMITS, optionalExecutorId, optionalText, parseDuration, parseIntegerOption, refuseRepeatedOptions, requireIdentity, requireText, textOrFile,
} from '../src/cli/args.js';
import { CliError, exitCodeFor } from '../src/cli/common.js';
import { PostgresStalledError } from '../src/pg-stall.js';
import { EXIT } from '../src/cli/exit-codes.js';
import { Progress, escapeControl, isoUtc, keyValues, normalizeJson, table, truncate } from '../src/cli/format.js';
import { listTable, parseDelay, parseNotBefore, progressBar } from '../src/cli/operator.js';
import type { RequestListRow } from '../src/engine.js';

function usageError(t: Test, fn: () => unknown, flag: string, message: RegExp): void {
  try {
    fn();
    t.fail(`expected a usage error naming ${flag}`);
  } catch (error) {
    t.ok(error instanceof CliError, String(error));
    t.equal((error as CliError).exitCode, EXIT.usage);
    t.equal((error as CliError).detail.flag, flag);
    t.match((error as Error).message, message);
  }
}

t.test('a repeated single-valued option is refused, naming the flag', async (t) => {
  usageError(t, () => refuseRepeatedOptions({ _: ['approve'], 'approved-by': ['alice', 'bob'], approvedBy: ['alice', 'bob'] }), '--approved-by', /2 times/);
  usageError(t, () => refuseRepeatedOptions({ _: [], host: ['a', 'b'] }), '--host', /exactly one value/);
  usageError(t, () => refuseRepeatedOptions({ _: [], limit: ['1', '2', '3'] }), '--limit', /3 times/);
  t.doesNotThrow(() => refuseRepeatedOptions({ _: ['a', 'b'], host: 'a', json: true }));
  t.doesNotThrow(() => refuseRepeatedOptions({ _: [], tag: ['a', 'b'] }, new Set(['tag'])), 'declared array options are allowed');
});

t.test('integers: digits only, within range', async (t) => {
  t.equal(parseIntegerOption('25', '--limit', 1, 1000), 25);
  for (const bad of ['1.5', 'abc', '1e3', '0x10', '', ' 7', '-']) usageError(t, () => parseIntegerOption(bad, '--limit', 1, 1000), '--limit', /not an integer/);
  usageError(t, () => parseIntegerOption('0', '--limit', 1, 1000), '--limit', /outside 1\.\.1000/);
  usageError(t, () => parseIntegerOption('-3', '--sample-size', 0, 100), '--sample-size', /outside/);
  usageError(t, () => parseIntegerOption('1001', '--limit', 1, 1000), '--limit', /outside/);
});

t.test('durations: short and spelled-out forms, nothing else', async (t) => {
  t.equal(parseDuration('90s'), 90);
  t.equal(parseDuration('30m'), 1800);
  t.equal(parseDuration('2h'), 7200);
  t.equal(parseDuration('7d'), 604_800);
  t.equal(parseDuration('1h30m'), 5400);
  t.equal(parseDuration('24 hours'), 86_400);
  t.equal(parseDuration('1 day 2 hours'), 93_600);
  t.equal(parseDelay('1h30m'), '5400 seconds');
  for (const bad of ['5 fortnights', 'soon', '', '1h30', 'h', '10', "1 day'; drop table x; --", '-5m']) {
    usageError(t, () => parseDuration(bad), '--delay', /not a duration/);
  }
  usageError(t, () => parseDuration('400d'), '--delay', /longer than/);
});

t.test('--not-before: ISO 8601 with a zone', async (t) => {
  t.equal(parseNotBefore('2026-12-24T09:00Z').toISOString(), '2026-12-24T09:00:00.000Z');
  t.equal(parseNotBefore('2026-12-24T10:00:00+01:00').toISOString(), '2026-12-24T09:00:00.000Z');
  for (const bad of ['tomorrow', '2026-12-24', '2026-12-24T09:00', '2026-13-45T09:00Z']) usageError(t, () => parseNotBefore(bad), '--not-before', /ISO 8601/);
});

t.test('identities: no control characters, at most 512 bytes', async (t) => {
  t.equal(requireIdentity('  alice@ops ', '--requested-by'), 'alice@ops');
  usageError(t, () => requireIdentity('alice\u001b[31m', '--requested-by'), '--requested-by', /control characters/);
  usageError(t, () => requireIdentity('alice\nbob', '--approved-by'), '--approved-by', /control characters/);
  usageError(t, () => requireIdentity('a\u009bb', '--approved-by'), '--approved-by', /control characters/);
  usageError(t, () => requireIdentity('   ', '--aborted-by'), '--aborted-by', /empty/);
  usageError(t, () => requireIdentity('é'.repeat(257), '--requested-by'), '--requested-by', /514 bytes; the limit is 512 bytes/);
  t.equal(requireIdentity('é'.repeat(256), '--requested-by').length, 256, 'exactly 512 bytes is accepted');
});

t.test('--executor-id: like an identity (no control characters), at most 256 bytes, absent means the default', async (t) => {
  t.equal(optionalExecutorId(undefined), undefined);
  t.equal(optionalExecutorId(' batch-1 '), 'batch-1');
  usageError(t, () => optionalExecutorId('a\u001b[2Jb'), '--executor-id', /--executor-id contains control characters/);
  usageError(t, () => optionalExecutorId('a\nb'), '--executor-id', /control characters/);
  usageError(t, () => optionalExecutorId('a\u009bb'), '--executor-id', /control characters/);
  usageError(t, () => optionalExecutorId('  '), '--executor-id', /empty/);
  usageError(t, () => optionalExecutorId(['a', 'b']), '--executor-id', /2 times/);
  usageError(t, () => optionalExecutorId('x'.repeat(257)), '--executor-id', /257 bytes; the limit is 256 bytes/);
  t.equal(optionalExecutorId('x'.repeat(256))?.length, 256, 'the 256 bytes claim accepts');
});

t.test('free texts: line breaks allowed, escapes refused, the limit named, never truncated', async (t) => {
  t.equal(optionalText('line 1\nline 2\ttab', '--reason'), 'line 1\nline 2\ttab');
  t.equal(optionalText('  ', '--note'), undefined);
  t.equal(optionalText(undefined, '--note'), undefined);
  usageError(t, () => optionalText('red \u001b[31m', '--reason'), '--reason', /control characters/);
  usageError(t, () => optionalText('x'.repeat(LIMITS.text + 1), '--reason-file'), '--reason-file', /4097 bytes; the limit is 4096 bytes/);
  t.equal(optionalText('x'.repeat(LIMITS.text), '--reason')?.length, LIMITS.text);
  usageError(t, () => requireText('', '--reason'), '--reason', /required/);
});

t.test('--reason-file reads a file or stdin (-), and excludes --reason', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cli-args-'));
  const file = path.join(dir, 'reason.txt');
  writeFileSync(file, 'from a file\n');
  t.equal(textOrFile(undefined, file, '--reason'), 'from a file\n');
  t.equal(textOrFile(undefined, '-', '--reason', () => 'from stdin'), 'from stdin');
  t.equal(textOrFile('inline', undefined, '--reason'), 'inline');
  usageError(t, () => textOrFile('inline', file, '--reason'), '--reason-file', /not both/);
  usageError(t, () => textOrFile(undefined, path.join(dir, 'missing'), '--reason'), '--reason-file', /ENOENT/);
});

t.test('escapeControl makes every control character visible', async (t) => {
  t.equal(escapeControl('a\u001b[2Jb'), 'a\\e[2Jb');
  t.equal(escapeControl('x\ny\rz\tw'), 'x\\ny\\rz\\tw');
  t.equal(escapeControl('\u0000\u0007\u007f\u009b'), '\\x00\\x07\\x7f\\x9b');
  t.equal(escapeControl('plain — ünïcode'), 'plain — ünïcode');
});

t.test('tables and key/values never print a raw escape sequence', async (t) => {
  const rows = [{ who: 'mallory\u001b]0;pwned\u0007', reason: 'a\nb' }];
  const out = table(rows, ['who', 'reason']);
  t.notMatch(out, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  t.match(out, /mallory\\e\]0;pwned\\x07/);
  t.match(out, /a\\nb/);
  const kv = keyValues({ requested_by: 'eve\u001b[31m' });
  t.equal(kv, 'requested_by  eve\\e[31m');
  t.match(table([{ j: { note: 'x\u001by' } }], ['j']), /x\\u001by/, 'JSON cells are escaped too');
});

t.test('list fits 100 columns unless --wide; long cells end with an ellipsis', async (t) => {
  const row: RequestListRow = {
    request_id: '0b6f3a2e-0000-4000-8000-000000000001', community_id: '0b6f3a2e-0000-4000-8000-000000000002',
    community_host: 'a-very-long-community-host-name.example.org', stage: 'inventoried', state: 'waiting_for_inventory',
    requested_by: 'alice@ops.example', approved_by: null, not_before: null, lease_owner: null, lease_until: null,
    next_attempt_at: new Date('2026-12-01T06:00:00Z'), retry_count: 0, blocked_reason: null,
    created_at: new Date('2026-12-01T06:27:04.123Z'), updated_at: new Date('2026-12-01T06:27:04.123Z'),
    explanation: 'Submitted by alice; waiting for community_deletion.freeze_inventory with the storage summary.',
  };
  const narrow = listTable([row], false);
  for (const line of narrow.split('\n')) t.ok(line.length <= 100, `≤ 100 columns: ${line.length}`);
  t.match(narrow, /a-very-long-commu…/);
  t.match(narrow, /0b6f3a2e-0000-4000-8000-000000000001/, 'the request id is never cut');
  t.match(narrow, /2026-12-01T06:27Z/);
  const wide = listTable([row], true);
  t.match(wide, /a-very-long-community-host-name\.example\.org/);
  t.match(wide, /freeze_inventory with the storage summary\./);
  t.equal(truncate('abcdef', 4), 'abc…');
  t.equal(truncate('abc', 4), 'abc');
});

t.test('JSON: snake_case keys and ISO 8601 UTC times', async (t) => {
  t.same(normalizeJson({ kind: 'completed', requestId: 'r', nextAttemptAt: new Date('2026-12-01T00:00:00Z'), stages: [{ stage: 'approved', ms: 3 }] }), {
    kind: 'completed', request_id: 'r', next_attempt_at: '2026-12-01T00:00:00.000Z', stages: [{ stage: 'approved', ms: 3 }],
  });
  t.same(normalizeJson({ 'public.users': 3, '_meta/x/': 1 }), { 'public.users': 3, '_meta/x/': 1 }, 'table names and prefixes are kept');
  t.equal(isoUtc('2026-12-01T08:27:04.123456+02:00'), '2026-12-01T06:27:04.123456Z');
  t.equal(isoUtc('2026-12-01 06:27:04+00'), '2026-12-01T06:27:04Z');
  t.equal(isoUtc('not a time'), undefined);
  t.same(normalizeJson({ created_at: '2026-12-01T06:27:04.5+00:00', request: { lease_until: '2026-12-01 08:00:00+02' } }), {
    created_at: '2026-12-01T06:27:04.5Z', request: { lease_until: '2026-12-01T06:00:00Z' },
  });
  t.same(normalizeJson({ reason: '2026-12-01T08:00:00+02:00' }), { reason: '2026-12-01T08:00:00+02:00' }, 'a text is never rewritten');
});

t.test('a log line is written above the progress bar, which is then redrawn', async (t) => {
  let screen = '';
  const p = new Progress({ enabled: true, write: (s) => (screen += s) });
  p.update('deleting object versions', 5, 10);
  screen = '';
  p.log('2026-12-01T00:00:00Z a log line\n');
  t.equal(screen, '\r\x1b[K2026-12-01T00:00:00Z a log line\n\r[###############...............] deleting object versions 5/10\x1b[K');
  p.done();
  screen = '';
  p.log('after\n');
  t.equal(screen, 'after\n', 'without a bar the line is written as is');
});

t.test('inspect\'s progress bar counts object versions', async (t) => {
  t.equal(progressBar(5, 10, 'object versions deleted', 10), '[#####.....] 5/10 object versions deleted');
  t.equal(progressBar(0, 0, 'x', 4), '[....] 0/0 x');
});

t.test('a database that stopped answering (PostgresStalledError) is the environment: exit 5', async (t) => {
  const stalled = new PostgresStalledError('claim', 910_000);
  t.equal(exitCodeFor(stalled), EXIT.config);
  t.match(stalled.message, /PostgreSQL did not answer claim within 910 s/);
  t.same([stalled.code, stalled.transient], ['pg_no_answer', true], 'typed and transient: classified by type, never by message');
});
