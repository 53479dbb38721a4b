import { describe, expect, it } from 'vitest';
import { ChunkBlockCutter, idFromRun, idInRun } from '../src/index.js';
import { CompactStringSet } from '../src/prepare/string-set.js';

describe('CompactStringSet', () => {
  it('holds exactly the strings a Set holds: prefixes, non-ASCII, empty, lone surrogates, 50,000 ids', () => {
    const set = new CompactStringSet();
    const reference = new Set<string>();
    const ids = Array.from({ length: 50_000 }, (_, i) => `https://docs.test/p${i % 7000}#section-${i % 13}~${i}`);
    const odd = [
      '',
      'a',
      'ab',
      'é',
      'e\u0301',
      '日本語#見出し',
      '\uD800',
      '\uD801',
      'x\uDC00',
      'x\uDC01',
      '😀',
      '\uD83D',
    ];
    // what has and add answered, against a Set's answers (compared at once: 100,000 expects are slow)
    const answers: boolean[][] = [[], []];
    for (const value of [...ids, ...odd, ...ids.slice(0, 100), ...odd]) {
      answers[0]?.push(set.has(value), set.add(value));
      answers[1]?.push(reference.has(value), !reference.has(value));
      reference.add(value);
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(set.size).toBe(reference.size);
    expect([...reference].every((value) => set.has(value))).toBe(true);
    for (const value of ['https://docs.test/p1#section-1~', 'https://docs.test/p1', 'ab ', 'A', '\uD802', 'x\uDC02'])
      expect(set.has(value)).toBe(false);
  });
});

describe('ChunkBlockCutter.drain', () => {
  it('hands over what was added since the last drain: together, what a cutter that keeps them holds', () => {
    const chunks = Array.from({ length: 500 }, (_, i) => ({
      id: `c${i}`,
      url: `https://docs.test/p${Math.floor(i / 7)}`,
      body: 'x'.repeat(10 + ((i * 37) % 400)),
    }));
    const keeping = new ChunkBlockCutter<(typeof chunks)[number]>(2000);
    const draining = new ChunkBlockCutter<(typeof chunks)[number]>(2000);
    const drained = { ids: [] as string[], runs: [] as [string, number][], blockStarts: [] as number[] };
    const blocks: { kept: string[][]; drained: string[][] } = { kept: [], drained: [] };
    // batches cut across pages (7 chunks a page, 30 a batch)
    for (let from = 0; from < chunks.length; from += 30) {
      const batch = chunks.slice(from, from + 30);
      for (const b of keeping.add(batch)) blocks.kept.push(b.map((c) => c.id));
      for (const b of draining.add(batch)) blocks.drained.push(b.map((c) => c.id));
      const part = draining.drain();
      drained.ids.push(...part.ids);
      drained.runs.push(...part.runs);
      drained.blockStarts.push(...part.blockStarts);
      expect(draining.ids).toHaveLength(0);
    }
    expect(drained).toEqual({ ids: keeping.ids, runs: keeping.runs, blockStarts: keeping.blockStarts });
    expect(keeping.runs).toHaveLength(72);
    expect(blocks.drained).toEqual(blocks.kept);
    expect(draining.flush()?.map((c) => c.id)).toEqual(keeping.flush()?.map((c) => c.id));
  });
});

describe('idInRun / idFromRun', () => {
  it("keeps an id without its chunk's URL, or whole when it does not start with it, and gives it back", () => {
    const url = 'https://docs.test/guide/getting-started';
    const cases: [string, string][] = [
      [url, ''],
      [`${url}#install`, '#install'],
      [`${url}#a-rather-long-section-anchor~2`, '#a-rather-long-section-anchor~2'],
      ['custom-id-9', '\u0000custom-id-9'],
      [`${url}\u0000odd`, `\u0000${url}\u0000odd`],
    ];
    for (const [id, kept] of cases) {
      expect(idInRun(id, url)).toBe(kept);
      expect(idFromRun(idInRun(id, url), url)).toBe(id);
    }
    const cutter = new ChunkBlockCutter<{ id: string; url: string; body: string }>(100);
    cutter.add([{ id: `${url}#install`, url, body: 'x' }]);
    expect(cutter.ids).toEqual(['#install']);
  });
});
