/** Words shorter than this never match with a typo: too many short words are one edit apart. */
export const MIN_TYPO_LENGTH = 5;
/** Words at least this long may match with two edits (when the tolerance allows two). */
export const MIN_TWO_TYPO_LENGTH = 9;

/** How many edits a query word of `length` characters may have, under `tolerance`. */
export function allowedTypos(length: number, tolerance: number): number {
  if (tolerance <= 0 || length < MIN_TYPO_LENGTH) return 0;
  return Math.min(tolerance, length >= MIN_TWO_TYPO_LENGTH ? 2 : 1);
}

/**
 * Optimal string alignment distance between `a` and `b` (insertions, deletions, substitutions, and a swap
 * of two adjacent characters each count 1), or `max + 1` as soon as it is known to exceed `max`.
 * Swaps count 1 because `valdiator` for `validator` is the commonest typo there is.
 */
export function boundedEditDistance(a: string, b: string, max: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  if (m + 1 > rows[0].length) rows = makeRows(m + 1);
  // Three rolling rows of the dynamic-programming table, reused across calls (this runs per candidate word).
  let [prevPrev, prev, cur] = rows;
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= m; j++) {
      const cb = b.charCodeAt(j - 1);
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ca === cb ? 0 : 1));
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        d = Math.min(d, prevPrev[j - 2]! + 1);
      }
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    [prevPrev, prev, cur] = [prev, cur, prevPrev];
  }
  const distance = prev[m]!;
  return distance > max ? max + 1 : distance;
}

const makeRows = (size: number): [Int32Array, Int32Array, Int32Array] => [
  new Int32Array(size),
  new Int32Array(size),
  new Int32Array(size),
];
let rows = makeRows(66);

/** A word of the index that is within the allowed edits of a query word. */
export interface TypoCandidate {
  surface: string;
  term: string;
  distance: number;
}

/**
 * The words of one index as written (lowercased, not stemmed), for typo matching. Typos are matched
 * against written words, not stems: `valdiator` is one swap from `validator` but far from its stem `valid`.
 */
export class TypoVocabulary {
  private readonly termBySurface = new Map<string, string>();
  private readonly byLength = new Map<number, string[]>();

  /** Adds a word and its indexed form; short words are ignored (they never match with a typo). */
  add(surface: string, term: string): void {
    if (surface.length < MIN_TYPO_LENGTH - 1 || this.termBySurface.has(surface)) return;
    this.termBySurface.set(surface, term);
    let bucket = this.byLength.get(surface.length);
    if (bucket === undefined) {
      bucket = [];
      this.byLength.set(surface.length, bucket);
    }
    bucket.push(surface);
  }

  /** Number of distinct words. */
  get size(): number {
    return this.termBySurface.size;
  }

  /** Every word, for snapshots. */
  words(): string[] {
    return [...this.termBySurface.keys()];
  }

  /** Words within `maxDistance` edits of `surface`, closest first, at most `limit`. */
  candidates(surface: string, maxDistance: number, limit: number): TypoCandidate[] {
    const found: TypoCandidate[] = [];
    if (maxDistance <= 0) return found;
    for (let length = surface.length - maxDistance; length <= surface.length + maxDistance; length++) {
      for (const word of this.byLength.get(length) ?? []) {
        const distance = boundedEditDistance(surface, word, maxDistance);
        if (distance > 0 && distance <= maxDistance) {
          found.push({ surface: word, term: this.termBySurface.get(word)!, distance });
        }
      }
    }
    found.sort((x, y) => x.distance - y.distance);
    return found.slice(0, limit);
  }
}
