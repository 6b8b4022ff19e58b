import { readFileSync } from 'node:fs';
import t from 'tap';
import {
  assertCommunityId,
  isOwnedPrefixShape,
  OWNED_PREFIX_ROOTS,
  Taxonomy,
  TaxonomyError,
  type TaxonomyRow,
} from '../src/taxonomy.js';

// Copied from the registry INSERT in
// db/migrations/committed/000002-control-plane-tables-and-registries.sql.
const ROWS = JSON.parse(readFileSync(new URL('./fixtures/taxonomy.json', import.meta.url), 'utf8')) as TaxonomyRow[];
const taxonomy = new Taxonomy(ROWS);

const C = '0b7e6a4e-3f1d-4c5b-9a2e-8d7c6b5a4f3e';
const OTHER = 'f0e1d2c3-b4a5-4697-8887-a6b5c4d3e2f1';
const HEX = 'a'.repeat(64);

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof TaxonomyError) return error.code;
    throw error;
  }
  return undefined;
}

t.test('ownedPrefixes: the three owned prefixes in byte order', async (t) => {
  t.same(taxonomy.ownedPrefixes(C), [`_meta/${C}/`, `_uploads/${C}/`, `repos/${C}/`]);
  t.same(
    new Taxonomy([...ROWS].reverse()).ownedPrefixes(C),
    [`_meta/${C}/`, `_uploads/${C}/`, `repos/${C}/`],
    'independent of row order',
  );
  t.same(
    taxonomy.ownedPrefixes(C).map((p) => p.replace(`${C}/`, '')),
    [...OWNED_PREFIX_ROOTS],
    'registry owned roots equal the adapter guard roots',
  );
  t.equal(code(() => taxonomy.ownedPrefixes(C.toUpperCase())), 'invalid_community_id');
});

t.test('classifyKey', async (t) => {
  const cases: Array<[string, string | undefined, string, string?]> = [
    [`_meta/${C}/${HEX}.json`, undefined, 'owned', 'media_sidecar'],
    [`_uploads/${C}/${HEX}.json`, C, 'owned', 'upload_attribution'],
    [`repos/${C}/my-repo_1.x.json`, C, 'owned', 'git_repo_pointer'],
    [`repos/${C}/${'r'.repeat(100)}.json`, C, 'owned', 'git_repo_pointer'],
    [`repos/${C}/${'r'.repeat(101)}.json`, C, 'unknown'],
    [`repos/${C}/-lead.json`, C, 'unknown'],
    [`repos/${C}/a/b.json`, C, 'unknown'],
    [`_meta/${C}/${HEX.toUpperCase()}.json`, C, 'unknown'],
    [`_meta/${C}/${HEX}.json.bak`, C, 'unknown'],
    [`_meta/${C}/${HEX}.json\n`, C, 'unknown'],
    [`_meta/${C.toUpperCase()}/${HEX}.json`, undefined, 'unknown'],
    [`_meta/${OTHER}/${HEX}.json`, undefined, 'owned', 'media_sidecar'],
    [`_meta/${OTHER}/${HEX}.json`, C, 'unknown'],
    [`blobs/${HEX}`, C, 'shared', 'blob'],
    [`thumbs/${HEX}`, undefined, 'shared', 'thumbnail'],
    [`manifests/${HEX}`, undefined, 'shared', 'git_manifest'],
    [`packs/${HEX}.pack`, undefined, 'shared', 'git_pack'],
    [`idx/${HEX}.idx`, undefined, 'shared', 'git_pack_index'],
    [`blobs/${HEX}.json`, undefined, 'unknown'],
    [`xblobs/${HEX}`, undefined, 'unknown'],
    ['random/key', undefined, 'unknown'],
  ];
  for (const [key, community, scope, name] of cases) {
    const result = taxonomy.classifyKey(key, community);
    t.equal(result.scope, scope, `${JSON.stringify(key)} (${community ? 'for C' : 'any'}) is ${scope}`);
    if (name !== undefined) t.equal('name' in result ? result.name : undefined, name);
  }
  const owned = taxonomy.classifyKey(`_meta/${OTHER}/${HEX}.json`);
  t.same(owned, { scope: 'owned', name: 'media_sidecar', writer: 'media', community_id: OTHER });
});

t.test('assertOwnedKey fails closed on malformed or foreign keys', async (t) => {
  const meta = `_meta/${C}/`;
  t.doesNotThrow(() => taxonomy.assertOwnedKey(`${meta}${HEX}.json`, meta, C));
  t.doesNotThrow(() => taxonomy.assertOwnedKey(`repos/${C}/repo.json`, `repos/${C}/`, C));
  t.equal(code(() => taxonomy.assertOwnedKey(`${meta}junk`, meta, C)), 'malformed_owned_key');
  t.equal(code(() => taxonomy.assertOwnedKey(`${meta}${HEX}.json`, `repos/${C}/`, C)), 'key_outside_prefix');
  t.equal(code(() => taxonomy.assertOwnedKey(`blobs/${HEX}`, 'blobs/', C)), 'not_an_owned_prefix');
  t.equal(code(() => taxonomy.assertOwnedKey(`_meta/${OTHER}/${HEX}.json`, `_meta/${OTHER}/`, C)), 'not_an_owned_prefix');
  t.equal(code(() => taxonomy.assertOwnedKey(`${meta}${HEX}.json`, meta, '.*')), 'invalid_community_id');
  try {
    taxonomy.assertOwnedKey(`${meta}junk`, meta, C);
  } catch (error) {
    t.equal((error as TaxonomyError).key, `${meta}junk`, 'error carries the key');
  }
});

t.test('rows are validated', async (t) => {
  const base = ROWS[0] as TaxonomyRow;
  const invalid: Array<[string, Partial<TaxonomyRow>]> = [
    ['unanchored pattern', { key_pattern: `_meta/{community}/[0-9a-f]{64}\\.json` }],
    ['pattern outside its prefix', { key_pattern: '^blobs/[0-9a-f]{64}$' }],
    ['owned prefix without placeholder', { prefix_template: '_meta/' }],
    ['bad scope', { scope: 'mine' as never }],
    ['uncompilable pattern', { key_pattern: '^_meta/{community}/[$' }],
  ];
  for (const [what, change] of invalid) {
    t.equal(code(() => new Taxonomy([{ ...base, ...change }, ...ROWS.slice(1)])), 'invalid_row', what);
  }
  t.equal(code(() => new Taxonomy([...ROWS, { ...base }])), 'invalid_row', 'duplicate row');
  t.equal(code(() => new Taxonomy(ROWS.filter((r) => r.scope === 'shared'))), 'invalid_row', 'no owned rows');
});

t.test('community id and prefix shape guards', async (t) => {
  t.equal(assertCommunityId(C), C);
  for (const bad of [C.toUpperCase(), `${C} `, '*', '', C.replaceAll('-', '')]) {
    t.equal(code(() => assertCommunityId(bad)), 'invalid_community_id', JSON.stringify(bad));
  }
  for (const prefix of taxonomy.ownedPrefixes(C)) t.ok(isOwnedPrefixShape(prefix), prefix);
  for (const prefix of ['', '_meta/', `_meta/${C}`, `blobs/${C}/`, `_meta/${C}/x/`, `_meta/${C.toUpperCase()}/`]) {
    t.notOk(isOwnedPrefixShape(prefix), JSON.stringify(prefix));
  }
});
