// A request whose next_attempt_at is `infinity` (or any time beyond what a
// JavaScript Date holds) used to crash `deletions list` with RangeError
// "Invalid time value" (exit 70). Through the real CLI against real
// PostgreSQL: `list`, `list --wide` and `inspect` print PostgreSQL's own text
// for it and exit 0.
import t from 'tap';
import { createTestDatabase } from '../helpers/db.js';
import { createTestBucket } from '../helpers/moto.js';
import { cliEnv, deletions, show } from '../helpers/e2e.js';

const db = await createTestDatabase();
t.teardown(() => db.drop());
const bucket = await createTestBucket(t);
const env = cliEnv(db, bucket);
const sql = db.sql;
const host = `infinite-${process.pid}.example`;
await sql`select tests.seed_community(${host}, 1::integer)`;
const [request] = await sql<{ id: string }[]>`select id from community_deletion.submit(${host}, 'alice@ops', 'infinite times')`;
const id = request!.id;

for (const value of ['infinity', '-infinity']) {
  t.test(`next_attempt_at = ${value}: list, list --wide and inspect exit 0 and print it`, async (t) => {
    await sql`update community_deletion.requests set next_attempt_at = ${value}::text::timestamptz where id = ${id}`;
    for (const args of [['list'], ['list', '--wide'], ['list', '--host', host]]) {
      const r = await deletions(args, env);
      t.equal(r.code, 0, `${args.join(' ')}: ${show(r)}`);
      t.notMatch(r.stderr, /Invalid time value|internal error/);
      const row = (r.json as unknown as Array<Record<string, unknown>>).find((x) => x.request_id === id);
      t.match(row, { request_id: id, next_attempt_at: value, created_at: /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/ }, args.join(' '));
    }
    const inspect = await deletions(['inspect', id], env);
    t.equal(inspect.code, 0, show(inspect));
    t.match(inspect.json, { request: { id, next_attempt_at: value } });
  });
}
