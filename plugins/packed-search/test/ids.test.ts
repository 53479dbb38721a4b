import { createCodeTokenizer } from '@pro-context/search-kit';
import { describe, expect, it } from 'vitest';
import { ID_RESTART, mergePacked, PackedIndex, PackedIndexBuilder } from '../src/packed-index.js';
import { decodeSnapshot, encodeSnapshot } from '../src/snapshot.js';

/**
 * Chunk ids as the engine writes them (a page's URL, then `#anchor` and `~n` for its later parts), with what makes
 * front coding fail if it can: ids longer than 127 shared bytes, one the prefix of the one before, multi-byte
 * characters cut in the middle by a shared prefix, an empty id, ids of another form, and more than a restart's worth.
 */
function ids(): string[] {
  const long = `https://docs.test/${'deep/'.repeat(40)}page`;
  const out = [
    `${long}#intro`,
    `${long}#intro~2`,
    `${long}`,
    'https://docs.test/café#ñandú',
    'https://docs.test/café#ñandú~2',
    'https://docs.test/caf€#x',
    '',
    'custom-id-9',
    'custom-id-90',
  ];
  for (let p = 0; p < 5; p++) for (let s = 0; s < 2 * ID_RESTART; s++) out.push(`https://docs.test/guide/p${p}#s${s}`);
  return out;
}

function build(all: readonly string[]) {
  const builder = new PackedIndexBuilder();
  // each chunk's body names it, so a search for that word finds exactly it
  for (const [i, id] of all.entries()) builder.add({ id, title: '', section: '', headings: '', body: `marker${i}` });
  return builder.finish();
}

describe('packed-search chunk ids (front-coded)', () => {
  it('gives back every id exactly, from a built, a snapshotted and a merged index', () => {
    const tokenizer = createCodeTokenizer('english');
    const all = ids();
    const data = build(all);
    // stored in far fewer bytes than whole
    expect(data.idBytes.byteLength).toBeLessThan(0.5 * Buffer.byteLength(all.join(''), 'utf8'));
    const snapshot = decodeSnapshot(encodeSnapshot(data, tokenizer.fingerprint), tokenizer.fingerprint);
    if (!snapshot.ok) throw new Error(snapshot.reason);
    const half = Math.floor(all.length / 2) + 3;
    const merged = mergePacked([build(all.slice(0, half)), build(all.slice(half))]);
    for (const index of [data, snapshot.data, merged].map((d) => new PackedIndex(d, tokenizer))) {
      for (const [doc, id] of all.entries()) expect(index.idOf(doc)).toBe(id);
    }
  });
});
