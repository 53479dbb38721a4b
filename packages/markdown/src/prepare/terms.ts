/**
 * A compact index of which chunks contain which words, to count in how many chunks a query term occurs without
 * holding the chunks' text: the engine weighs query terms by their document frequency (`text.includes(term)` over
 * each chunk's lower-cased title, headings and body), and a term made of `[a-z0-9_.$@-]` occurs in a text exactly
 * when it occurs inside one of the text's maximal runs of those characters: the runs are the vocabulary here.
 */

/** The first layout: each word's chunks as 32-bit numbers (still read). */
const MAGIC_V1 = 0x31544350; // 'PCT1'
/** The layout written: each word's chunks as varint gaps (about a third of the bytes). */
const MAGIC = 0x32544350; // 'PCT2'
const HEADER_WORDS = 5;
/** Document frequencies a {@link TermIndex} keeps (a query's terms recur; each lookup scans the vocabulary). */
const FREQUENCIES_KEPT = 1024;

/** Bytes of `value` as a varint (7 bits a byte). */
const varintBytes = (value: number) =>
  value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;

// The characters of a word (`[a-z0-9_.$@-]`), by UTF-16 unit below 128.
const WORD_CHAR = new Uint8Array(128);
for (const c of 'abcdefghijklmnopqrstuvwxyz0123456789_.$@-') WORD_CHAR[c.charCodeAt(0)] = 1;

/** Bytes per slab of a {@link ByteSlabs} (`p >>> 16` is the slab of byte `p`). */
const SLAB = 1 << 16;
/** What a slab already sorted is replaced with. */
const EMPTY = new Uint8Array(0);

/**
 * An append-only list of bytes in fixed-size slabs: growing it never copies what it holds or leaves a discarded
 * array twice its size behind (a large library's chunking worker carries tens of MB of postings).
 */
class ByteSlabs {
  slabs: Uint8Array[] = [];
  length = 0;
  private slab: Uint8Array = EMPTY;
  /** Appends `value` as a varint (7 bits a byte, low bits first). */
  pushVarint(value: number): void {
    let v = value;
    while (v >= 0x80) {
      this.push((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    this.push(v);
  }
  private push(byte: number): void {
    const at = this.length & (SLAB - 1);
    if (at === 0) {
      this.slab = new Uint8Array(SLAB);
      this.slabs.push(this.slab);
    }
    this.slab[at] = byte;
    this.length++;
  }
}

/** A copy of `array` `size` long (at least its length), keeping what it holds. */
export function grown<T extends Uint8Array | Uint32Array | Int32Array>(array: T, size: number): T {
  const next = new (array.constructor as new (n: number) => T)(size);
  next.set(array);
  return next;
}

/** Builds the term index of `texts` (one per chunk, in chunk order; lower-cased here). */
export function buildTermIndex(texts: Iterable<string>): Uint8Array {
  const builder = new TermIndexBuilder();
  for (const text of texts) builder.add(text);
  return builder.finish();
}

/**
 * {@link buildTermIndex} fed one chunk's text at a time (a library prepared in batches): the same bytes. Words are
 * numbered in first-seen order and found by a hash of the text's characters (no string per occurrence or per
 * word: the vocabulary is kept as its bytes, `\n`-separated, as the index stores it). Postings are kept chunk
 * after chunk as each chunk's word numbers, ascending, in varint deltas (about 1.5 bytes a posting instead of 4,
 * which a large library's chunking worker carries from its first batch to its last), and sorted by word at the
 * end, stably, so every list stays in chunk order.
 */
export class TermIndexBuilder {
  /** The words so far, each followed by `\n` (latin1: word characters are ASCII). */
  private vocab = new Uint8Array(1 << 16);
  private vocabLength = 0;
  /** Where each word starts in {@link vocab}. */
  private wordAt = new Uint32Array(1 << 12);
  private words = 0;
  /** Open addressing: per slot the hash, then the word's number + 1 (0: empty). */
  private slots = new Int32Array(2 << 12);
  /** The chunk each word was last seen in, + 1. */
  private lastDoc = new Uint32Array(1 << 12);
  /** Each chunk's words, ascending, as varint gaps. */
  private postings = new ByteSlabs();
  /** Postings (word, chunk pairs) so far. */
  private pairs = 0;
  /** Where each chunk's postings start in {@link postings}. */
  private docStart = new Uint32Array(1 << 12);
  /** The words of the chunk being added. */
  private docWords = new Uint32Array(1 << 10);
  private docs = 0;

  private place(hash: number, id: number): void {
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    let at = hash & mask;
    while (slots[2 * at + 1] !== 0) at = (at + 1) & mask;
    slots[2 * at] = hash;
    slots[2 * at + 1] = id + 1;
  }

  /** Whether the word numbered `id` is `text` from `start`, `length` characters. */
  private isWord(id: number, text: string, start: number, length: number): boolean {
    const from = this.wordAt[id] as number;
    const end = id + 1 < this.words ? (this.wordAt[id + 1] as number) - 1 : this.vocabLength - 1;
    if (end - from !== length) return false;
    const vocab = this.vocab;
    for (let k = 0; k < length; k++) if (vocab[from + k] !== text.charCodeAt(start + k)) return false;
    return true;
  }

  /** Numbers a new word: `text` from `start` to `end`. */
  private addWord(hash: number, text: string, start: number, end: number): number {
    const id = this.words++;
    if (id === this.wordAt.length) this.wordAt = grown(this.wordAt, id * 2);
    this.wordAt[id] = this.vocabLength;
    const need = this.vocabLength + (end - start) + 1;
    if (need > this.vocab.length) this.vocab = grown(this.vocab, Math.max(need, this.vocab.length * 2));
    const vocab = this.vocab;
    let at = this.vocabLength;
    for (let k = start; k < end; k++) vocab[at++] = text.charCodeAt(k);
    vocab[at++] = 10;
    this.vocabLength = at;
    if ((this.words + 1) * 2 > this.slots.length >> 1) {
      const old = this.slots;
      this.slots = new Int32Array(old.length * 2);
      for (let i = 0; i < old.length; i += 2)
        if (old[i + 1] !== 0) this.place(old[i] as number, (old[i + 1] as number) - 1);
    }
    this.place(hash, id);
    if (id === this.lastDoc.length) this.lastDoc = grown(this.lastDoc, id * 2);
    return id;
  }

  /** Adds the next chunk's text. */
  add(raw: string): void {
    const doc = this.docs++;
    if (doc === this.docStart.length) this.docStart = grown(this.docStart, doc * 2);
    this.docStart[doc] = this.postings.length;
    const text = raw.toLowerCase();
    const n = text.length;
    let count = 0;
    let i = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c >= 128 || WORD_CHAR[c] === 0) {
        i++;
        continue;
      }
      const start = i;
      let hash = 0x811c9dc5 | 0;
      for (; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d >= 128 || WORD_CHAR[d] === 0) break;
        hash = Math.imul(hash ^ d, 0x01000193);
      }
      const length = i - start;
      const slots = this.slots;
      const mask = (slots.length >> 1) - 1;
      let id = -1;
      for (let at = hash & mask; ; at = (at + 1) & mask) {
        const found = (slots[2 * at + 1] as number) - 1;
        if (found < 0) break;
        if (slots[2 * at] === hash && this.isWord(found, text, start, length)) {
          id = found;
          break;
        }
      }
      if (id < 0) id = this.addWord(hash, text, start, i);
      if (this.lastDoc[id] !== doc + 1) {
        this.lastDoc[id] = doc + 1;
        if (count === this.docWords.length) this.docWords = grown(this.docWords, count * 2);
        this.docWords[count++] = id;
      }
    }
    // the chunk's words ascending, as gaps: small numbers, mostly one or two bytes
    const words = this.docWords.subarray(0, count).sort();
    let previous = 0;
    for (let k = 0; k < count; k++) {
      const w = words[k] as number;
      this.postings.pushVarint(w - previous);
      previous = w;
    }
    this.pairs += count;
  }

  /**
   * The term index of every text added: the vocabulary, then per word where its list starts (in bytes) and the
   * lists, each word's chunks ascending as varint gaps (the first one the chunk itself).
   */
  finish(): Uint8Array {
    const { words, docs, postings, docStart } = this;
    const vocabBytes = Math.max(0, this.vocabLength - 1);
    const padded = Math.ceil(vocabBytes / 4) * 4;
    const { slabs, length } = postings;
    // the chunks' postings, word by word (each chunk's words ascending, as varint gaps)
    const eachPosting = (visit: (word: number, doc: number) => void, release: boolean) => {
      let p = 0;
      for (let doc = 0; doc < docs; doc++) {
        const end = doc + 1 < docs ? (docStart[doc + 1] as number) : length;
        let w = 0;
        while (p < end) {
          let gap = 0;
          let shift = 0;
          let byte: number;
          do {
            byte = (slabs[p >>> 16] as Uint8Array)[p & (SLAB - 1)] as number;
            // a slab placed is let go as the sort goes on
            if (release && (p & (SLAB - 1)) === SLAB - 1) slabs[p >>> 16] = EMPTY;
            p++;
            gap |= (byte & 0x7f) << shift;
            shift += 7;
          } while (byte >= 0x80);
          w += gap;
          visit(w, doc);
        }
      }
    };
    // the bytes of each word's list (the chunk each word was last seen in is what its next gap starts from)
    const previous = this.lastDoc.length >= words ? this.lastDoc.fill(0) : new Uint32Array(words);
    const sizes = new Uint32Array(words + 1);
    eachPosting((w, doc) => {
      sizes[w + 1] = (sizes[w + 1] as number) + varintBytes(doc - (previous[w] as number));
      previous[w] = doc;
    }, false);
    for (let w = 0; w < words; w++) sizes[w + 1] = (sizes[w + 1] as number) + (sizes[w] as number);
    const total = sizes[words] as number;
    const bytes = new Uint8Array(4 * HEADER_WORDS + padded + 4 * (words + 1) + total);
    const header = new Uint32Array(bytes.buffer, 0, HEADER_WORDS);
    header.set([MAGIC, docs, words, vocabBytes, total]);
    bytes.set(this.vocab.subarray(0, vocabBytes), 4 * HEADER_WORDS);
    this.vocab = new Uint8Array(0);
    const startsAt = 4 * HEADER_WORDS + padded;
    new Uint32Array(bytes.buffer, startsAt, words + 1).set(sizes);
    const lists = bytes.subarray(startsAt + 4 * (words + 1));
    // where each word's next byte goes: its start, moved on as it is written (stable: chunks stay in order)
    const next = sizes;
    previous.fill(0);
    eachPosting((w, doc) => {
      let at = next[w] as number;
      let v = doc - (previous[w] as number);
      previous[w] = doc;
      while (v >= 0x80) {
        lists[at++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      lists[at++] = v;
      next[w] = at;
    }, true);
    // what a finished builder held goes
    this.postings = new ByteSlabs();
    this.docStart = new Uint32Array(0);
    this.docWords = new Uint32Array(0);
    this.lastDoc = new Uint32Array(0);
    return bytes;
  }
}

/** A term index read back ({@link buildTermIndex}); `undefined` from {@link TermIndex.read} when the bytes are not one. */
export class TermIndex {
  private constructor(
    /** Chunks indexed. */
    readonly documents: number,
    private readonly vocab: string,
    /** Offset of each word in {@link vocab}. */
    private readonly wordAt: Uint32Array,
    /** Where each word's list starts in {@link lists} (and the end, last). */
    private readonly listStarts: Uint32Array,
    /** Each word's chunks: varint gaps (the layout written), or 32-bit numbers (the first layout, still read). */
    private readonly lists: Uint8Array | Uint32Array,
  ) {}

  /** {@link documentFrequency}'s answers so far (at most {@link FREQUENCIES_KEPT}). */
  private readonly frequencies = new Map<string, number>();

  /** Bytes the index takes in memory, roughly. */
  get bytes(): number {
    return this.vocab.length + 4 * (this.wordAt.length + this.listStarts.length) + this.lists.byteLength;
  }

  /**
   * Reads an index from its bytes, which it keeps (they must not change afterwards); `undefined` when they are not
   * a term index. Bytes that do not start on a 4-byte boundary (a Buffer from a store may be a view into a pool)
   * are copied; others are read where they are, so a large library's index is not held twice.
   */
  static read(source: Uint8Array): TermIndex | undefined {
    if (source.byteLength < 4 * HEADER_WORDS) return undefined;
    let bytes = source;
    if (source.byteOffset % 4 !== 0) {
      bytes = new Uint8Array(source.byteLength);
      bytes.set(source);
    }
    const base = bytes.byteOffset;
    const [magic, documents, words, vocabBytes, total] = new Uint32Array(bytes.buffer, base, HEADER_WORDS);
    if (
      (magic !== MAGIC && magic !== MAGIC_V1) ||
      words === undefined ||
      vocabBytes === undefined ||
      total === undefined
    )
      return undefined;
    const padded = Math.ceil(vocabBytes / 4) * 4;
    const startsAt = 4 * HEADER_WORDS + padded;
    const listBytes = magic === MAGIC ? total : 4 * total;
    if (bytes.byteLength !== startsAt + 4 * (words + 1) + listBytes) return undefined;
    const vocab = Buffer.from(bytes.buffer, base + 4 * HEADER_WORDS, vocabBytes).toString('latin1');
    const wordAt = new Uint32Array(words);
    let offset = 0;
    for (let i = 0; i < words; i++) {
      wordAt[i] = offset;
      const end = vocab.indexOf('\n', offset);
      offset = end === -1 ? vocab.length + 1 : end + 1;
    }
    const listsAt = base + startsAt + 4 * (words + 1);
    return new TermIndex(
      documents as number,
      vocab,
      wordAt,
      new Uint32Array(bytes.buffer, base + startsAt, words + 1),
      magic === MAGIC ? new Uint8Array(bytes.buffer, listsAt, total) : new Uint32Array(bytes.buffer, listsAt, total),
    );
  }

  /** How many chunks contain `needle` (lower-case, made of `[a-z0-9_.$@-]`) in their text. */
  documentFrequency(needle: string): number {
    // the same query terms come back query after query, and each lookup scans the whole vocabulary
    const known = this.frequencies.get(needle);
    if (known !== undefined) return known;
    const count = this.countChunks(this.wordsContaining(needle));
    if (this.frequencies.size >= FREQUENCIES_KEPT) this.frequencies.clear();
    this.frequencies.set(needle, count);
    return count;
  }

  /** The chunks (ordinals, ascending) that contain `needle` (lower-case, made of `[a-z0-9_.$@-]`) in their text. */
  chunksWith(needle: string): number[] {
    return this.chunksOf(this.wordsContaining(needle));
  }

  /** The vocabulary words `needle` occurs in (a word counts once). */
  private wordsContaining(needle: string): number[] {
    if (needle === '' || /[^a-z0-9_.$@-]/.test(needle)) return [];
    const matched: number[] = [];
    let from = 0;
    for (;;) {
      const at = this.vocab.indexOf(needle, from);
      if (at === -1) break;
      const word = this.wordIndexAt(at);
      matched.push(word);
      // on to the next word: a word counts once
      from = word + 1 < this.wordAt.length ? (this.wordAt[word + 1] as number) : this.vocab.length;
    }
    return matched;
  }

  /** The chunks holding any of `words`, ascending, each once. */
  private chunksOf(words: readonly number[]): number[] {
    if (words.length === 0) return [];
    if (words.length === 1) {
      // one word's list is ascending, each chunk once
      const out: number[] = [];
      this.eachChunk(words[0] as number, (doc) => {
        out.push(doc);
      });
      return out;
    }
    const seen = this.markChunks(words);
    const out: number[] = [];
    // ascending by reading the marks in order: a pass over one byte per chunk, not a sort of what was found
    for (let doc = 0; doc < seen.length; doc++) if (seen[doc] === 1) out.push(doc);
    return out;
  }

  /** How many chunks hold any of `words`. */
  private countChunks(words: readonly number[]): number {
    if (words.length === 0) return 0;
    if (words.length === 1) {
      const w = words[0] as number;
      const from = this.listStarts[w] as number;
      const to = this.listStarts[w + 1] as number;
      if (this.lists instanceof Uint32Array) return to - from;
      // one chunk a varint: its last byte is the one under 0x80
      let count = 0;
      for (let i = from; i < to; i++) if ((this.lists[i] as number) < 0x80) count++;
      return count;
    }
    let count = 0;
    const seen = this.markChunks(words);
    for (let doc = 0; doc < seen.length; doc++) count += seen[doc] as number;
    return count;
  }

  /** A mark (1) per chunk holding any of `words`. */
  private markChunks(words: readonly number[]): Uint8Array {
    const seen = new Uint8Array(this.documents);
    for (const w of words) {
      this.eachChunk(w, (doc) => {
        seen[doc] = 1;
      });
    }
    return seen;
  }

  /** Visits the chunks of word `w`'s list, in order. */
  private eachChunk(w: number, visit: (doc: number) => void): void {
    const lists = this.lists;
    const end = this.listStarts[w + 1] as number;
    if (!(lists instanceof Uint8Array)) {
      for (let i = this.listStarts[w] as number; i < end; i++) visit(lists[i] as number);
      return;
    }
    let doc = 0;
    for (let i = this.listStarts[w] as number; i < end; ) {
      let gap = 0;
      let shift = 0;
      let byte: number;
      do {
        byte = lists[i++] as number;
        gap |= (byte & 0x7f) << shift;
        shift += 7;
      } while (byte >= 0x80);
      doc += gap;
      visit(doc);
    }
  }

  private wordIndexAt(offset: number): number {
    let lo = 0;
    let hi = this.wordAt.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.wordAt[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
