import type { PackedIndexData } from './types.js';

/** Identifies the snapshot layout; {@link decodeSnapshot} refuses any other. */
export const SNAPSHOT_FORMAT = 'pro-context/packed-search';
/** 2: the chunk ids front-coded (a snapshot of version 1 is refused: the engine builds the index again). */
export const SNAPSHOT_VERSION = 2;

/** The typed arrays of {@link PackedIndexData}, in snapshot order. */
export const packedArrays = [
  'termBytes',
  'termStarts',
  'postingStarts',
  'postingDocs',
  'postingTfs',
  'tfOverflow',
  'fieldLengths',
  'avgFieldLengths',
  'idBytes',
  'idStarts',
  'surfaceBytes',
  'surfaceTerms',
] as const;

// "PCPK": a packed-search snapshot. Then a u32 (little endian) header length, the JSON header, and the
// arrays, each starting at a multiple of 8 bytes so that they can be viewed in place.
const MAGIC = [0x50, 0x43, 0x50, 0x4b];
const ALIGN = 8;

type ArrayName = (typeof packedArrays)[number];

const kinds: Record<ArrayName, 'u8' | 'u32' | 'f64'> = {
  termBytes: 'u8',
  termStarts: 'u32',
  postingStarts: 'u32',
  postingDocs: 'u32',
  postingTfs: 'u8',
  tfOverflow: 'u32',
  fieldLengths: 'u32',
  avgFieldLengths: 'f64',
  idBytes: 'u8',
  idStarts: 'u32',
  surfaceBytes: 'u8',
  surfaceTerms: 'u32',
};

interface SnapshotHeader {
  format: string;
  version: number;
  analysis: string;
  chunks: number;
  /** Byte length of each array, in {@link packedArrays} order. */
  lengths: number[];
}

const align = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

/** The typed arrays of an index, views of one snapshot's memory (see {@link snapshotLayout}). */
export type PackedArrays = Pick<PackedIndexData, ArrayName>;

/** The views of each array of a snapshot in `buffer` whose arrays start at `first`. */
function viewsOf(buffer: ArrayBuffer, first: number, lengths: readonly number[]): PackedArrays {
  const arrays = {} as Record<ArrayName, Uint8Array | Uint32Array | Float64Array>;
  let at = first;
  for (let i = 0; i < packedArrays.length; i++) {
    const name = packedArrays[i]!;
    const bytes = lengths[i]!;
    const kind = kinds[name];
    arrays[name] =
      kind === 'u8'
        ? new Uint8Array(buffer, at, bytes)
        : kind === 'u32'
          ? new Uint32Array(buffer, at, bytes / 4)
          : new Float64Array(buffer, at, bytes / 8);
    at += align(bytes);
  }
  return arrays as PackedArrays;
}

/**
 * A snapshot with its header written and its arrays (of byte lengths `lengths`, in {@link packedArrays} order)
 * zero, as views to fill: an index built into them is its own snapshot (see {@link PackedIndexData.snapshot}).
 */
export function snapshotLayout(
  lengths: readonly number[],
  chunks: number,
  analysis: string,
): { snapshot: Uint8Array; arrays: PackedArrays } {
  const header: SnapshotHeader = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    analysis,
    chunks,
    lengths: [...lengths],
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const first = align(8 + json.byteLength);
  let size = first;
  for (const length of lengths) size += align(length);
  const buffer = new ArrayBuffer(size);
  const snapshot = new Uint8Array(buffer);
  snapshot.set(MAGIC, 0);
  new DataView(buffer).setUint32(4, json.byteLength, true);
  snapshot.set(json, 8);
  return { snapshot, arrays: viewsOf(buffer, first, lengths) };
}

/**
 * The snapshot of `data`, written by the analysis `analysis` (the tokenizer's fingerprint): `data.snapshot`
 * itself when the index was laid out as its snapshot by that analysis (no copy), else a new one.
 */
export function encodeSnapshot(data: PackedIndexData, analysis: string): Uint8Array {
  if (data.snapshot !== undefined && analysisOf(data.snapshot) === analysis) return data.snapshot;
  const lengths = packedArrays.map((name) => data[name].byteLength);
  const { snapshot, arrays } = snapshotLayout(lengths, data.chunks, analysis);
  for (const name of packedArrays) {
    const from = data[name];
    const to = arrays[name];
    new Uint8Array(to.buffer, to.byteOffset, to.byteLength).set(
      new Uint8Array(from.buffer, from.byteOffset, from.byteLength),
    );
  }
  return snapshot;
}

/** The analysis a snapshot's header names, or undefined. */
function analysisOf(snapshot: Uint8Array): string | undefined {
  try {
    const length = new DataView(snapshot.buffer, snapshot.byteOffset, snapshot.byteLength).getUint32(4, true);
    const header = JSON.parse(new TextDecoder().decode(snapshot.subarray(8, 8 + length))) as Partial<SnapshotHeader>;
    return header.analysis;
  } catch {
    return undefined;
  }
}

/** Why a snapshot cannot be used, or the index it holds. */
export type DecodedSnapshot = { ok: true; data: PackedIndexData } | { ok: false; reason: string };

/**
 * Reads a snapshot of {@link encodeSnapshot}, checking its layout and that every offset and chunk number
 * in it is in range (a damaged snapshot is refused, never searched). `analysis` must match the writer's.
 */
export function decodeSnapshot(snapshot: Uint8Array, analysis: string): DecodedSnapshot {
  if (snapshot.byteLength < 8 || MAGIC.some((byte, i) => snapshot[i] !== byte)) {
    return { ok: false, reason: 'not a packed-search snapshot' };
  }
  const view = new DataView(snapshot.buffer, snapshot.byteOffset, snapshot.byteLength);
  const headerLength = view.getUint32(4, true);
  if (8 + headerLength > snapshot.byteLength) return { ok: false, reason: 'truncated header' };
  let header: Partial<SnapshotHeader>;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(snapshot.subarray(8, 8 + headerLength)));
  } catch {
    return { ok: false, reason: 'unreadable header' };
  }
  if (header === null || typeof header !== 'object') return { ok: false, reason: 'not a snapshot header' };
  if (header.format !== SNAPSHOT_FORMAT) return { ok: false, reason: `format ${JSON.stringify(header.format)}` };
  if (header.version !== SNAPSHOT_VERSION) {
    return { ok: false, reason: `format version ${header.version}, expected ${SNAPSHOT_VERSION}` };
  }
  if (header.analysis !== analysis) {
    return { ok: false, reason: `tokenized as ${header.analysis}, this backend tokenizes as ${analysis}` };
  }
  const lengths = header.lengths;
  if (
    !Number.isInteger(header.chunks) ||
    !Array.isArray(lengths) ||
    lengths.length !== packedArrays.length ||
    !lengths.every((n) => Number.isInteger(n) && n >= 0)
  ) {
    return { ok: false, reason: 'no index layout' };
  }
  let size = align(8 + headerLength);
  for (const length of lengths) size += align(length);
  if (size !== snapshot.byteLength)
    return { ok: false, reason: `${snapshot.byteLength} bytes, the header says ${size}` };
  for (let i = 0; i < packedArrays.length; i++) {
    const kind = kinds[packedArrays[i]!];
    const width = kind === 'u8' ? 1 : kind === 'u32' ? 4 : 8;
    if (lengths[i]! % width !== 0) return { ok: false, reason: `${packedArrays[i]} is ${lengths[i]} bytes` };
  }
  // Bytes that are a whole buffer of their own (as read from the cache) become the index as they are; others (a
  // view into a larger or unaligned buffer) are copied once into a fresh buffer. Either way the arrays are aligned
  // views of it, and it is the loaded index's snapshot (a later `encodeSnapshot` of it copies nothing).
  let own = snapshot;
  if (snapshot.byteOffset !== 0 || snapshot.byteLength !== snapshot.buffer.byteLength) {
    own = new Uint8Array(new ArrayBuffer(snapshot.byteLength));
    own.set(snapshot);
  }
  const arrays = viewsOf(own.buffer as ArrayBuffer, align(8 + headerLength), lengths);
  const data: PackedIndexData = { chunks: header.chunks as number, ...arrays, snapshot: own };
  const problem = checkLayout(data);
  return problem === undefined ? { ok: true, data } : { ok: false, reason: problem };
}

/** Every count, offset and chunk number of `data` in range, or what is not. */
function checkLayout(data: PackedIndexData): string | undefined {
  const fields = data.avgFieldLengths.length;
  const { chunks } = data;
  const terms = data.termStarts.length - 1;
  const ascending = (starts: Uint32Array, end: number) => {
    if (starts.length === 0 || starts[0] !== 0) return false;
    for (let i = 1; i < starts.length; i++) if (starts[i]! < starts[i - 1]!) return false;
    return starts[starts.length - 1] === end;
  };
  if (fields !== 4) return `${fields} fields`;
  if (terms < 0 || !ascending(data.termStarts, data.termBytes.byteLength)) return 'bad term offsets';
  if (data.idStarts.length !== chunks + 1 || !ascending(data.idStarts, data.idBytes.byteLength)) {
    return 'bad id offsets';
  }
  if (data.fieldLengths.length !== fields * chunks) return 'bad field lengths';
  const starts = data.postingStarts;
  if (starts.length !== fields * (terms + 1) || !ascending(starts, data.postingDocs.length)) {
    // field blocks follow each other: one ascending run from 0 to the number of postings
    return 'bad posting offsets';
  }
  if (data.postingTfs.length !== data.postingDocs.length || data.tfOverflow.length % 2 !== 0) return 'bad frequencies';
  for (let i = 0; i < data.postingDocs.length; i++) if (data.postingDocs[i]! >= chunks) return 'chunk out of range';
  for (let i = 0; i < data.surfaceTerms.length; i++) if (data.surfaceTerms[i]! >= terms) return 'term out of range';
  let words = data.surfaceBytes.byteLength === 0 ? 0 : 1;
  for (let i = 0; i < data.surfaceBytes.length; i++) if (data.surfaceBytes[i] === 0x0a) words++;
  if (words !== data.surfaceTerms.length) return 'bad written words';
  return undefined;
}
