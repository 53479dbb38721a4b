import type { StoredChunk } from '../../indexing/doc-store.js';

/** A search hit joined with its stored chunk. */
export interface RankedChunk {
  chunk: StoredChunk;
  score: number;
  /** Fraction of query terms in the chunk's headings and body. */
  coverage: number;
  /** Set on a part of a ranked chunk's section that the ranking did not return itself ({@link withSectionParts}). */
  joined?: boolean;
  /**
   * Set on a parent section's introduction given as the context of a best section ({@link withParentIntros}): that
   * section's key. The answer shows the introduction just before the section, in page order.
   */
  introOf?: string;
}
