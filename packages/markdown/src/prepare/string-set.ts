import { grown } from './terms.js';

/**
 * A set of strings kept as their UTF-8 bytes, one after another in one buffer, and found by a hash of them: what
 * a `Set<string>` of a large library's chunk ids holds in some 100 bytes an id instead of a string object each (a
 * chunk id is its page's URL and anchor, built by concatenation: 200 bytes and more of heap). Exact: a hash match
 * is confirmed byte by byte, and a string with a lone surrogate (which UTF-8 cannot tell from another) is kept as
 * it is in a `Set`. Strings are never removed.
 */
export class CompactStringSet {
  private bytes = new Uint8Array(1 << 16);
  private used = 0;
  /** Where each string starts in {@link bytes} (the next one's start is its end). */
  private starts = new Uint32Array(1 << 10);
  /** Each string's hash. */
  private hashes = new Int32Array(1 << 10);
  private count = 0;
  /** Open addressing: per slot a string's number + 1 (0: empty); a power of two, at most half full. */
  private slots = new Int32Array(1 << 11);
  private scratch = new Uint8Array(1 << 10);
  private readonly encoder = new TextEncoder();
  /** Strings that are not well-formed UTF-16. */
  private readonly odd = new Set<string>();

  /** Strings in the set. */
  get size(): number {
    return this.count + this.odd.size;
  }

  /** Whether `value` is in the set. */
  has(value: string): boolean {
    if (LONE_SURROGATE.test(value)) return this.odd.has(value);
    const length = this.encode(value);
    return this.find(hashOf(this.scratch, length), length) >= 0;
  }

  /** Adds `value`; `false` when it was in the set already. */
  add(value: string): boolean {
    if (LONE_SURROGATE.test(value)) {
      if (this.odd.has(value)) return false;
      this.odd.add(value);
      return true;
    }
    const length = this.encode(value);
    const hash = hashOf(this.scratch, length);
    const found = this.find(hash, length);
    if (found >= 0) return false;
    const id = this.count++;
    if (id + 1 >= this.starts.length) {
      this.starts = grown(this.starts, this.starts.length * 2);
      this.hashes = grown(this.hashes, this.hashes.length * 2);
    }
    if (this.used + length > this.bytes.length) {
      this.bytes = grown(this.bytes, Math.max(this.used + length, this.bytes.length * 2));
    }
    this.bytes.set(this.scratch.subarray(0, length), this.used);
    this.starts[id] = this.used;
    this.used += length;
    this.starts[id + 1] = this.used;
    this.hashes[id] = hash;
    if (2 * this.count > this.slots.length) {
      this.slots = new Int32Array(this.slots.length * 2);
      for (let i = 0; i < id; i++) this.place(this.hashes[i] as number, i);
    }
    this.place(hash, id);
    return true;
  }

  /** `value`'s UTF-8 bytes into {@link scratch}; their length. */
  private encode(value: string): number {
    if (value.length * 3 > this.scratch.length) this.scratch = new Uint8Array(value.length * 3);
    return this.encoder.encodeInto(value, this.scratch).written;
  }

  /** The number of the string whose bytes are in {@link scratch}, or -1. */
  private find(hash: number, length: number): number {
    const { slots, bytes, scratch } = this;
    const mask = slots.length - 1;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const id = (slots[at] as number) - 1;
      if (id < 0) return -1;
      if (this.hashes[id] !== hash) continue;
      const start = this.starts[id] as number;
      if ((this.starts[id + 1] as number) - start !== length) continue;
      let k = 0;
      while (k < length && bytes[start + k] === scratch[k]) k++;
      if (k === length) return id;
    }
  }

  private place(hash: number, id: number): void {
    const slots = this.slots;
    const mask = slots.length - 1;
    let at = hash & mask;
    while (slots[at] !== 0) at = (at + 1) & mask;
    slots[at] = id + 1;
  }
}

/** A surrogate without its other half (`String.prototype.isWellFormed` is ES2024). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** FNV-1a of `bytes`' first `length`. */
function hashOf(bytes: Uint8Array, length: number): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = 0; i < length; i++) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193);
  return hash;
}
