import {
  allowedTypos,
  BM25_SHARE,
  boundedEditDistance,
  type CodeTokenizer,
  createCodeTokenizer,
  MAX_TYPO_CANDIDATES,
  MIN_TYPO_LENGTH,
  NUMERIC_TERM,
  type SearchLanguage,
  SYNONYM_WEIGHT,
} from '@pro-context/search-kit';
import { packedArrays, snapshotLayout } from './snapshot.js';
import type { PackedIndexData } from './types.js';

export type { PackedIndexData } from './types.js';

/** The indexed fields of a chunk, in the order they are indexed (the order `orama-search` uses). */
export const chunkFields = ['title', 'section', 'headings', 'body'] as const;

/** One of {@link chunkFields}. */
export type ChunkField = (typeof chunkFields)[number];

const FIELDS = chunkFields.length;

/** The text of one chunk as indexed: `id` plus one string per field. */
export interface PackedChunk {
  id: string;
  title: string;
  /** The chunk's own (deepest) heading. */
  section: string;
  /** The headings between the page title and the chunk's own heading. */
  headings: string;
  body: string;
}

export { packedArrays };

/** Bytes held by the typed arrays of `data`. */
export function packedByteSize(data: PackedIndexData): number {
  let bytes = 0;
  for (const name of packedArrays) bytes += data[name].byteLength;
  return bytes;
}

/** The buffers of `data`, for a worker's transfer list. */
export function packedBuffers(data: PackedIndexData): ArrayBuffer[] {
  return [...new Set(packedArrays.map((name) => data[name].buffer as ArrayBuffer))];
}

const TF_OVERFLOW = 255;

/**
 * Distinct words whose identifier parts' stems the builder's tokenizer keeps (its `cacheWords`). The builder
 * caches the analysis of each word itself ({@link StringTable}), so the tokenizer's word cache stays empty and its
 * cache of stems is only asked when a word is new.
 */
const BUILDER_STEM_WORDS = 50_000;

/** Postings per slab of term frequencies of a {@link PostingLog} (64 KB). */
const SLAB_BITS = 16;
const SLAB = 1 << SLAB_BITS;
const SLAB_MASK = SLAB - 1;
/** Bytes per slab of a {@link PostingLog}'s term numbers (256 KB). */
const TERM_SLAB = 1 << 18;

/**
 * The postings of one field while building, in the order they were added (chunk by chunk, so a posting's chunk
 * is not stored), in fixed-size slabs: growing never copies, and {@link PackedIndexBuilder.finish} drops each
 * slab once its postings are in the index. Term numbers are varints (7 bits a byte, low bits first: terms are
 * numbered as first seen, so the frequent ones are small: 2.2 bytes a posting for the synthetic 68 MB corpus,
 * against 4), only ever read in order; term frequencies are bytes, by posting index; from 255 on they are counted
 * in `overflow` (by posting index), as in the finished index.
 */
class PostingLog {
  readonly termSlabs: (Uint8Array | undefined)[] = [];
  /** Bytes used in each of {@link termSlabs} but the last (the last: `used`). */
  readonly termSlabEnds: number[] = [];
  readonly tfs: (Uint8Array | undefined)[] = [];
  readonly overflow = new Map<number, number>();
  /** The term of each posting in {@link overflow}. */
  readonly overflowTerms = new Map<number, number>();
  length = 0;
  used = 0;
  private lastTerms = new Uint8Array(0);
  private lastTfs = new Uint8Array(0);

  /** Adds a posting of `term` with frequency 1; returns its index. */
  push(term: number): number {
    const i = this.length++;
    const at = i & SLAB_MASK;
    if (at === 0) {
      this.lastTfs = new Uint8Array(SLAB);
      this.tfs.push(this.lastTfs);
    }
    this.lastTfs[at] = 1;
    let used = this.used;
    let bytes = this.lastTerms;
    if (used + 5 > bytes.length) {
      if (this.termSlabs.length > 0) this.termSlabEnds.push(used);
      bytes = new Uint8Array(TERM_SLAB);
      this.lastTerms = bytes;
      this.termSlabs.push(bytes);
      used = 0;
    }
    let rest = term;
    while (rest >= 0x80) {
      bytes[used++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    bytes[used++] = rest;
    this.used = used;
    return i;
  }

  /** Bytes used in term slab `s`. */
  termSlabEnd(s: number): number {
    return s < this.termSlabEnds.length ? this.termSlabEnds[s]! : this.used;
  }

  /** One more occurrence of `term`, the term of posting `i`. */
  increment(i: number, term: number): void {
    const slab = this.tfs[i >>> SLAB_BITS]!;
    const at = i & SLAB_MASK;
    const tf = slab[at]!;
    if (tf < TF_OVERFLOW - 1) {
      slab[at] = tf + 1;
    } else if (tf === TF_OVERFLOW - 1) {
      slab[at] = TF_OVERFLOW;
      this.overflow.set(i, TF_OVERFLOW);
      this.overflowTerms.set(i, term);
    } else {
      this.overflow.set(i, this.overflow.get(i)! + 1);
    }
  }
}

/**
 * An array of at least `capacity` elements holding `array`'s (the same one if it is large enough); grows by half.
 */
function ensure<T extends Int32Array<ArrayBuffer> | Uint8Array<ArrayBuffer>>(array: T, capacity: number): T {
  if (capacity <= array.length) return array;
  const next = new (array.constructor as new (n: number) => T)(Math.max(capacity, Math.ceil(array.length * 1.5)));
  next.set(array);
  return next;
}

/** Every this many ids, one is written whole (shares nothing with the one before): {@link idAt} reads at most this many. */
export const ID_RESTART = 16;

/**
 * Chunk ids as they are added, front-coded: consecutive chunks are mostly of one page, whose URL begins their ids,
 * so each id is written as the bytes it shares with the one before (a varint) and the rest (the benchmark's 68 MB
 * corpus: 76,000 ids, 5.6 MB whole, 1.7 MB so; as strings in the builder's heap they took ~7 MB).
 */
class IdList {
  bytes = new Uint8Array(1 << 16);
  used = 0;
  starts = new Int32Array(1024);
  count = 0;
  private last = new Uint8Array(256);
  private lastLength = 0;
  private readonly encoder = new TextEncoder();
  private scratch = new Uint8Array(256);

  add(id: string): void {
    // (UTF-8: at most 3 bytes a UTF-16 unit)
    if (this.scratch.length < 3 * id.length) this.scratch = new Uint8Array(3 * id.length);
    const length = this.encoder.encodeInto(id, this.scratch).written;
    const utf8 = this.scratch;
    let shared = 0;
    if (this.count % ID_RESTART !== 0) {
      const most = Math.min(length, this.lastLength);
      while (shared < most && utf8[shared] === this.last[shared]) shared++;
    }
    this.starts = ensure(this.starts, this.count + 2);
    this.starts[this.count] = this.used;
    this.bytes = ensure(this.bytes, this.used + 5 + length - shared);
    let v = shared;
    while (v >= 0x80) {
      this.bytes[this.used++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.bytes[this.used++] = v;
    this.bytes.set(utf8.subarray(shared, length), this.used);
    this.used += length - shared;
    this.count++;
    this.starts[this.count] = this.used;
    // the next id is compared with this one (and encoded into the last one's bytes, grown above if need be)
    this.scratch = this.last;
    this.last = utf8;
    this.lastLength = length;
  }
}

/**
 * Id `doc` of front-coded `bytes`/`starts` ({@link IdList}), assembled in `scratch` (grown if need be, returned
 * with the id so the caller can keep it); a damaged entry gives a wrong id, never a read out of bounds.
 */
function idAt(bytes: Uint8Array, starts: Uint32Array, doc: number, scratch: Buffer): { id: string; scratch: Buffer } {
  let buffer = scratch;
  let length = 0;
  for (let k = doc - (doc % ID_RESTART); k <= doc; k++) {
    let p = starts[k]!;
    const end = starts[k + 1]!;
    let shared = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[p++] ?? 0;
      shared |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte >= 0x80 && p < end);
    length = Math.min(shared, length);
    const rest = Math.max(0, end - p);
    if (buffer.length < length + rest) {
      const grown = Buffer.allocUnsafe(2 * (length + rest));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    buffer.set(bytes.subarray(p, p + rest), length);
    length += rest;
  }
  return { id: buffer.toString('utf8', 0, length), scratch: buffer };
}

/** Every id of front-coded `bytes`/`starts`, in order. */
function decodeIds(bytes: Uint8Array, starts: Uint32Array): string[] {
  const out = new Array<string>(starts.length - 1);
  let scratch: Buffer = Buffer.allocUnsafe(256);
  for (let d = 0; d < out.length; d++) ({ id: out[d]!, scratch } = idAt(bytes, starts, d, scratch));
  return out;
}

/** FNV-1a of `s`'s UTF-16 units (the tokenizer's hash of a word, see `CodeTokenizer.indexWords`). */
function hashString(s: string): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = 0; i < s.length; i++) hash = Math.imul(hash ^ s.charCodeAt(i), 0x01000193);
  return hash;
}

/**
 * `hash` with its high bits mixed into its low ones (the finalizer of MurmurHash3): the slot of a string is taken
 * from the low bits, and FNV-1a's vary too little there between words that differ only in their last characters
 * (`validatoraa`, `validatorbb`), which made long runs of full slots.
 */
function spread(hash: number): number {
  let h = hash ^ (hash >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * Distinct strings numbered 0, 1, ... as first added, in typed arrays (no JS object per string, which a build
 * would otherwise keep by the hundred thousand until it ends: more heap, and more for the garbage collector to
 * walk): their characters back to back, one byte each when they are all below 256 (nearly every word of
 * documentation), else two (UTF-16, low byte first); and an open-addressing table on their hash: a slot holds the
 * hash and the string's number + 1 side by side (negated for a two-byte string), so a probe reads one cache line
 * before it compares characters.
 */
class StringTable {
  /** Characters of string n: `chars[charStarts[n] .. charStarts[n+1]]`. */
  private chars = new Uint8Array(1 << 14);
  private charStarts = new Int32Array(1024);
  /** Per string, 1 if its characters take two bytes each (for {@link stringAt}). */
  private wide = new Uint8Array(1024);
  /** Per slot: the hash, then the string's number + 1, negated for a two-byte string (0: empty). */
  private slots = new Int32Array(2 << 12);
  count = 0;
  /**
   * The word table's (the builder's word cache: the analysis of every distinct word seen, as term numbers; the
   * tokenizer's own cache held an array, an object and two strings per word, 84 MB of heap for the synthetic 68 MB
   * corpus): the term numbers of string w are `termIds[idStarts[w] .. idStarts[w+1]]`. In this class rather than a
   * subclass, so that every table has the same shape and {@link find}, inlined where the words are looked up, reads
   * its fields without checking which kind of table it has.
   */
  termIds = new Int32Array(16);
  idStarts = new Int32Array(16);

  /**
   * @param maxLoad the share of slots in use past which the table doubles: more memory, fewer probes (what the
   *   word table, asked at every word of every chunk, wants), or the reverse
   */
  constructor(private readonly maxLoad = 0.5) {}

  /** The number of `text[start..end)` (whose hash is `hash`), or -1. */
  find(text: string, start: number, end: number, hash: number): number {
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    const length = end - start;
    for (let at = spread(hash) & mask; ; at = (at + 1) & mask) {
      const entry = slots[2 * at + 1]!;
      if (entry === 0) return -1;
      if (slots[2 * at] !== hash) continue;
      if (entry > 0) {
        const from = this.charStarts[entry - 1]!;
        if (this.charStarts[entry]! - from !== length) continue;
        const chars = this.chars;
        let k = 0;
        while (k < length && chars[from + k] === text.charCodeAt(start + k)) k++;
        if (k === length) return entry - 1;
      } else if (this.wideEquals(-entry - 1, text, start, end)) {
        return -entry - 1;
      }
    }
  }

  /** Whether the two-byte string `n` is `text[start..end)` (apart from {@link find}, which stays small). */
  private wideEquals(n: number, text: string, start: number, end: number): boolean {
    const from = this.charStarts[n]!;
    if (this.charStarts[n + 1]! - from !== 2 * (end - start)) return false;
    const chars = this.chars;
    for (let k = 0; k < end - start; k++) {
      if ((chars[from + 2 * k]! | (chars[from + 2 * k + 1]! << 8)) !== text.charCodeAt(start + k)) return false;
    }
    return true;
  }

  /** Adds `text[start..end)` (not present) with its hash; returns its number. */
  add(text: string, start: number, end: number, hash: number): number {
    const n = this.count++;
    let wide = false;
    for (let k = start; k < end && !wide; k++) wide = text.charCodeAt(k) > 0xff;
    if (n + 1 > (this.slots.length >> 1) * this.maxLoad) this.resize(this.slots.length * 2);
    const mask = (this.slots.length >> 1) - 1;
    let at = spread(hash) & mask;
    while (this.slots[2 * at + 1] !== 0) at = (at + 1) & mask;
    this.slots[2 * at] = hash;
    this.slots[2 * at + 1] = wide ? -(n + 1) : n + 1;
    this.charStarts = ensure(this.charStarts, n + 2);
    this.wide = ensure(this.wide, n + 1);
    const from = this.charStarts[n]!;
    const to = from + (wide ? 2 : 1) * (end - start);
    this.chars = ensure(this.chars, to);
    const chars = this.chars;
    if (wide) {
      this.wide[n] = 1;
      for (let k = start; k < end; k++) {
        const unit = text.charCodeAt(k);
        chars[from + 2 * (k - start)] = unit & 0xff;
        chars[from + 2 * (k - start) + 1] = unit >> 8;
      }
    } else {
      for (let k = start; k < end; k++) chars[from + k - start] = text.charCodeAt(k);
    }
    this.charStarts[n + 1] = to;
    return n;
  }

  /** Adds the word `text[start..end)` (not present) with its hash and term numbers; returns its number. */
  addWord(text: string, start: number, end: number, hash: number, ids: readonly number[]): number {
    const w = this.add(text, start, end, hash);
    this.idStarts = ensure(this.idStarts, w + 2);
    const idFrom = this.idStarts[w]!;
    this.termIds = ensure(this.termIds, idFrom + ids.length);
    for (let k = 0; k < ids.length; k++) this.termIds[idFrom + k] = ids[k]!;
    this.idStarts[w + 1] = idFrom + ids.length;
    return w;
  }

  /** The number of the string `s`, added if it is new. */
  intern(s: string): number {
    const hash = hashString(s);
    const n = this.find(s, 0, s.length, hash);
    return n >= 0 ? n : this.add(s, 0, s.length, hash);
  }

  /** String `n`. */
  stringAt(n: number): string {
    const bytes = this.chars.subarray(this.charStarts[n]!, this.charStarts[n + 1]!);
    if (this.wide[n] === 1) {
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf16le');
    }
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  }

  /**
   * All the strings, in number order: the one-byte ones cut from one string of all the characters (a decoding call
   * per string cost more than the rest of a large build's end), the others decoded one by one.
   */
  strings(): string[] {
    const out = new Array<string>(this.count);
    const used = this.charStarts[this.count]!;
    const all = Buffer.from(this.chars.buffer, this.chars.byteOffset, used).toString('latin1');
    for (let n = 0; n < this.count; n++) {
      out[n] = this.wide[n] === 1 ? this.stringAt(n) : all.slice(this.charStarts[n]!, this.charStarts[n + 1]!);
    }
    return out;
  }

  private resize(length: number): void {
    const old = this.slots;
    const slots = new Int32Array(length);
    const mask = (length >> 1) - 1;
    for (let i = 0; i < old.length; i += 2) {
      if (old[i + 1] === 0) continue;
      let at = spread(old[i]!) & mask;
      while (slots[2 * at + 1] !== 0) at = (at + 1) & mask;
      slots[2 * at] = old[i]!;
      slots[2 * at + 1] = old[i + 1]!;
    }
    this.slots = slots;
  }
}

/** A copy of `s` that does not point into the string it was cut from (a chunk's text, kept alive otherwise). */
const detach = (s: string): string => ` ${s}`.slice(1);

/**
 * A growable list of non-negative integers below 2^31 (term and chunk numbers), in an Int32Array:
 * V8 keeps what it loads from one as a small integer, where a Uint32Array's values could need a float.
 */
class U32List {
  array = new Int32Array(1024);
  length = 0;
  push(value: number): void {
    if (this.length === this.array.length) this.array = ensure(this.array, this.length * 2);
    this.array[this.length++] = value;
  }
}

/**
 * Builds a {@link PackedIndexData} chunk by chunk: the same analysis (the tokenizer's words and terms) and the
 * same statistics as `orama-search`'s index, so both rank identically.
 */
export class PackedIndexBuilder {
  /** The terms, numbered as first seen. */
  private terms = new StringTable(0.75);
  private words: StringTable | undefined = new StringTable();
  // per term: the (chunk, field) it was last seen in, and where its posting for it is
  private stamps = new Int32Array(1024).fill(-1);
  private slots = new Int32Array(1024);
  private readonly logs: PostingLog[] = [];
  /** Per chunk and field (`doc*FIELDS+f`), the first posting of that chunk in that field's log. */
  private firstPostings = new Int32Array(FIELDS * 1024);
  private lengths = new Int32Array(FIELDS * 1024);
  private readonly averages = new Float64Array(FIELDS);
  private readonly ids = new IdList();
  /** The written words for typo matching, in first-seen order. */
  private surfaces = new StringTable(0.75);
  private readonly surfaceTermIds = new U32List();
  private readonly tokenizer: CodeTokenizer;
  private readonly visitWord: (text: string, start: number, end: number, hash: number) => number;
  private stamp = 0;
  private log: PostingLog;

  /** A builder with a tokenizer of its own (for its cache of stems). */
  constructor(language: SearchLanguage = 'english') {
    this.tokenizer = createCodeTokenizer(language, { cacheWords: BUILDER_STEM_WORDS });
    for (let f = 0; f < FIELDS; f++) this.logs.push(new PostingLog());
    this.log = this.logs[0]!;
    this.visitWord = (text, start, end, hash) => {
      const words = this.words!;
      let w = words.find(text, start, end, hash);
      if (w < 0) w = this.learn(text, start, end, hash);
      const from = words.idStarts[w]!;
      const to = words.idStarts[w + 1]!;
      const termIds = words.termIds;
      const log = this.log;
      for (let k = from; k < to; k++) {
        const id = termIds[k]!;
        if (this.stamps[id] !== this.stamp) {
          this.stamps[id] = this.stamp;
          this.slots[id] = log.push(id);
        } else {
          log.increment(this.slots[id]!, id);
        }
      }
      return to - from;
    };
  }

  /** Analyses a word seen for the first time: numbers its terms, notes its written forms for typo matching. */
  private learn(text: string, start: number, end: number, hash: number): number {
    const ids: number[] = [];
    for (const { term, surface } of this.tokenizer.analyzeWord(detach(text.slice(start, end)))) {
      const id = this.termId(term);
      ids.push(id);
      // the typo vocabulary ignores shorter words (TypoVocabulary.add)
      if (surface.length >= MIN_TYPO_LENGTH - 1) {
        const known = this.surfaces.count;
        if (this.surfaces.intern(surface) === known) this.surfaceTermIds.push(id);
      }
    }
    return this.words!.addWord(text, start, end, hash, ids);
  }

  private termId(term: string): number {
    const known = this.terms.count;
    const id = this.terms.intern(term);
    if (id === known) {
      if (id === this.stamps.length) {
        const stamps = new Int32Array(id * 2).fill(-1);
        stamps.set(this.stamps);
        this.stamps = stamps;
        this.slots = ensure(this.slots, id * 2);
      }
    }
    return id;
  }

  /** Number of chunks added. */
  get size(): number {
    return this.ids.count;
  }

  /** Adds one chunk (its fields are indexed in {@link chunkFields} order, as Orama inserts them). */
  add(chunk: PackedChunk): void {
    const doc = this.ids.count;
    this.ids.add(chunk.id);
    this.lengths = ensure(this.lengths, (doc + 1) * FIELDS);
    this.firstPostings = ensure(this.firstPostings, (doc + 1) * FIELDS);
    const docsCount = doc + 1;
    for (let f = 0; f < FIELDS; f++) {
      this.log = this.logs[f]!;
      this.stamp = doc * FIELDS + f;
      this.firstPostings[doc * FIELDS + f] = this.log.length;
      const length = this.tokenizer.indexWords(chunk[chunkFields[f]!], this.visitWord);
      // Orama's running average, operation for operation, so scores match to the last bit
      this.averages[f] = ((this.averages[f] ?? 0) * (docsCount - 1) + length) / docsCount;
      this.lengths[doc * FIELDS + f] = length;
    }
  }

  /**
   * The finished index. The builder must not be used afterwards. Its word cache and term map go first; each
   * slab of postings goes as soon as its postings are in the index's arrays.
   */
  finish(): PackedIndexData {
    this.words = undefined;
    this.tokenizer.releaseCache();
    const chunks = this.ids.count;
    const strings = this.terms.strings();
    const termCount = strings.length;
    const order = sortedOrder(strings);
    const sorted = new Array<string>(termCount);
    const rank = new Uint32Array(termCount);
    for (let r = 0; r < termCount; r++) {
      sorted[r] = strings[order[r]!]!;
      rank[order[r]!] = r;
    }
    this.terms = new StringTable();
    this.stamps = new Int32Array(0);
    this.slots = new Int32Array(0);
    const numeric = new Uint8Array(termCount);
    for (let r = 0; r < termCount; r++) if (NUMERIC_TERM.test(sorted[r]!)) numeric[r] = 1;

    let postings = 0;
    let overflows = 0;
    for (const log of this.logs) {
      postings += log.length;
      // Orama's index does not count frequencies of numeric terms: each counts once, so none overflows
      for (const term of log.overflowTerms.values()) if (numeric[rank[term]!] !== 1) overflows++;
    }
    // The index is laid out as its snapshot: one buffer, handed to the main thread and persisted without a copy.
    const termStarts = stringStarts(sorted);
    const surfaceCount = this.surfaces.count;
    const surfaces = this.surfaces.strings().join('\n');
    this.surfaces = new StringTable();
    const lengths: Record<(typeof packedArrays)[number], number> = {
      termBytes: termStarts[termCount]!,
      termStarts: termStarts.byteLength,
      postingStarts: FIELDS * (termCount + 1) * 4,
      postingDocs: postings * 4,
      postingTfs: postings,
      tfOverflow: overflows * 2 * 4,
      fieldLengths: FIELDS * chunks * 4,
      avgFieldLengths: FIELDS * 8,
      idBytes: this.ids.used,
      idStarts: 4 * (chunks + 1),
      surfaceBytes: Buffer.byteLength(surfaces, 'utf8'),
      surfaceTerms: surfaceCount * 4,
    };
    const { snapshot, arrays } = snapshotLayout(
      packedArrays.map((name) => lengths[name]),
      chunks,
      this.tokenizer.fingerprint,
    );
    const { postingStarts, postingDocs, postingTfs, tfOverflow } = arrays;
    let overflowAt = 0;
    const counts = new Uint32Array(termCount + 1);
    let base = 0;
    for (let f = 0; f < FIELDS; f++) {
      const log = this.logs[f]!;
      const slabs = log.termSlabs.length;
      const offset = f * (termCount + 1);
      // counting sort by term rank; stable, so each list stays in chunk order
      counts.fill(0);
      for (let s = 0; s < slabs; s++) {
        const bytes = log.termSlabs[s]!;
        const end = log.termSlabEnd(s);
        for (let p = 0; p < end; ) {
          let term = 0;
          let shift = 0;
          let byte: number;
          do {
            byte = bytes[p++]!;
            term |= (byte & 0x7f) << shift;
            shift += 7;
          } while (byte >= 0x80);
          counts[rank[term]! + 1]! += 1;
        }
      }
      postingStarts[offset] = base;
      for (let t = 0; t < termCount; t++) postingStarts[offset + t + 1] = postingStarts[offset + t]! + counts[t + 1]!;
      const next = postingStarts.slice(offset, offset + termCount);
      const fieldOverflow: [number, number][] = [];
      const firstPostings = this.firstPostings;
      // the chunk of posting i: the last d whose first posting is at or before i
      let d = 0;
      let nextFirst = chunks > 1 ? firstPostings[FIELDS + f]! : log.length;
      let i = 0;
      for (let s = 0; s < slabs; s++) {
        const bytes = log.termSlabs[s]!;
        const end = log.termSlabEnd(s);
        for (let p = 0; p < end; i++) {
          let term = 0;
          let shift = 0;
          let byte: number;
          do {
            byte = bytes[p++]!;
            term |= (byte & 0x7f) << shift;
            shift += 7;
          } while (byte >= 0x80);
          while (i >= nextFirst) {
            d++;
            nextFirst = d + 1 < chunks ? firstPostings[(d + 1) * FIELDS + f]! : log.length;
          }
          const t = rank[term]!;
          const at = next[t]!;
          next[t] = at + 1;
          postingDocs[at] = d;
          const raw = log.tfs[i >>> SLAB_BITS]![i & SLAB_MASK]!;
          if (numeric[t] === 1) {
            postingTfs[at] = 1;
          } else if (raw === TF_OVERFLOW) {
            postingTfs[at] = TF_OVERFLOW;
            fieldOverflow.push([at, log.overflow.get(i)!]);
          } else {
            postingTfs[at] = raw;
          }
        }
        // this slab's postings are in the index: its memory can go (and that of the frequencies before them)
        log.termSlabs[s] = undefined;
        for (let k = (i >>> SLAB_BITS) - 1; k >= 0 && log.tfs[k] !== undefined; k--) log.tfs[k] = undefined;
      }
      log.tfs.length = 0;
      fieldOverflow.sort((a, b) => a[0] - b[0]);
      for (const [at, tf] of fieldOverflow) {
        tfOverflow[overflowAt++] = at;
        tfOverflow[overflowAt++] = tf;
      }
      base += log.length;
    }

    const { fieldLengths } = arrays;
    for (let d = 0; d < chunks; d++) {
      for (let f = 0; f < FIELDS; f++) fieldLengths[f * chunks + d] = this.lengths[d * FIELDS + f]!;
    }
    arrays.avgFieldLengths.set(this.averages);
    arrays.termStarts.set(termStarts);
    encodeInto(sorted, termStarts, arrays.termBytes);
    arrays.idStarts.set(this.ids.starts.subarray(0, chunks + 1));
    arrays.idBytes.set(this.ids.bytes.subarray(0, this.ids.used));
    new TextEncoder().encodeInto(surfaces, arrays.surfaceBytes);
    const { surfaceTerms } = arrays;
    for (let i = 0; i < surfaceTerms.length; i++) surfaceTerms[i] = rank[this.surfaceTermIds.array[i]!]!;
    return { chunks, ...arrays, snapshot };
  }
}

/** Where each of `strings` starts in their UTF-8 back to back (and the end, last). */
/** Below this many strings, {@link sortedOrder} sorts a range by insertion. */
const INSERTION_SORT_BELOW = 12;

/**
 * The numbers of `strings` in the order `sort()` puts them (by UTF-16 code units), by multikey quicksort
 * (Bentley and Sedgewick): the strings are split three ways on one unit at a time, so a shared prefix is read once
 * rather than at every comparison, and no comparator is called through `Array.prototype.sort`. A large build's
 * 130,000 terms: ~60 ms instead of ~150 ms.
 */
export function sortedOrder(strings: readonly string[]): Uint32Array {
  const count = strings.length;
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  /** Unit `d` of string `n`, -1 past its end. */
  const unit = (n: number, d: number): number => {
    const s = strings[n]!;
    return d < s.length ? s.charCodeAt(d) : -1;
  };
  // ranges still to sort: from, to, and the depth (units already known equal within the range)
  const pending: number[] = [0, count, 0];
  while (pending.length > 0) {
    let depth = pending.pop()!;
    let to = pending.pop()!;
    let from = pending.pop()!;
    while (to - from > 1) {
      if (to - from < INSERTION_SORT_BELOW) {
        for (let i = from + 1; i < to; i++) {
          const n = order[i]!;
          const s = strings[n]!;
          let j = i - 1;
          while (j >= from && strings[order[j]!]! > s) {
            order[j + 1] = order[j]!;
            j--;
          }
          order[j + 1] = n;
        }
        break;
      }
      const pivot = unit(order[(from + to) >>> 1]!, depth);
      // [from, lt) below the pivot's unit, [lt, gt) equal to it, [gt, to) above
      let lt = from;
      let gt = to;
      let i = from;
      while (i < gt) {
        const n = order[i]!;
        const c = unit(n, depth);
        if (c < pivot) {
          order[i++] = order[lt]!;
          order[lt++] = n;
        } else if (c > pivot) {
          order[i] = order[--gt]!;
          order[gt] = n;
        } else {
          i++;
        }
      }
      pending.push(from, lt, depth, gt, to, depth);
      // the equal range goes on with the next unit, unless its strings all ended here (they are equal)
      if (pivot < 0) break;
      from = lt;
      to = gt;
      depth++;
    }
  }
  return order;
}

function stringStarts(strings: readonly string[]): Uint32Array {
  const starts = new Uint32Array(strings.length + 1);
  let total = 0;
  for (let i = 0; i < strings.length; i++) {
    starts[i] = total;
    total += Buffer.byteLength(strings[i]!, 'utf8');
  }
  starts[strings.length] = total;
  return starts;
}

/** Writes the UTF-8 of `strings` into `bytes` at `starts`. */
function encodeInto(strings: readonly string[], starts: Uint32Array, bytes: Uint8Array): void {
  const encoder = new TextEncoder();
  for (let i = 0; i < strings.length; i++) encoder.encodeInto(strings[i]!, bytes.subarray(starts[i]!));
}

/** UTF-8 of `strings` back to back, with the start of each (and the end). */
function encodeStrings(strings: readonly string[]): { bytes: Uint8Array; starts: Uint32Array } {
  const starts = stringStarts(strings);
  const bytes = new Uint8Array(starts[strings.length]!);
  encodeInto(strings, starts, bytes);
  return { bytes, starts };
}

/** What a search needs besides the index: field weights, typo tolerance, result count, synonyms. */
export interface PackedSearchParams {
  boost: Record<ChunkField, number>;
  tolerance: number;
  limit: number;
  synonyms: ReadonlyMap<string, readonly string[]>;
}

/** Orama's default BM25 parameters (k1, b, and the `d` of BM25+). */
const K = 1.2;
const B = 0.75;
const D = 0.5;

/**
 * A loaded {@link PackedIndexData} that answers searches. Scores are those of `orama-search` (its
 * chunk-db.ts search): coverage of the query's idf-weighted terms plus a share of BM25 relative to the best
 * chunk, typo candidates for unknown words, synonyms at {@link SYNONYM_WEIGHT}; ties by chunk order.
 */
export class PackedIndex {
  readonly bytes: number;
  private readonly termCount: number;
  private readonly termView: Buffer;
  /** Where {@link idOf} assembles an id. */
  private idScratch: Buffer = Buffer.allocUnsafe(256);
  /**
   * `postingDocs` and `fieldLengths` seen as Int32Array (the same memory; chunk numbers and field lengths stay
   * far below 2^31): V8 keeps values loaded from an Int32Array as small integers in the scoring loop, where a
   * Uint32Array's could need a float each.
   */
  private readonly docs32: Int32Array;
  private readonly lengths32: Int32Array;
  private typos: TypoIndex | undefined;
  /** Per-chunk accumulators of {@link search}, kept between searches (all zero outside of one). */
  private scratch: SearchScratch | undefined;

  constructor(
    readonly data: PackedIndexData,
    private readonly tokenizer: CodeTokenizer,
  ) {
    this.bytes = packedByteSize(data);
    this.termCount = data.termStarts.length - 1;
    this.termView = Buffer.from(data.termBytes.buffer, data.termBytes.byteOffset, data.termBytes.byteLength);

    this.docs32 = new Int32Array(data.postingDocs.buffer, data.postingDocs.byteOffset, data.postingDocs.length);
    this.lengths32 = new Int32Array(data.fieldLengths.buffer, data.fieldLengths.byteOffset, data.fieldLengths.length);
  }

  /** Number of chunks. */
  get chunks(): number {
    return this.data.chunks;
  }

  /**
   * Bytes held, with the typo matching's index of written words by length once a misspelt query built it
   * and the search's per-chunk accumulators once a search made them.
   */
  get memoryBytes(): number {
    const scratch = this.scratch;
    const scratchBytes =
      scratch === undefined
        ? 0
        : scratch.scores.byteLength * 3 + scratch.lastQueryTerm.byteLength + scratch.matched.byteLength;
    return this.bytes + (this.typos === undefined ? 0 : this.typos.bytes) + scratchBytes;
  }

  /** The rank of `term`, or -1. */
  termRank(term: string): number {
    const { termStarts } = this.data;
    let low = 0;
    let high = this.termCount - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const candidate = this.termView.toString('utf8', termStarts[mid]!, termStarts[mid + 1]!);
      if (candidate === term) return mid;
      if (candidate < term) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }

  /** Chunks containing term `rank` in field `field`. */
  private fieldCount(field: number, rank: number): number {
    const at = field * (this.termCount + 1) + rank;
    return this.data.postingStarts[at + 1]! - this.data.postingStarts[at]!;
  }

  /** The largest count of chunks containing the term over the fields (Orama's per-field token occurrences). */
  private documentFrequency(rank: number): number {
    if (rank < 0) return 0;
    let df = 0;
    for (let f = 0; f < FIELDS; f++) df = Math.max(df, this.fieldCount(f, rank));
    return df;
  }

  /** The written words by UTF-16 length (what TypoVocabulary buckets by), each bucket in first-seen order. */
  private typoIndex(): TypoIndex {
    if (this.typos === undefined) {
      const bytes = this.data.surfaceBytes;
      const count = this.data.surfaceTerms.length;
      // starts[count] is one past a virtual trailing separator: word i is bytes[starts[i] .. starts[i+1]-1]
      const starts = new Uint32Array(count + 1);
      const lengths = new Uint8Array(count);
      let word = 0;
      let units = 0;
      for (let i = 0; i < bytes.length; i++) {
        const byte = bytes[i]!;
        if (byte === 0x0a) {
          lengths[word] = Math.min(units, 255);
          starts[++word] = i + 1;
          units = 0;
        } else if (byte < 0x80 || byte >= 0xc0) {
          // a character starts here; four-byte sequences are two UTF-16 units
          units += byte >= 0xf0 ? 2 : 1;
        }
      }
      if (count > 0) lengths[word] = Math.min(units, 255);
      starts[count] = bytes.length + 1;
      const buckets = new Uint32Array(257);
      for (let i = 0; i < count; i++) buckets[lengths[i]! + 1]! += 1;
      for (let l = 1; l < buckets.length; l++) buckets[l]! += buckets[l - 1]!;
      const next = buckets.slice(0, 256);
      const order = new Uint32Array(count);
      for (let i = 0; i < count; i++) order[next[lengths[i]!]!++] = i;
      const wordStarts = new Uint32Array(count + 1);
      for (let k = 0; k < count; k++) {
        const i = order[k]!;
        wordStarts[k + 1] = wordStarts[k]! + (starts[i + 1]! - 1 - starts[i]!);
      }
      const words = new Uint8Array(wordStarts[count]!);
      for (let k = 0; k < count; k++) {
        const i = order[k]!;
        words.set(bytes.subarray(starts[i]!, starts[i + 1]! - 1), wordStarts[k]!);
      }
      this.typos = {
        order,
        buckets,
        words,
        wordStarts,
        bytes: order.byteLength + buckets.byteLength + words.byteLength + wordStarts.byteLength,
      };
    }
    return this.typos;
  }

  /**
   * Words of the index within `maxDistance` edits of `surface`, closest first, at most `limit`: exactly
   * TypoVocabulary.candidates (same buckets, same order, same distance), on the packed bytes.
   */
  private typoCandidates(surface: string, maxDistance: number, limit: number): { term: string; distance: number }[] {
    if (maxDistance <= 0) return [];
    const { order, buckets, words: bytes, wordStarts } = this.typoIndex();
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const ascii = !/[\u0080-\uffff]/.test(surface);
    // character counts of the query word, for the bag distance
    const counts = new Int32Array(128);
    if (ascii) for (let i = 0; i < surface.length; i++) counts[surface.charCodeAt(i)]! += 1;
    const found: { index: number; distance: number }[] = [];
    // Within one edit (a substitution, insertion, deletion or swap of neighbours), a word keeps the query word's
    // first `half` characters or its characters after `half + 1`: the edit cannot touch both. Comparing bytes of
    // an ASCII query word rules out most words at their first byte (a non-ASCII character is no ASCII byte).
    const oneEdit = ascii && maxDistance === 1;
    const n = surface.length;
    const half = (n - 1) >> 1;
    const tail = n - half - 1;
    for (let length = surface.length - maxDistance; length <= surface.length + maxDistance; length++) {
      if (length < 0 || length > 255) continue;
      for (let k = buckets[length]!; k < buckets[length + 1]!; k++) {
        const start = wordStarts[k]!;
        const end = wordStarts[k + 1]!;
        if (oneEdit && !(hasPrefix(bytes, start, end, surface, half) || hasSuffix(bytes, start, end, surface, tail))) {
          continue;
        }
        let distance: number;
        if (ascii && isAscii(bytes, start, end)) {
          // the bag distance never exceeds the edit distance: most words are ruled out without the table
          if (bagDistance(counts, bytes, start, end, surface.length, maxDistance) > maxDistance) continue;
          distance = asciiEditDistance(surface, bytes, start, end, maxDistance);
        } else {
          distance = boundedEditDistance(surface, view.toString('utf8', start, end), maxDistance);
        }
        if (distance > 0 && distance <= maxDistance) found.push({ index: order[k]!, distance });
      }
    }
    found.sort((x, y) => x.distance - y.distance);
    const { termStarts, surfaceTerms } = this.data;
    return found.slice(0, limit).map(({ index, distance }) => {
      const r = surfaceTerms[index]!;
      return { term: this.termView.toString('utf8', termStarts[r]!, termStarts[r + 1]!), distance };
    });
  }

  private tfAt(posting: number): number {
    const tf = this.data.postingTfs[posting]!;
    if (tf !== TF_OVERFLOW) return tf;
    const overflow = this.data.tfOverflow;
    let low = 0;
    let high = overflow.length / 2 - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const at = overflow[mid * 2]!;
      if (at === posting) return overflow[mid * 2 + 1]!;
      if (at < posting) low = mid + 1;
      else high = mid - 1;
    }
    return tf;
  }

  /** The id of chunk `doc`. */
  idOf(doc: number): string {
    const { id, scratch } = idAt(this.data.idBytes, this.data.idStarts, doc, this.idScratch);
    this.idScratch = scratch;
    return id;
  }

  /** The best `limit` chunks for `query` (ids and scores, best first) and how many matched. */
  search(query: string, params: PackedSearchParams): { hits: { id: string; score: number }[]; total: number } {
    const { data } = this;
    const size = data.chunks;
    const docsCount = size;
    // Accumulators reused from search to search (a search runs to its end without yielding): allocating and
    // zeroing four arrays of the chunk count per query cost more than the query itself on a large index.
    this.scratch ??= {
      scores: new Float64Array(size),
      coverage: new Float64Array(size),
      termCoverage: new Float64Array(size),
      lastQueryTerm: new Int32Array(size),
      matched: new Int32Array(size),
    };
    let matchedCount = 0;
    const idfOf = (df: number) => Math.log(1 + (docsCount - df + 0.5) / (df + 0.5));
    const boosts = params.boost as Record<string, number | undefined>;
    let queryWeight = 0;
    let queryIndex = 0;
    for (const q of this.tokenizer.queryTerms(query)) {
      queryIndex += 1;
      const rank = this.termRank(q.term);
      let matches: { term: string; rank: number; weight: number }[] = [{ term: q.term, rank, weight: 1 }];
      const known = this.documentFrequency(rank) > 0;
      if (!known) {
        const typos = allowedTypos(q.surface.length, params.tolerance);
        const byTerm = new Map<string, number>();
        if (typos > 0) {
          for (const candidate of this.typoCandidates(q.surface, typos, MAX_TYPO_CANDIDATES)) {
            // A typo match ranks below an exact one: weight 1/2 for one edit, 1/3 for two.
            const weight = 1 / (1 + candidate.distance);
            if ((byTerm.get(candidate.term) ?? 0) < weight) byTerm.set(candidate.term, weight);
          }
        }
        matches = [...byTerm].map(([term, weight]) => ({ term, rank: this.termRank(term), weight }));
      }
      for (const alternative of params.synonyms.get(q.term) ?? []) {
        const alternativeRank = this.termRank(alternative);
        if (this.documentFrequency(alternativeRank) > 0 && !matches.some((m) => m.term === alternative)) {
          matches.push({ term: alternative, rank: alternativeRank, weight: SYNONYM_WEIGHT });
        }
      }
      const termIdf = known
        ? idfOf(this.documentFrequency(rank))
        : matches.length > 0
          ? Math.max(...matches.map((m) => idfOf(this.documentFrequency(m.rank))))
          : idfOf(0);
      queryWeight += termIdf;
      for (let f = 0; f < FIELDS; f++) {
        const avgLength = data.avgFieldLengths[f]!;
        const fieldBoost = boosts[chunkFields[f]!] ?? 1;
        const lengthBase = f * size;
        for (const match of matches) {
          if (match.rank < 0) continue;
          const at = f * (this.termCount + 1) + match.rank;
          const start = data.postingStarts[at]!;
          const end = data.postingStarts[at + 1]!;
          if (start === end || avgLength <= 0) continue;
          const matching = end - start;
          const idf = Math.log(1 + (docsCount - matching + 0.5) / (matching + 0.5));
          const factor = idf * fieldBoost * match.weight;
          const lengthWeight = (K * B) / avgLength;
          matchedCount = this.scorePostings(
            start,
            end,
            lengthBase,
            factor,
            lengthWeight,
            termIdf * match.weight,
            queryIndex,
            matchedCount,
          );
        }
      }
    }
    const { scores, coverage, termCoverage, lastQueryTerm, matched } = this.scratch;
    let best = 0;
    for (let i = 0; i < matchedCount; i++) best = Math.max(best, scores[matched[i]!]!);
    const denominator = queryWeight > 0 ? queryWeight : 1;
    const final = (doc: number) => coverage[doc]! / denominator + (best > 0 ? (BM25_SHARE * scores[doc]!) / best : 0);
    const top = topK(matched.subarray(0, matchedCount), final, params.limit);
    for (let i = 0; i < matchedCount; i++) {
      const doc = matched[i]!;
      scores[doc] = 0;
      coverage[doc] = 0;
      termCoverage[doc] = 0;
      lastQueryTerm[doc] = 0;
    }
    return { hits: top.map(([doc, score]) => ({ id: this.idOf(doc), score })), total: matchedCount };
  }

  /**
   * Adds the BM25 share of postings `start`..`end` (one term, one field) to the chunks' scores and coverage; returns
   * the new count of matched chunks. A function of its own so V8 optimizes it as such: inlined in `search`, it ran
   * as on-stack-replaced code that deoptimized on leaving the loop, on query after query.
   */
  private scorePostings(
    start: number,
    end: number,
    lengthBase: number,
    factor: number,
    lengthWeight: number,
    covered: number,
    queryIndex: number,
    matchedCount: number,
  ): number {
    const { scores, coverage, termCoverage, lastQueryTerm } = this.scratch!;
    let matched = this.scratch!.matched;
    const constant = K * (1 - B);
    const docs = this.docs32;
    const tfs = this.data.postingTfs;
    const lengths = this.lengths32;
    for (let p = start; p < end; p++) {
      const doc = docs[p]!;
      const raw = tfs[p]!;
      const tf = raw === TF_OVERFLOW ? this.tfAt(p) : raw;
      const length = lengths[lengthBase + doc]!;
      const score = (factor * (D + tf * (K + 1))) / (tf + constant + lengthWeight * length);
      if (scores[doc] === 0) {
        // a chunk scored 0 so far (a zero boost) can be listed twice, as it always was
        if (matchedCount === matched.length) matched = this.growMatched(matchedCount * 2);
        matched[matchedCount++] = doc;
      }
      scores[doc]! += score;
      if (lastQueryTerm[doc] !== queryIndex) {
        lastQueryTerm[doc] = queryIndex;
        termCoverage[doc] = covered;
        coverage[doc]! += covered;
      } else if (termCoverage[doc]! < covered) {
        coverage[doc]! += covered - termCoverage[doc]!;
        termCoverage[doc] = covered;
      }
    }
    return matchedCount;
  }

  /** A larger list of matched chunks (a chunk with a zero score so far can be listed more than once). */
  private growMatched(capacity: number): Int32Array {
    const scratch = this.scratch!;
    const next = new Int32Array(capacity);
    next.set(scratch.matched);
    scratch.matched = next;
    return next;
  }
}

/** The per-chunk accumulators of {@link PackedIndex.search}. */
interface SearchScratch {
  scores: Float64Array;
  coverage: Float64Array;
  termCoverage: Float64Array;
  lastQueryTerm: Int32Array;
  matched: Int32Array;
}

/** Whether [doc, score] `a` ranks before `b`: higher score, then lower chunk number (Orama's order). */
const before = (a: [number, number], b: [number, number]): boolean => a[1] > b[1] || (a[1] === b[1] && a[0] < b[0]);

/** The `limit` best of `docs` by `scoreOf`, best first, without sorting them all. */
function topK(docs: ArrayLike<number>, scoreOf: (doc: number) => number, limit: number): [number, number][] {
  if (limit <= 0) return [];
  // a min-heap (by rank order) of the best seen so far: its root is the worst of them
  const heap: [number, number][] = [];
  const worse = (i: number, j: number) => before(heap[j]!, heap[i]!);
  const swap = (i: number, j: number) => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < heap.length && worse(l, w)) w = l;
      if (r < heap.length && worse(r, w)) w = r;
      if (w === i) return;
      swap(i, w);
      i = w;
    }
  };
  for (let i = 0; i < docs.length; i++) {
    const doc = docs[i]!;
    const score = scoreOf(doc);
    if (heap.length < limit) {
      const entry: [number, number] = [doc, score];
      heap.push(entry);
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!worse(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    } else {
      // compared as numbers first: most chunks of a common word never enter the heap, nor allocate
      const worst = heap[0]!;
      if (score > worst[1] || (score === worst[1] && doc < worst[0])) {
        heap[0] = [doc, score];
        down(0);
      }
    }
  }
  return heap.sort((a, b) => (before(a, b) ? -1 : 1));
}

/** The strings of a `bytes`/`starts` pair. */
function decodeStrings(bytes: Uint8Array, starts: Uint32Array): string[] {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Array<string>(starts.length - 1);
  for (let i = 0; i < out.length; i++) out[i] = view.toString('utf8', starts[i]!, starts[i + 1]!);
  return out;
}

/** Term frequency of posting `at` of `data` (resolving the overflow table). */
function tfOf(data: PackedIndexData, at: number): number {
  const tf = data.postingTfs[at]!;
  if (tf !== TF_OVERFLOW) return tf;
  const overflow = data.tfOverflow;
  for (let i = 0; i < overflow.length; i += 2) if (overflow[i] === at) return overflow[i + 1]!;
  return tf;
}

/**
 * The index of the chunks of `parts` one after the other, exactly as one builder would have built it from
 * all of them in that order (the same term numbers, postings, statistics and typo vocabulary): what lets
 * several workers build the parts of one library side by side.
 */
export function mergePacked(parts: readonly PackedIndexData[]): PackedIndexData {
  if (parts.length === 1) return parts[0]!;
  const lists = parts.map((part) => decodeStrings(part.termBytes, part.termStarts));
  // the union of the sorted term lists, still sorted (the order of `<`, which is the order of sort())
  const union: string[] = [];
  const toUnion = lists.map((list) => new Uint32Array(list.length));
  const heads = lists.map(() => 0);
  for (;;) {
    let smallest: string | undefined;
    for (let p = 0; p < lists.length; p++) {
      const term = lists[p]![heads[p]!];
      if (term !== undefined && (smallest === undefined || term < smallest)) smallest = term;
    }
    if (smallest === undefined) break;
    for (let p = 0; p < lists.length; p++) {
      if (lists[p]![heads[p]!] === smallest) toUnion[p]![heads[p]!++] = union.length;
    }
    union.push(smallest);
  }
  const termCount = union.length;
  const fromUnion = parts.map((_, p) => {
    const map = new Int32Array(termCount).fill(-1);
    toUnion[p]!.forEach((u, r) => {
      map[u] = r;
    });
    return map;
  });
  const chunks = parts.reduce((n, part) => n + part.chunks, 0);
  const offsets: number[] = [];
  let total = 0;
  for (const part of parts) {
    offsets.push(total);
    total += part.chunks;
  }
  const postings = parts.reduce((n, part) => n + part.postingDocs.length, 0);
  const postingStarts = new Uint32Array(FIELDS * (termCount + 1));
  const postingDocs = new Uint32Array(postings);
  const postingTfs = new Uint8Array(postings);
  const overflow: number[] = [];
  let out = 0;
  for (let f = 0; f < FIELDS; f++) {
    for (let t = 0; t < termCount; t++) {
      postingStarts[f * (termCount + 1) + t] = out;
      for (let p = 0; p < parts.length; p++) {
        const r = fromUnion[p]![t]!;
        if (r < 0) continue;
        const part = parts[p]!;
        const at = f * (part.termStarts.length - 1 + 1) + r;
        const end = part.postingStarts[at + 1]!;
        for (let i = part.postingStarts[at]!; i < end; i++) {
          postingDocs[out] = part.postingDocs[i]! + offsets[p]!;
          const tf = part.postingTfs[i]!;
          postingTfs[out] = tf;
          if (tf === TF_OVERFLOW) overflow.push(out, tfOf(part, i));
          out++;
        }
      }
    }
    postingStarts[f * (termCount + 1) + termCount] = out;
  }
  const fieldLengths = new Uint32Array(FIELDS * chunks);
  const avgFieldLengths = new Float64Array(FIELDS);
  for (let f = 0; f < FIELDS; f++) {
    parts.forEach((part, p) => {
      fieldLengths.set(part.fieldLengths.subarray(f * part.chunks, (f + 1) * part.chunks), f * chunks + offsets[p]!);
    });
    // the builder's running average, operation for operation
    let average = 0;
    for (let d = 0; d < chunks; d++) average = (average * d + fieldLengths[f * chunks + d]!) / (d + 1);
    avgFieldLengths[f] = average;
  }
  const ids = new IdList();
  for (const part of parts) for (const id of decodeIds(part.idBytes, part.idStarts)) ids.add(id);
  const seen = new Set<string>();
  const surfaces: string[] = [];
  const surfaceTerms: number[] = [];
  parts.forEach((part, p) => {
    const words = part.surfaceBytes.byteLength === 0 ? [] : new TextDecoder().decode(part.surfaceBytes).split('\n');
    words.forEach((word, i) => {
      if (seen.has(word)) return;
      seen.add(word);
      surfaces.push(word);
      surfaceTerms.push(toUnion[p]![part.surfaceTerms[i]!]!);
    });
  });
  const terms = encodeStrings(union);
  return {
    chunks,
    termBytes: terms.bytes,
    termStarts: terms.starts,
    postingStarts,
    postingDocs,
    postingTfs,
    tfOverflow: Uint32Array.from(overflow),
    fieldLengths,
    avgFieldLengths,
    idBytes: ids.bytes.slice(0, ids.used),
    idStarts: Uint32Array.from(ids.starts.subarray(0, chunks + 1)),
    surfaceBytes: new TextEncoder().encode(surfaces.join('\n')),
    surfaceTerms: Uint32Array.from(surfaceTerms),
  };
}

/** The typo index of a loaded {@link PackedIndex} (built on the first misspelt query). */
interface TypoIndex {
  /** The written words' numbers in bucket order. */
  order: Uint32Array;
  /** Words of UTF-16 length l are `order[buckets[l] .. buckets[l+1]]`. */
  buckets: Uint32Array;
  /**
   * The written words again, in bucket order, back to back: word `order[k]` is `words[wordStarts[k] ..
   * wordStarts[k+1]]`, so a typo scan reads one bucket's words in sequence instead of jumping around the index.
   */
  words: Uint8Array;
  wordStarts: Uint32Array;
  bytes: number;
}

/** Whether the word `bytes[start..end)` starts with the first `count` characters of the ASCII word `word`. */
function hasPrefix(bytes: Uint8Array, start: number, end: number, word: string, count: number): boolean {
  if (end - start < count) return false;
  for (let k = 0; k < count; k++) if (bytes[start + k] !== word.charCodeAt(k)) return false;
  return true;
}

/** Whether the word `bytes[start..end)` ends with the last `count` characters of the ASCII word `word`. */
function hasSuffix(bytes: Uint8Array, start: number, end: number, word: string, count: number): boolean {
  if (end - start < count) return false;
  const from = end - count;
  const offset = word.length - count;
  for (let k = 0; k < count; k++) if (bytes[from + k] !== word.charCodeAt(offset + k)) return false;
  return true;
}

function isAscii(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i]! >= 0x80) return false;
  return true;
}

let rows: [Int32Array, Int32Array, Int32Array] = [new Int32Array(66), new Int32Array(66), new Int32Array(66)];

/**
 * boundedEditDistance (the analysis' optimal string alignment distance, `max + 1` once it must exceed `max`)
 * between `a` and the ASCII word `bytes[start..end)`, without making a string of it.
 */
function asciiEditDistance(a: string, bytes: Uint8Array, start: number, end: number, max: number): number {
  const n = a.length;
  const m = end - start;
  if (Math.abs(n - m) > max) return max + 1;
  if (m + 1 > rows[0].length) rows = [new Int32Array(m + 1), new Int32Array(m + 1), new Int32Array(m + 1)];
  let [prevPrev, prev, cur] = rows;
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= m; j++) {
      const cb = bytes[start + j - 1]!;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ca === cb ? 0 : 1));
      if (i > 1 && j > 1 && ca === bytes[start + j - 2] && a.charCodeAt(i - 2) === cb) {
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

const bagScratch = new Int32Array(128);

/**
 * The bag distance between the word with character counts `counts` (of length `length`) and the ASCII word
 * `bytes[start..end)`: the larger of the characters each has beyond the other. An insertion, deletion or
 * substitution changes it by at most 1 and a swap not at all, so it is a lower bound of the edit distance.
 * Stops counting once it exceeds `max`.
 */
function bagDistance(
  counts: Int32Array,
  bytes: Uint8Array,
  start: number,
  end: number,
  length: number,
  max: number,
): number {
  bagScratch.set(counts);
  // characters of the word the query does not have
  let extra = 0;
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    if (bagScratch[c]! > 0) bagScratch[c]! -= 1;
    else if (++extra > max) return extra;
  }
  // what is left of the query's characters: length - (matched) = length - ((end - start) - extra)
  const missing = length - (end - start - extra);
  return Math.max(extra, missing);
}
