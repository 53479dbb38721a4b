import { createCodeTokenizer } from '@pro-context/search-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { PackedSearchBackend } from '../src/backend.js';
import { PackedIndexBuilder, type PackedIndexData, packedArrays } from '../src/packed-index.js';
import { decodeSnapshot, encodeSnapshot } from '../src/snapshot.js';
import { chunk, keyOf } from './helpers.js';

const analysis = createCodeTokenizer('english').fingerprint;

const chunks = Array.from({ length: 300 }, (_, i) => ({
  id: `page-${i}#s${i % 7}`,
  title: `Page ${i}`,
  section: `Section ${i % 7}`,
  headings: i % 2 === 0 ? 'Guide\nUsage' : '',
  body: `${'validator '.repeat(i === 5 ? 300 : 3)} field_${i} BaseModel ${i % 13} Ünïcode naïve 2024 ${i}`,
}));

/** The index's arrays copied into arrays of their own (no snapshot behind them). */
function detached(data: PackedIndexData): PackedIndexData {
  const copy = { chunks: data.chunks } as PackedIndexData;
  for (const name of packedArrays) (copy as unknown as Record<string, unknown>)[name] = data[name].slice();
  return copy;
}

const open: PackedSearchBackend[] = [];
afterEach(async () => {
  for (const backend of open.splice(0)) await backend.close();
});

describe('packed-search snapshots', () => {
  it('lays a built index out as its snapshot, byte for byte the snapshot of its arrays', () => {
    const builder = new PackedIndexBuilder();
    for (const c of chunks) builder.add(c);
    const data = builder.finish();
    expect(data.tfOverflow.length).toBeGreaterThan(0);
    // every array is a view of the snapshot: one buffer for the worker to transfer
    for (const name of packedArrays) expect(data[name].buffer).toBe(data.snapshot!.buffer);
    const written = encodeSnapshot(detached(data), analysis);
    expect(data.snapshot).toEqual(written);
    // handed out as it is, not copied; another analysis gets a snapshot of its own
    expect(encodeSnapshot(data, analysis)).toBe(data.snapshot);
    expect(encodeSnapshot(data, 'code-english-0')).not.toBe(data.snapshot);
    const decoded = decodeSnapshot(written, analysis);
    expect(decoded.ok).toBe(true);
    if (decoded.ok) for (const name of packedArrays) expect(decoded.data[name]).toEqual(data[name]);
  });

  it('hands out the same snapshot of an index built in the worker or restored, without copying it again', async () => {
    const backend = new PackedSearchBackend();
    open.push(backend);
    const key = keyOf('lib');
    const docs = chunks.map((c) => chunk(c.id, c.title, [c.title, c.section], c.body));
    await backend.index(key, docs);
    const snapshot = (await backend.snapshot(key))!;
    expect(await backend.snapshot(key)).toBe(snapshot);
    const answer = await backend.search(key, 'field_42 validator');
    await backend.drop(key);
    expect(await backend.restore(key, snapshot.slice())).toBe(true);
    const restored = (await backend.snapshot(key))!;
    expect(restored).toEqual(snapshot);
    expect(await backend.snapshot(key)).toBe(restored);
    expect(await backend.search(key, 'field_42 validator')).toEqual(answer);
  });

  it('restores from bytes of their own without a copy, and copies a view into a larger buffer', async () => {
    const backend = new PackedSearchBackend();
    open.push(backend);
    const key = keyOf('lib');
    await backend.index(
      key,
      chunks.map((c) => chunk(c.id, c.title, [c.title, c.section], c.body)),
    );
    const snapshot = (await backend.snapshot(key))!;
    const answer = await backend.search(key, 'field_42 validator');
    // as read from the cache: a buffer of its own, which becomes the index
    const read = snapshot.slice();
    await backend.drop(key);
    expect(await backend.restore(key, read)).toBe(true);
    expect(await backend.snapshot(key)).toBe(read);
    expect(await backend.search(key, 'field_42 validator')).toEqual(answer);
    // a view into a pool: copied, so what else is in the pool (or later written there) does not matter
    const pool = new Uint8Array(snapshot.byteLength + 16);
    pool.set(snapshot, 8);
    await backend.drop(key);
    expect(await backend.restore(key, pool.subarray(8, 8 + snapshot.byteLength))).toBe(true);
    pool.fill(0);
    expect(await backend.snapshot(key)).toEqual(snapshot);
    expect(await backend.search(key, 'field_42 validator')).toEqual(answer);
  });
});
