import { type PackedIndexData, packedArrays } from './packed-index.js';

/** Identifies the snapshot layout; {@link decodeSnapshot} refuses any other. */
export const SNAPSHOT_FORMAT = 'pro-context/packed-search';
export const SNAPSHOT_VERSION = 1;

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

/** The snapshot of `data`, written by the analysis `analysis` (the tokenizer's fingerprint). */
export function encodeSnapshot(data: PackedIndexData, analysis: string): Uint8Array {
  const header: SnapshotHeader = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    analysis,
    chunks: data.chunks,
    lengths: packedArrays.map((name) => data[name].byteLength),
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  let size = align(8 + json.byteLength);
  for (const length of header.lengths) size += align(length);
  const out = new Uint8Array(size);
  out.set(MAGIC, 0);
  new DataView(out.buffer).setUint32(4, json.byteLength, true);
  out.set(json, 8);
  let at = align(8 + json.byteLength);
  for (const name of packedArrays) {
    const array = data[name];
    out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
    at += align(array.byteLength);
  }
  return out;
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
  // One copy into a fresh buffer: the arrays are then aligned views of it, whatever the input's offset.
  const buffer = new ArrayBuffer(snapshot.byteLength);
  new Uint8Array(buffer).set(snapshot);
  const arrays = {} as Record<ArrayName, Uint8Array | Uint32Array | Float64Array>;
  let at = align(8 + headerLength);
  for (let i = 0; i < packedArrays.length; i++) {
    const name = packedArrays[i]!;
    const bytes = lengths[i]!;
    const kind = kinds[name];
    const width = kind === 'u8' ? 1 : kind === 'u32' ? 4 : 8;
    if (bytes % width !== 0) return { ok: false, reason: `${name} is ${bytes} bytes` };
    arrays[name] =
      kind === 'u8'
        ? new Uint8Array(buffer, at, bytes)
        : kind === 'u32'
          ? new Uint32Array(buffer, at, bytes / 4)
          : new Float64Array(buffer, at, bytes / 8);
    at += align(bytes);
  }
  const data = { chunks: header.chunks as number, ...arrays } as PackedIndexData;
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
