import type { CacheStore } from '@pro-context/kernel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/** How the suite gets a fresh store, and how it ages entries. */
export interface CacheStoreContractOptions {
  /** A new, empty store for each test. */
  create(): CacheStore | Promise<CacheStore>;
  /** Called after each test with the store (close it, delete its files). */
  destroy?(store: CacheStore): void | Promise<void>;
}

/**
 * The behaviour every `CacheStore` must have. Run it against your own store:
 * `describeCacheStoreContract('my-store', { create: () => new MyStore() })`.
 */
export function describeCacheStoreContract(name: string, options: CacheStoreContractOptions): void {
  describe(`CacheStore contract: ${name}`, () => {
    let store: CacheStore;
    beforeEach(async () => {
      store = await options.create();
    });
    afterEach(async () => {
      await (options.destroy ? options.destroy(store) : store.close());
    });

    it('returns what was stored, by namespace and key', async () => {
      await store.set('pages', 'https://a.test/x', { title: 'X', body: 'é ✓ 𝄞' });
      await store.set('toc', 'https://a.test/x', ['other namespace']);
      const entry = await store.get<{ title: string; body: string }>('pages', 'https://a.test/x');
      expect(entry?.value).toEqual({ title: 'X', body: 'é ✓ 𝄞' });
      expect(entry?.stale).toBe(false);
      expect((await store.get('toc', 'https://a.test/x'))?.value).toEqual(['other namespace']);
      expect(await store.get('pages', 'missing')).toBeUndefined();
    });

    it('round-trips bytes exactly', async () => {
      const bytes = new Uint8Array([0, 1, 2, 254, 255, 0, 10]);
      await store.set('index', 'k', bytes);
      const value = (await store.get<Uint8Array>('index', 'k'))?.value;
      expect(value).toBeInstanceOf(Uint8Array);
      expect([...(value ?? [])]).toEqual([...bytes]);
    });

    it('overwrites atomically and keeps etag and meta', async () => {
      await store.set('pages', 'k', 'one', { etag: '"a"', meta: { url: 'u' } });
      await store.set('pages', 'k', 'two', { etag: '"b"' });
      const entry = await store.get('pages', 'k');
      expect(entry?.value).toBe('two');
      expect(entry?.etag).toBe('"b"');
    });

    it('hides expired entries unless a stale read is asked for', async () => {
      await store.set('versions', 'k', 'old', { ttlMs: 1 });
      await new Promise((resolve) => setTimeout(resolve, 15));
      expect(await store.get('versions', 'k')).toBeUndefined();
      const stale = await store.get('versions', 'k', { allowStale: true });
      expect(stale?.value).toBe('old');
      expect(stale?.stale).toBe(true);
    });

    it('treats ttlMs 0 as never expiring', async () => {
      await store.set('index', 'forever', 1, { ttlMs: 0 });
      expect((await store.get('index', 'forever'))?.expiresAt).toBeNull();
    });

    it('lists keys by prefix, deletes and clears per namespace', async () => {
      await store.set('chunks', 'lib@1/a', 1);
      await store.set('chunks', 'lib@1/b', 2);
      await store.set('chunks', 'other@1/a', 3);
      await store.set('pages', 'p', 4);
      expect((await store.keys('chunks', 'lib@1/')).sort()).toEqual(['lib@1/a', 'lib@1/b']);
      expect(await store.delete('chunks', 'lib@1/a')).toBe(true);
      expect(await store.delete('chunks', 'lib@1/a')).toBe(false);
      expect(await store.clear('chunks')).toBe(2);
      expect(await store.get('pages', 'p')).toBeDefined();
    });

    it('does not let callers mutate cached values through a returned object', async () => {
      await store.set('toc', 'k', { entries: [1, 2] });
      const first = await store.get<{ entries: number[] }>('toc', 'k');
      first?.value.entries.push(3);
      expect((await store.get<{ entries: number[] }>('toc', 'k'))?.value.entries).toEqual([1, 2]);
    });

    it('counts hits and misses', async () => {
      await store.set('pages', 'k', 1);
      await store.get('pages', 'k');
      await store.get('pages', 'nope');
      const stats = await store.stats();
      expect(stats.hits).toBeGreaterThanOrEqual(1);
      expect(stats.misses).toBeGreaterThanOrEqual(1);
      expect(stats.hitRate).toBeGreaterThan(0);
      expect(stats.hitRate).toBeLessThan(1);
    });
  });
}
