import { describe, expect, it } from 'vitest';
import { mergePacked, type PackedChunk, PackedIndexBuilder, packedArrays } from '../src/packed-index.js';
import { corporaAvailable, corpusChunks } from './helpers.js';

const toPacked = (c: { id: string; title: string; headings: string[]; body: string }): PackedChunk => ({
  id: c.id,
  title: c.title,
  section: c.headings.at(-1) ?? '',
  headings: c.headings.slice(1, -1).join('\n'),
  body: c.body,
});

function build(chunks: PackedChunk[]) {
  const builder = new PackedIndexBuilder();
  for (const chunk of chunks) builder.add(chunk);
  return builder.finish();
}

describe.skipIf(!corporaAvailable)('mergePacked', () => {
  it('merges the parts of a library into exactly the index one builder makes of it', () => {
    const chunks = corpusChunks('pydantic').map(toPacked);
    // a long code body whose term frequencies overflow a byte
    chunks.push(toPacked({ id: 'long', title: 'Long', headings: ['Long'], body: 'validator '.repeat(300) }));
    const whole = build(chunks);
    for (const cuts of [[1], [chunks.length - 1], [317], [100, 400], [50, 51, 300]]) {
      const bounds = [0, ...cuts, chunks.length];
      const parts = bounds.slice(1).map((end, i) => build(chunks.slice(bounds[i], end)));
      const merged = mergePacked(parts);
      expect(merged.chunks).toBe(whole.chunks);
      for (const name of packedArrays) expect(merged[name], `${name} cut at ${cuts}`).toEqual(whole[name]);
    }
    expect(whole.tfOverflow.length).toBeGreaterThan(0);
  });
});
