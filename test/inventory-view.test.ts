// The human view of what an approver approves (src/cli/inventory-view.ts):
// rows per table, object versions per prefix, the stores, the digest and the
// command that binds it; after the fence, what appeared or vanished since
// approval. JSON output carries the same fields in the request row (covered
// end to end by test/e2e/store-mismatch-blocks-before-any-effect.test.ts).
import t from 'tap';
import { approveHint, differenceView, digestPrefix, inventoryView, reviewView, storesLine } from '../src/cli/inventory-view.js';

const c = '0b6f3c1e-5a4d-4c8e-9f00-0123456789ab';
const digest = 'ab12cd34ef56'.padEnd(64, '0');
const request = {
  id: '11111111-2222-4333-8444-555555555555',
  stage: 'inventoried',
  inventory_digest: digest,
  inventory_frozen_at: new Date('2026-01-02T03:04:05Z'),
  schema_manifest: { scoped_tables: ['channels', 'events', 'users'], row_counts: { channels: 1, events: 12, users: 0 }, fenced_tables: [] },
  storage_manifest: {
    version: 1, chunk_size: 10000,
    prefixes: [
      { prefix: `_meta/${c}/`, object_count: 3, total_bytes: 300, keys_digest: 'x' },
      { prefix: `_uploads/${c}/`, object_count: 0, total_bytes: 0, keys_digest: 'y' },
      { prefix: `repos/${c}/`, object_count: 2, total_bytes: 20, keys_digest: 'z' },
    ],
  },
  store_identity: { s3_endpoint: 'http://127.0.0.1:5055', s3_bucket: 'media', redis_server: '127.0.0.1:6379', redis_db: 0 },
  destructive_storage_manifest: null,
  destructive_difference: null,
};

t.test('the inventory: rows per table, versions per prefix, stores, digest', async (t) => {
  const view = inventoryView(request);
  t.match(view, /inventory \(frozen 2026-01-02T03:04:05\.000Z\): 13 rows in 3 tables, 5 object versions \(320 bytes\) in 3 prefixes/);
  t.match(view, /^events\s+12$/m, 'a table with rows');
  t.match(view, /^channels\s+1$/m);
  t.match(view, /\(1 other tables: 0 rows\)/, 'empty tables summarised');
  t.match(view, new RegExp(`^_meta/${c}/\\s+3\\s+300$`, 'm'), 'versions and bytes per prefix');
  t.match(view, new RegExp(`^_uploads/${c}/\\s+0\\s+0$`, 'm'), 'an empty prefix is listed');
  t.match(view, /stores: S3 http:\/\/127\.0\.0\.1:5055 bucket media, Redis 127\.0\.0\.1:6379 database 0/);
  t.match(view, new RegExp(`digest: ${digest}`));
});

t.test('the approve command binds the digest prefix shown', async (t) => {
  t.equal(digestPrefix(digest), 'ab12cd34ef56');
  t.equal(approveHint(request), `to approve what is shown: deletions approve ${request.id} --approved-by WHO --digest ab12cd34ef56`);
  t.equal(approveHint({ ...request, stage: 'approved' }), null, 'only while it can be approved');
  t.match(reviewView(request), /--digest ab12cd34ef56/);
});

t.test('not frozen yet, stores not recorded', async (t) => {
  t.equal(inventoryView({ ...request, inventory_digest: null }), 'inventory: not frozen yet');
  t.match(storesLine(null), /not recorded yet/);
});

t.test('the difference since approval', async (t) => {
  t.equal(differenceView(request), null, 'nothing before the destructive manifest');
  t.match(differenceView({ ...request, destructive_storage_manifest: {} }), /not recorded/, 'a manifest frozen before the difference was recorded');
  const same = { changed: false, tables: [{ table: 'events', approved_rows: 12, fenced_rows: 12, appeared: 0, vanished: 0 }], prefixes: [] };
  t.match(differenceView({ ...request, destructive_difference: same }), /nothing appeared or vanished/);
  const changed = {
    changed: true,
    tables: [
      { table: 'events', approved_rows: 12, fenced_rows: 15, appeared: 3, vanished: 0 },
      { table: 'users', approved_rows: 2, fenced_rows: 0, appeared: 0, vanished: 2 },
      { table: 'channels', approved_rows: 1, fenced_rows: 1, appeared: 0, vanished: 0 },
    ],
    prefixes: [
      { prefix: `_meta/${c}/`, approved_versions: 3, fenced_versions: 4, appeared: 1, vanished: 0, content_changed: true },
      { prefix: `repos/${c}/`, approved_versions: 2, fenced_versions: 2, appeared: 0, vanished: 0, content_changed: true },
      { prefix: `_uploads/${c}/`, approved_versions: 0, fenced_versions: 0, appeared: 0, vanished: 0, content_changed: false },
    ],
  };
  const view = differenceView({ ...request, destructive_difference: changed })!;
  t.match(view, /^events\s+12\s+15\s+\+3$/m, 'rows that appeared');
  t.match(view, /^users\s+2\s+0\s+-2$/m, 'rows that vanished');
  t.notMatch(view, /^channels/m, 'unchanged tables are not listed');
  t.match(view, new RegExp(`^_meta/${c}/\\s+3\\s+4\\s+\\+1\\s+changed$`, 'm'), 'versions that appeared');
  t.match(view, new RegExp(`^repos/${c}/\\s+2\\s+2\\s+0\\s+changed$`, 'm'), 'same count, other versions');
  t.notMatch(view, /_uploads/, 'unchanged prefixes are not listed');
});
