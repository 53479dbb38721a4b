import { crc32 } from 'node:zlib';

/** How a value is stored, so it comes back as the same type. */
export type ValueKind = 'json' | 'string' | 'buffer' | 'bytes';

/** A value ready for both tiers. */
export interface EncodedValue {
  kind: ValueKind;
  /** The durable form. */
  bytes: Buffer;
  /** The memory form: JSON text, the string itself, or the bytes. */
  stored: string | Buffer;
}

/** Checksum of the durable form, verified on every durable read. */
export function checksum(bytes: Uint8Array): number {
  return crc32(bytes);
}

/**
 * Encodes a value. Strings are stored as UTF-8 text (no JSON escaping of large markdown), bytes verbatim, anything
 * else as JSON. Bytes are copied when the encoded value is kept (`keep`: the memory tier holds it, and later
 * changes by the caller must not reach the cache); written to the file only, they are a view of the caller's
 * (SQLite copies what it is given), so a large value is not held twice while it is written.
 */
export function encodeValue(value: unknown, keep = true): EncodedValue {
  if (typeof value === 'string') return { kind: 'string', bytes: Buffer.from(value, 'utf8'), stored: value };
  if (value instanceof Uint8Array) {
    const bytes = keep ? Buffer.from(value) : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    return { kind: Buffer.isBuffer(value) ? 'buffer' : 'bytes', bytes, stored: bytes };
  }
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    throw new TypeError(
      'Cache values may be JSON data, a string, a Buffer or a Uint8Array; convert other binary data to a Uint8Array.',
    );
  }
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`Cache values must be JSON-serializable; got ${typeof value}.`);
  return { kind: 'json', bytes: Buffer.from(text, 'utf8'), stored: text };
}

/** The memory form of a durable value. */
export function decodeValue(kind: ValueKind, bytes: Buffer): string | Buffer {
  return kind === 'json' || kind === 'string' ? bytes.toString('utf8') : bytes;
}

/**
 * What a reader receives: always a value of its own, so mutating it never changes the cache. JSON is parsed
 * from text on each read (about 0.2 ms for a 50 KB table of contents), which also makes a value read from
 * memory identical to one read after a restart (a `Date` is a string in both). Bytes are copied unless they are
 * the reader's already (`own`: just read from SQLite and not kept in the memory tier), so a large value read once
 * (an index snapshot) is not held twice.
 */
export function presentValue(kind: ValueKind, stored: string | Buffer, own = false): unknown {
  switch (kind) {
    case 'json':
      return JSON.parse(stored as string);
    case 'string':
      return stored;
    case 'buffer':
      return own ? stored : Buffer.from(stored as Buffer);
    case 'bytes': {
      const bytes = stored as Buffer;
      return own ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(bytes);
    }
  }
}

/** Whether a kind read from the database is one this code writes. */
export function isValueKind(kind: string): kind is ValueKind {
  return kind === 'json' || kind === 'string' || kind === 'buffer' || kind === 'bytes';
}
