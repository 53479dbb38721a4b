// The types packed-index.ts (the index) and snapshot.ts (its byte layout) share.

/**
 * An inverted index in typed arrays only (no JS objects per term or per chunk), so its size is known
 * exactly, a snapshot is its buffers, and a worker thread can hand it over without copying.
 *
 * Chunks are numbered 0..chunks-1 in the order they were indexed. Terms are sorted (UTF-16 code unit
 * order) and numbered by rank. Postings are grouped by field, then by term, each list in chunk order.
 */
export interface PackedIndexData {
  chunks: number;
  /** UTF-8 of the sorted terms, back to back; term t is `termBytes[termStarts[t]..termStarts[t+1]]`. */
  termBytes: Uint8Array;
  termStarts: Uint32Array;
  /**
   * Postings of term t in field f: `postingDocs[postingStarts[f*(T+1)+t] .. postingStarts[f*(T+1)+t+1]]`
   * (T = number of terms); field blocks follow each other.
   */
  postingStarts: Uint32Array;
  postingDocs: Uint32Array;
  /** Term frequency per posting; 255 means "look it up in `tfOverflow`". */
  postingTfs: Uint8Array;
  /** Pairs (posting index, term frequency) for frequencies of 255 and more, by posting index. */
  tfOverflow: Uint32Array;
  /** Field length (terms) of chunk d in field f at `f*chunks+d`. */
  fieldLengths: Uint32Array;
  /** Average field length per field (as Orama computes it: a running average, in insertion order). */
  avgFieldLengths: Float64Array;
  /**
   * The chunk ids, front-coded (`IdList`, packed-index.ts): entry d (`idBytes[idStarts[d]..idStarts[d+1]]`) is a varint, the
   * UTF-8 bytes id d shares with id d-1 (0 every `ID_RESTART` ids), then the rest of its UTF-8 bytes.
   */
  idBytes: Uint8Array;
  idStarts: Uint32Array;
  /** The written words for typo matching (4 characters or more), in first-seen order, `\n`-separated. */
  surfaceBytes: Uint8Array;
  /** The term (rank) of each written word. */
  surfaceTerms: Uint32Array;
  /**
   * The snapshot these arrays are views of, when the index was laid out as one (a build's, or a restored
   * snapshot's copy): the backend's `snapshot()` hands it out without copying. Its memory is the index's.
   */
  snapshot?: Uint8Array;
}
