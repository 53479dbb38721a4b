import type { SearchBackend } from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { LazySearchBackend, LoadedIndexes } from '../src/index.js';

describe('LoadedIndexes', () => {
  it('drops the least recently used beyond the limits, never the one just used, and counts bytes', () => {
    const evicted: string[] = [];
    const loaded = new LoadedIndexes<{ bytes: number }>({
      sizeOf: (e) => e.bytes,
      over: (l) => l.size > 2 || l.totalBytes > 100,
      evicted: (id) => evicted.push(id),
    });
    loaded.install('a', { bytes: 10 });
    loaded.install('b', { bytes: 10 });
    loaded.touch('a');
    const c = { bytes: 10 };
    loaded.install('c', c);
    expect(evicted).toEqual(['b']);
    expect([...loaded.keys()]).toEqual(['a', 'c']);
    // an index that grows past the byte limit (a typo vocabulary loaded) stays; the others go
    c.bytes = 105;
    loaded.resized('c', 95);
    expect(evicted).toEqual(['b', 'a']);
    expect(loaded.totalBytes).toBe(105);
    loaded.remove('c');
    expect(loaded.totalBytes).toBe(0);
  });

  it('a build begun under an older generation of its key is superseded', () => {
    const loaded = new LoadedIndexes<string>({ over: () => false });
    const first = loaded.bump('k');
    const second = loaded.bump('k');
    expect(loaded.isCurrent('k', first)).toBe(false);
    expect(loaded.isCurrent('k', second)).toBe(true);
    expect(loaded.generation('other')).toBeUndefined();
  });
});

describe('LazySearchBackend', () => {
  it('loads the backend on the first call that needs an index, once', async () => {
    let loads = 0;
    const inner = {
      id: 'x',
      index: async () => undefined,
      search: async () => ({ hits: [], total: 0 }),
      has: async () => true,
      drop: async () => undefined,
      snapshot: async () => new Uint8Array([1]),
      restore: async () => true,
    } satisfies SearchBackend;
    const lazy = new LazySearchBackend('x', async () => {
      loads++;
      return inner;
    });
    const key = { libraryId: 'a', version: '1' };
    expect(await lazy.has(key)).toBe(false);
    expect(await lazy.snapshot(key)).toBeNull();
    expect(lazy.indexer).toBeUndefined();
    expect(loads).toBe(0);
    await lazy.search(key, 'q');
    await lazy.index(key, []);
    expect(loads).toBe(1);
    expect(await lazy.has(key)).toBe(true);
  });
});
