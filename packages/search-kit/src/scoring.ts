/** Weight of BM25 (relative to the best chunk) beside query-term coverage in a chunk's score. */
export const BM25_SHARE = 0.3;

/** At most this many index words stand in for one misspelt query word. */
export const MAX_TYPO_CANDIDATES = 8;

/**
 * Terms that are canonical integers (`404`, `2`). Their term frequency is not counted: every occurrence
 * counts as 1 (as keys of a per-chunk record, `404` would allocate a 405-slot array in Orama's index).
 */
export const NUMERIC_TERM = /^(?:0|[1-9]\d*)$/;
