// What a person reviews before approving: the frozen inventory of a request
// (rows per scoped table, object versions per owned prefix, the stores it was
// taken from, the digest an approval binds) and, after the fence, what
// appeared or vanished since approval (requests.destructive_difference).
// Plain text for a terminal; JSON output carries the same fields in the
// request row (schema_manifest, storage_manifest, store_identity,
// destructive_difference).
import { table, text } from './format.js';

type Row = Readonly<Record<string, unknown>>;

const isObject = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));
const signed = (n: number): string => (n > 0 ? `+${n}` : String(n));

/** The part of a digest an approver types: the first 12 hex digits (8 is the minimum SQL accepts). */
export function digestPrefix(digest: string): string {
  return digest.slice(0, 12);
}

/** Rows per table and versions per prefix of a request's frozen inventory, its stores and its digest. */
export function inventoryView(value: object): string {
  const request = value as Row;
  const digest = typeof request.inventory_digest === 'string' ? request.inventory_digest : null;
  if (digest === null) return 'inventory: not frozen yet';
  const schema = isObject(request.schema_manifest) ? request.schema_manifest : {};
  const storage = isObject(request.storage_manifest) ? request.storage_manifest : {};
  const counts = isObject(schema.row_counts) ? schema.row_counts : {};
  const tables = Object.keys(counts)
    .sort()
    .map((name) => ({ table: name, rows: num(counts[name]) }));
  const prefixes = (Array.isArray(storage.prefixes) ? storage.prefixes : []).filter(isObject).map((p) => ({
    prefix: String(p.prefix),
    versions: num(p.object_count),
    bytes: num(p.total_bytes),
  }));
  const at = request.inventory_frozen_at;
  const frozenAt = text(at, 'inventory_frozen_at');
  const totalRows = tables.reduce((n, t) => n + t.rows, 0);
  const totalVersions = prefixes.reduce((n, p) => n + p.versions, 0);
  const totalBytes = prefixes.reduce((n, p) => n + p.bytes, 0);
  return [
    `inventory (frozen ${frozenAt}): ${totalRows} rows in ${tables.length} tables, ${totalVersions} object versions (${totalBytes} bytes) in ${prefixes.length} prefixes`,
    '',
    table(tables.filter((t) => t.rows > 0), ['table', 'rows']) + (tables.some((t) => t.rows === 0) ? `\n(${tables.filter((t) => t.rows === 0).length} other tables: 0 rows)` : ''),
    '',
    table(prefixes, ['prefix', 'versions', 'bytes']),
    '',
    `stores: ${storesLine(request.store_identity)}`,
    `digest: ${digest}`,
  ].join('\n');
}

export function storesLine(identity: unknown): string {
  if (!isObject(identity)) return '(not recorded yet: the first executor step records its own)';
  return `S3 ${String(identity.s3_endpoint)} bucket ${String(identity.s3_bucket)}, Redis ${String(identity.redis_server)} database ${String(identity.redis_db)}`;
}

/** How an approver binds what they reviewed. */
export function approveHint(value: object): string | null {
  const request = value as Row;
  if (request.stage !== 'inventoried' || typeof request.inventory_digest !== 'string') return null;
  return `to approve what is shown: deletions approve ${String(request.id)} --approved-by WHO --digest ${digestPrefix(request.inventory_digest)}`;
}

/** The recorded difference between the approved inventory and the post-fence destructive manifest. */
export function differenceView(value: object): string | null {
  const request = value as Row;
  const diff = request.destructive_difference;
  if (!isObject(diff)) {
    return request.destructive_storage_manifest ? 'since approval: not recorded (the manifest was frozen before this was recorded)' : null;
  }
  const tables = (Array.isArray(diff.tables) ? diff.tables : []).filter(isObject);
  const prefixes = (Array.isArray(diff.prefixes) ? diff.prefixes : []).filter(isObject);
  const changedTables = tables.filter((t) => num(t.appeared) > 0 || num(t.vanished) > 0 || t.fenced_rows === null);
  const changedPrefixes = prefixes.filter((p) => num(p.appeared) > 0 || num(p.vanished) > 0 || p.content_changed === true);
  if (!diff.changed) return 'since approval: nothing appeared or vanished (rows per table and object versions per prefix as approved)';
  const rows = (t: Row) => ({
    table: t.table, approved: num(t.approved_rows), fenced: t.fenced_rows === null ? 'missing' : num(t.fenced_rows),
    change: t.fenced_rows === null ? '' : signed(num(t.fenced_rows) - num(t.approved_rows)),
  });
  const versions = (p: Row) => ({
    prefix: p.prefix, approved: num(p.approved_versions), fenced: num(p.fenced_versions),
    change: signed(num(p.fenced_versions) - num(p.approved_versions)),
    content: p.content_changed === true ? 'changed' : p.content_changed === false ? 'same' : 'not comparable',
  });
  return [
    'since approval (approved inventory → destructive manifest after the fence):',
    changedTables.length === 0 ? 'rows: as approved' : table(changedTables.map(rows), ['table', 'approved', 'fenced', 'change']),
    '',
    changedPrefixes.length === 0 ? 'object versions: as approved' : table(changedPrefixes.map(versions), ['prefix', 'approved', 'fenced', 'change', 'content']),
  ].join('\n');
}

/** The blocks submit, approve and inspect print under the request. */
export function reviewView(request: object): string {
  return [inventoryView(request), differenceView(request), approveHint(request)].filter((s): s is string => s !== null).join('\n\n');
}
