// Enumerates a community's three owned prefixes (every version and delete
// marker) into the storage summary of docs/manifest-format.md, optionally
// handing each full chunk to a callback (the post-fence destructive freeze).
// Memory: one listing page + one chunk, whatever the community's size.
import type { EngineClient } from './engine.js';
import { PrefixDigest, buildStorageSummary, type ManifestChunk, type PrefixSummary, type SizedEntry, type StorageSummary } from './manifest.js';
import { Taxonomy } from './taxonomy.js';

/** Lists every version and delete marker under an owned prefix, in canonical order (S3Store). */
export interface VersionLister {
  listVersions(prefix: string): AsyncIterable<SizedEntry>;
}

export async function loadTaxonomy(engine: EngineClient): Promise<Taxonomy> {
  return new Taxonomy(await engine.storageTaxonomyRules());
}

export interface EnumerateOptions {
  chunkSize: number;
  /** Called for every chunk, in chunk-number order, before the next listing page. */
  onChunk?: (chunk: ManifestChunk) => Promise<void>;
  /** Progress: called after every entry with the running count. */
  onEntry?: (prefix: string, count: number) => void;
}

export async function enumerateOwnedStorage(
  store: VersionLister,
  taxonomy: Taxonomy,
  communityId: string,
  options: EnumerateOptions,
): Promise<StorageSummary> {
  const prefixes = taxonomy.ownedPrefixes(communityId);
  const summaries: PrefixSummary[] = [];
  let nextChunkNo = 0;
  for (const prefix of prefixes) {
    const digest = new PrefixDigest(prefix, { chunkSize: options.chunkSize, firstChunkNo: nextChunkNo });
    for await (const entry of store.listVersions(prefix)) {
      // Fail closed on a key no writer produces: neither deleting nor keeping it is safe to guess.
      taxonomy.assertOwnedKey(entry.key, prefix, communityId);
      const chunk = digest.add(entry);
      options.onEntry?.(prefix, digest.entryCount);
      if (chunk && options.onChunk) await options.onChunk(chunk);
    }
    const { chunk, summary } = digest.finish();
    if (chunk && options.onChunk) await options.onChunk(chunk);
    summaries.push(summary);
    nextChunkNo = digest.nextChunkNo;
  }
  return buildStorageSummary({ chunkSize: options.chunkSize, expectedPrefixes: prefixes, prefixes: summaries });
}
