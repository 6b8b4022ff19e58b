// A time no JavaScript Date can hold — PostgreSQL's `infinity`/`-infinity`, a
// BC date, a year past 275760 — reaches the CLI's formatters as PostgreSQL's
// own text (src/db.ts keeps it a string instead of an Invalid Date), and
// every formatter prints it rather than throwing RangeError "Invalid time
// value" (which made `deletions list` exit 70). An Invalid Date from anywhere
// else prints as "invalid date". The last test reads such values through the
// project's real connection helper from PostgreSQL.
import t from 'tap';
import { connect, parsePgTime } from '../src/db.js';
import { dateText, keyValues, normalizeJson, table, text } from '../src/cli/format.js';
import { listTable, minuteUtc } from '../src/cli/operator.js';
import { inventoryView } from '../src/cli/inventory-view.js';
import { dbUrl } from './helpers/db.js';

const row = {
  request_id: '11111111-2222-4333-8444-555555555555',
  community_host: 'x.example',
  stage: 'approved',
  state: 'runnable',
  requested_by: 'alice@ops',
  approved_by: 'bob@ops',
  created_at: new Date('2026-01-02T03:04:05.678Z'),
  next_attempt_at: 'infinity',
  explanation: null,
};

t.test('parsePgTime: a Date when one can hold the value, PostgreSQL\'s text otherwise', async (t) => {
  t.same(parsePgTime('2026-12-01 06:27:04.123+00'), new Date('2026-12-01T06:27:04.123Z'));
  t.same(parsePgTime('2026-12-01'), new Date('2026-12-01'));
  for (const s of ['infinity', '-infinity', '0044-03-15 00:00:00+00 BC', '0044-03-15 BC', '294276-12-31 23:59:59.999999+00']) {
    t.equal(parsePgTime(s), s, `${s} kept as text`);
  }
});

t.test('text, normalizeJson, keyValues and table print such a time instead of throwing', async (t) => {
  const invalid = new Date('infinity');
  t.equal(dateText(invalid), 'invalid date');
  t.equal(dateText(new Date('2026-01-02T03:04:05Z')), '2026-01-02T03:04:05.000Z');
  t.equal(text(invalid, 'next_attempt_at'), 'invalid date');
  t.equal(text('infinity', 'next_attempt_at'), 'infinity');
  t.equal(text('-infinity', 'lease_until'), '-infinity');
  t.same(normalizeJson({ nextAttemptAt: 'infinity', leaseUntil: invalid, createdAt: row.created_at }), {
    next_attempt_at: 'infinity', lease_until: 'invalid date', created_at: '2026-01-02T03:04:05.678Z',
  });
  t.equal(JSON.stringify(normalizeJson([row])), JSON.stringify([{ ...row, created_at: '2026-01-02T03:04:05.678Z' }]));
  t.match(keyValues({ next_attempt_at: 'infinity', lease_until: invalid }), /next_attempt_at\s+infinity\nlease_until\s+invalid date/);
  t.match(table([{ at: invalid }, { at: '-infinity' }], ['at']), /invalid date[\s\S]*-infinity/);
});

t.test('list: narrow and --wide tables with next_attempt_at / created_at that no Date holds', async (t) => {
  const wide = listTable([row] as never, true);
  t.match(wide, /\binfinity\b/, 'wide: next_attempt_at as PostgreSQL prints it');
  t.match(wide, /2026-01-02T03:04:05\.678Z/);
  t.match(listTable([{ ...row, next_attempt_at: new Date(Number.NaN) } as never], true), /invalid date/);
  const narrow = listTable([{ ...row, created_at: 'infinity' }, { ...row, created_at: new Date(Number.NaN) }, row] as never, false);
  t.match(narrow, /\binfinity\b/);
  t.match(narrow, /invalid date/);
  t.match(narrow, /2026-01-02T03:04Z/);
  t.equal(minuteUtc('-infinity'), '-infinity');
  t.equal(minuteUtc('2026-01-02 05:04:05+02'), '2026-01-02T03:04Z');
  t.equal(minuteUtc(new Date('2026-01-02T03:04:59Z')), '2026-01-02T03:04Z');
});

t.test('the inventory view with an inventory_frozen_at no Date holds', async (t) => {
  const request = { inventory_digest: 'ab'.repeat(32), schema_manifest: {}, storage_manifest: {}, store_identity: null };
  t.match(inventoryView({ ...request, inventory_frozen_at: 'infinity' }), /^inventory \(frozen infinity\)/);
  t.match(inventoryView({ ...request, inventory_frozen_at: new Date(Number.NaN) }), /^inventory \(frozen invalid date\)/);
  t.match(inventoryView({ ...request, inventory_frozen_at: new Date('2026-01-02T03:04:05Z') }), /^inventory \(frozen 2026-01-02T03:04:05\.000Z\)/);
});

t.test('through the real connection helper: infinity and BC come back as text, ordinary times as Dates', async (t) => {
  const sql = connect(dbUrl('postgres'), { max: 1, applicationName: 'format-infinite-times-test' });
  t.teardown(() => sql.end({ timeout: 5 }));
  const [r] = await sql<Record<string, unknown>[]>`
    select 'infinity'::timestamptz as tz_inf, '-infinity'::timestamptz as tz_ninf, 'infinity'::timestamp as ts_inf,
           'infinity'::date as d_inf, '0044-03-15 BC'::date as d_bc,
           '2026-01-02 03:04:05.678+00'::timestamptz as tz, '2026-01-02'::date as d,
           array['infinity'::timestamptz, '2026-01-02 03:04:05+00'::timestamptz] as tz_array`;
  t.equal(r!.tz_inf, 'infinity');
  t.equal(r!.tz_ninf, '-infinity');
  t.equal(r!.ts_inf, 'infinity');
  t.equal(r!.d_inf, 'infinity');
  t.match(r!.d_bc, /BC$/);
  t.ok(r!.tz instanceof Date && (r!.tz as Date).toISOString() === '2026-01-02T03:04:05.678Z', 'an ordinary timestamptz is a Date');
  t.ok(r!.d instanceof Date, 'an ordinary date is a Date');
  t.same(r!.tz_array, ['infinity', new Date('2026-01-02T03:04:05Z')], 'arrays use the same parser');
  t.equal(text(r!.tz_inf, 'next_attempt_at'), 'infinity');
  t.equal(JSON.stringify(normalizeJson(r)), JSON.stringify(normalizeJson({ ...r })), 'normalizeJson does not throw');
  // A parameter is still serialised as postgres.js always did.
  const [echo] = await sql<{ at: Date }[]>`select ${new Date('2026-01-02T03:04:05Z')}::timestamptz as at`;
  t.same(echo!.at, new Date('2026-01-02T03:04:05Z'));
  const [inf] = await sql<{ at: unknown; later: boolean }[]>`select ${'infinity'}::timestamptz as at, ${'infinity'}::timestamptz > now() as later`;
  t.same(inf, { at: 'infinity', later: true }, "the string 'infinity' as a parameter reaches PostgreSQL as it is");
});
