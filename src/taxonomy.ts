// Storage key taxonomy: which object keys a community owns, which are shared
// content-addressed storage, and which are unknown. The rows are data (the
// `community_deletion.storage_taxonomy` registry); this module only compiles
// them into matchers, so it stays pure and testable without a database.

export type TaxonomyScope = 'owned' | 'shared';

export interface TaxonomyRow {
  name: string;
  scope: TaxonomyScope;
  prefix_template: string;
  key_pattern: string;
  writer: string;
  description?: string;
}

export type KeyClassification =
  | { scope: 'owned'; name: string; writer: string; community_id: string }
  | { scope: 'shared'; name: string; writer: string }
  | { scope: 'unknown' };

export type TaxonomyErrorCode =
  | 'invalid_row'
  | 'invalid_community_id'
  | 'not_an_owned_prefix'
  | 'key_outside_prefix'
  | 'malformed_owned_key';

export class TaxonomyError extends Error {
  override readonly name = 'TaxonomyError';
  /** A key no writer produces: retrying cannot change it (src/failures.ts). */
  readonly transient = false;
  readonly code: TaxonomyErrorCode;
  readonly key: string | undefined;

  constructor(code: TaxonomyErrorCode, message: string, key?: string) {
    super(message);
    this.code = code;
    this.key = key;
  }
}

const PLACEHOLDER = '{community}';
const UUID_SOURCE = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const UUID_RE = new RegExp(`^${UUID_SOURCE}$`);

// The adapters refuse to list or delete outside these roots whatever the
// registry says: a wrong registry row must not widen the destructive scope.
// A registry with another owned root therefore fails closed at the adapter.
export const OWNED_PREFIX_ROOTS: readonly string[] = ['_meta/', '_uploads/', 'repos/'];
const OWNED_PREFIX_RE = new RegExp(`^(?:_meta|_uploads|repos)/${UUID_SOURCE}/$`);

export function isCommunityId(value: string): boolean {
  return UUID_RE.test(value);
}

/** Community ids are lowercase UUIDs everywhere (keys, Redis namespaces). */
export function assertCommunityId(value: string): string {
  if (!isCommunityId(value)) {
    throw new TaxonomyError('invalid_community_id', `not a lowercase UUID community id: ${JSON.stringify(value)}`);
  }
  return value;
}

/** True for `<owned root><lowercase uuid>/` and nothing else (never '' or a shared root). */
export function isOwnedPrefixShape(prefix: string): boolean {
  return OWNED_PREFIX_RE.test(prefix);
}

// Escapes the characters that are special outside a class in both JS and
// PostgreSQL AREs; braces are rejected in templates apart from the placeholder.
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
}

interface CompiledRow {
  row: TaxonomyRow;
  // Pattern with the placeholder replaced by a capturing UUID group, used when
  // no community is given (fleet sweep).
  anyCommunity: RegExp;
}

function compile(source: string, row: TaxonomyRow): RegExp {
  try {
    return new RegExp(source, 'u');
  } catch (error) {
    throw new TaxonomyError('invalid_row', `taxonomy row ${row.name} has an invalid key_pattern: ${(error as Error).message}`);
  }
}

function validateRow(row: TaxonomyRow): void {
  const bad = (why: string): never => {
    throw new TaxonomyError('invalid_row', `taxonomy row ${JSON.stringify(row.name)}: ${why}`);
  };
  if (!row.name) bad('empty name');
  if (row.scope !== 'owned' && row.scope !== 'shared') bad(`unknown scope ${JSON.stringify(row.scope)}`);
  if (!row.key_pattern.startsWith('^') || !row.key_pattern.endsWith('$')) bad('key_pattern is not anchored');
  if (!row.prefix_template.endsWith('/')) bad('prefix_template does not end with /');
  const placeholders = row.prefix_template.split(PLACEHOLDER).length - 1;
  if (row.scope === 'owned') {
    if (placeholders !== 1 || !row.prefix_template.endsWith(`${PLACEHOLDER}/`)) {
      bad('owned prefix_template must end with {community}/');
    }
  } else if (placeholders !== 0 || row.key_pattern.includes(PLACEHOLDER)) {
    bad('shared rows cannot mention {community}');
  }
  // A pattern that does not start with its own prefix could match keys in
  // another prefix, which would let one writer's shape vouch for another's.
  if (/[{}]/.test(row.prefix_template.replaceAll(PLACEHOLDER, ''))) bad('prefix_template has stray braces');
  if (!row.key_pattern.startsWith(`^${escapeRegExp(row.prefix_template)}`)) {
    bad('key_pattern does not start with its prefix_template');
  }
}

export class Taxonomy {
  private readonly rows: CompiledRow[];
  private readonly ownedRows: TaxonomyRow[];
  // Exact per-community matchers, keyed by prefix; assertOwnedKey runs once
  // per listed version so recompiling each time would dominate enumeration.
  private readonly exactMatchers = new Map<string, RegExp>();

  constructor(rows: readonly TaxonomyRow[]) {
    const names = new Set<string>();
    const prefixes = new Set<string>();
    this.rows = rows.map((row) => {
      validateRow(row);
      if (names.has(row.name)) throw new TaxonomyError('invalid_row', `duplicate taxonomy row ${row.name}`);
      if (prefixes.has(row.prefix_template)) {
        throw new TaxonomyError('invalid_row', `duplicate taxonomy prefix ${row.prefix_template}`);
      }
      names.add(row.name);
      prefixes.add(row.prefix_template);
      return { row, anyCommunity: compile(row.key_pattern.replaceAll(PLACEHOLDER, `(${UUID_SOURCE})`), row) };
    });
    this.ownedRows = rows.filter((row) => row.scope === 'owned');
    if (this.ownedRows.length === 0) throw new TaxonomyError('invalid_row', 'taxonomy has no owned rows');
  }

  /** The community's owned prefixes in byte order (the order manifests use). */
  ownedPrefixes(communityId: string): string[] {
    assertCommunityId(communityId);
    return this.ownedRows
      .map((row) => row.prefix_template.replace(PLACEHOLDER, communityId))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /**
   * Classify a key. Without a community, "owned" means owned by some
   * community (the fleet sweep); with one, it means owned by that community
   * and another community's keys are "unknown" from its point of view.
   */
  classifyKey(key: string, communityId?: string): KeyClassification {
    if (communityId !== undefined) assertCommunityId(communityId);
    for (const { row, anyCommunity } of this.rows) {
      const match = anyCommunity.exec(key);
      if (!match) continue;
      if (row.scope === 'shared') return { scope: 'shared', name: row.name, writer: row.writer };
      const owner = match[1];
      if (owner === undefined) continue;
      // Every placeholder occurrence must name the same community.
      if (match.slice(1).some((group) => group !== owner)) continue;
      if (communityId !== undefined && owner !== communityId) continue;
      return { scope: 'owned', name: row.name, writer: row.writer, community_id: owner };
    }
    return { scope: 'unknown' };
  }

  /**
   * Fail closed on a key listed under one of the community's owned prefixes
   * that no writer produces: deleting or keeping it would both be guesses.
   */
  assertOwnedKey(key: string, prefix: string, communityId: string): void {
    // Validated first: the id is substituted into a regular expression.
    assertCommunityId(communityId);
    const row = this.ownedRows.find((candidate) => candidate.prefix_template.replace(PLACEHOLDER, communityId) === prefix);
    if (row === undefined || !isOwnedPrefixShape(prefix)) {
      throw new TaxonomyError('not_an_owned_prefix', `${prefix} is not an owned prefix of community ${communityId}`, key);
    }
    if (!key.startsWith(prefix)) {
      throw new TaxonomyError('key_outside_prefix', `key ${JSON.stringify(key)} is outside prefix ${prefix}`, key);
    }
    let exact = this.exactMatchers.get(prefix);
    if (exact === undefined) {
      // Bounded: a long-running worker sees a handful of prefixes per community.
      if (this.exactMatchers.size >= 64) this.exactMatchers.clear();
      exact = compile(row.key_pattern.replaceAll(PLACEHOLDER, communityId), row);
      this.exactMatchers.set(prefix, exact);
    }
    if (!exact.test(key)) {
      throw new TaxonomyError(
        'malformed_owned_key',
        `key ${JSON.stringify(key)} under owned prefix ${prefix} matches no ${row.writer} writer shape (${row.name})`,
        key,
      );
    }
  }
}
