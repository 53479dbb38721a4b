import type { SearchHit } from '@pro-context/kernel';
import type { StoredChunk } from '../../indexing/doc-store.js';
import { lowerCoverage } from './terms.js';

/** A search hit joined with its stored chunk. */
export interface RankedChunk {
  chunk: StoredChunk;
  score: number;
  /** Fraction of query terms in the chunk's headings and body. */
  coverage: number;
  /** Set on a part of a ranked chunk's section that the ranking did not return itself ({@link withSectionParts}). */
  joined?: boolean;
}

/** Joins backend hits with their chunks (dropping ids the store no longer has). */
const chunkLowerTexts = new WeakMap<StoredChunk, string>();

/** {@link termCoverage} of a chunk's headings and body (their lower-cased text is kept per chunk). */
export function chunkCoverage(terms: readonly string[], chunk: StoredChunk): number {
  if (terms.length === 0) return 0;
  let lower = chunkLowerTexts.get(chunk);
  if (lower === undefined) {
    lower = `${chunk.headings.join(' ')} ${chunk.body}`.toLowerCase();
    chunkLowerTexts.set(chunk, lower);
  }
  return lowerCoverage(terms, lower);
}

export function joinHits(
  hits: readonly SearchHit[],
  chunks: Map<string, StoredChunk>,
  terms: readonly string[],
): RankedChunk[] {
  const out: RankedChunk[] = [];
  for (const hit of hits) {
    const chunk = chunks.get(hit.id);
    if (!chunk) continue;
    out.push({ chunk, score: hit.score, coverage: chunkCoverage(terms, chunk) });
  }
  return out;
}
