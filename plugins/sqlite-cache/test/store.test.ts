import { existsSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isProContextError } from '@pro-context/kernel';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, SqliteCacheStore } from '../src/index.js';
import { fakeClock, HOUR, openStore, recordingLogger, tempDir } from './helpers.js';

function raw(dir: string): Database.Database {
  return new Database(join(dir, 'cache.db'));
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('SqliteCacheStore: values', () => {
  it('round-trips JSON, strings, Buffers and Uint8Arrays with their own types, across a reopen', async () => {
    const dir = tempDir();
    const bytes = new Uint8Array([0, 1, 2, 254, 255, 0, 10]);
    const buffer = Buffer.from('binary \u0000 data ✓');
    const json = { title: 'Guide', list: [1, 2.5, null, true], nested: { s: 'é 𝄞' } };
    const markdown = '# Title\n\n```py\nprint("hi")\n```\n'.repeat(100);
    const first = openStore({ directory: dir });
    await first.set('index', 'bytes', bytes);
    await first.set('index', 'buffer', buffer);
    await first.set('toc', 'json', json);
    await first.set('pages', 'md', markdown);
    await first.close();

    const second = openStore({ directory: dir });
    const readBytes = (await second.get<Uint8Array>('index', 'bytes'))?.value;
    expect(readBytes).toBeInstanceOf(Uint8Array);
    expect(Buffer.isBuffer(readBytes)).toBe(false);
    expect([...(readBytes ?? [])]).toEqual([...bytes]);
    const readBuffer = (await second.get<Buffer>('index', 'buffer'))?.value;
    expect(Buffer.isBuffer(readBuffer)).toBe(true);
    expect(readBuffer?.equals(buffer)).toBe(true);
    expect((await second.get('toc', 'json'))?.value).toEqual(json);
    expect((await second.get('pages', 'md'))?.value).toBe(markdown);
  });

  it('stores multi-megabyte snapshots intact', async () => {
    const store = openStore();
    const snapshot = Buffer.alloc(6 * 1024 * 1024);
    for (let i = 0; i < snapshot.length; i += 4096) snapshot.writeUInt32LE(i, i);
    await store.set('index', 'lib@1', snapshot);
    const fromMemory = (await store.get<Buffer>('index', 'lib@1'))?.value;
    expect(fromMemory?.equals(snapshot)).toBe(true);
    await store.close();
    const reopened = openStore({ directory: store.options.directory });
    const fromDisk = await reopened.get<Buffer>('index', 'lib@1');
    expect(fromDisk?.value.equals(snapshot)).toBe(true);
    expect(fromDisk?.sizeBytes).toBeGreaterThanOrEqual(snapshot.length);
  });

  it('gives every reader its own copy, so mutating a result never changes the cache', async () => {
    const store = openStore();
    await store.set('toc', 'k', { entries: [1, 2] });
    const first = await store.get<{ entries: number[] }>('toc', 'k');
    first?.value.entries.push(3);
    expect((await store.get<{ entries: number[] }>('toc', 'k'))?.value.entries).toEqual([1, 2]);

    const original = Buffer.from([1, 2, 3]);
    await store.set('index', 'b', original);
    original[0] = 99; // the caller's buffer changes after the write
    const read = (await store.get<Buffer>('index', 'b'))?.value;
    read?.fill(0);
    expect([...((await store.get<Buffer>('index', 'b'))?.value ?? [])]).toEqual([1, 2, 3]);
  });

  it('keeps etag and meta beside the value', async () => {
    const dir = tempDir();
    const store = openStore({ directory: dir });
    await store.set('pages', 'https://a.test/x', 'body', { etag: '"v1"', meta: { url: 'https://a.test/x', n: 1 } });
    await store.close();
    const entry = await openStore({ directory: dir }).get('pages', 'https://a.test/x');
    expect(entry?.etag).toBe('"v1"');
    expect(entry?.meta).toEqual({ url: 'https://a.test/x', n: 1 });
  });

  it('refuses values it could not give back unchanged', async () => {
    const store = openStore();
    await expect(store.set('toc', 'k', undefined)).rejects.toThrow(TypeError);
    await expect(store.set('toc', 'k', new Float32Array(2))).rejects.toThrow(/Uint8Array/);
    await expect(store.set('toc', 'k', () => 1)).rejects.toThrow(/JSON-serializable/);
    await expect(store.set('', 'k', 1)).rejects.toThrow(/namespace/);
    await expect(store.set('toc', 'k', 1, { ttlMs: -1 })).rejects.toThrow(/ttlMs/);
  });
});

describe('SqliteCacheStore: TTLs and stale reads', () => {
  it('applies per-namespace TTLs: versions 1 h, others defaultTTLHours, overrides from ttlHours', async () => {
    const clock = fakeClock();
    const store = openStore({ defaultTTLHours: 24, ttlHours: { toc: 2 } }, { now: clock.now });
    await store.set('versions', 'pkg', ['1.0.0']);
    await store.set('toc', 'lib', ['a']);
    await store.set('pages', 'url', 'body');
    expect((await store.get('versions', 'pkg'))?.expiresAt).toBe(clock.now() + HOUR);

    clock.advance(HOUR - 1);
    expect((await store.get('versions', 'pkg'))?.stale).toBe(false);
    clock.advance(2);
    expect(await store.get('versions', 'pkg')).toBeUndefined();
    expect(await store.get('toc', 'lib')).toBeDefined();
    clock.advance(HOUR);
    expect(await store.get('toc', 'lib')).toBeUndefined();
    expect(await store.get('pages', 'url')).toBeDefined();
    clock.advance(22 * HOUR);
    expect(await store.get('pages', 'url')).toBeUndefined();
  });

  it('lets set({ ttlMs }) win, and treats 0 as never expiring', async () => {
    const clock = fakeClock();
    const store = openStore({ defaultTTLHours: 0, ttlHours: { versions: 0 } }, { now: clock.now });
    await store.set('versions', 'forever', 1);
    await store.set('pages', 'short', 1, { ttlMs: 1000 });
    await store.set('versions', 'explicit-forever', 1, { ttlMs: 0 });
    clock.advance(10 * 365 * 24 * HOUR);
    expect((await store.get('versions', 'forever'))?.expiresAt).toBeNull();
    expect((await store.get('versions', 'explicit-forever'))?.stale).toBe(false);
    expect(await store.get('pages', 'short')).toBeUndefined();
  });

  it('tells when an entry expires without reading its value, as get() does, across a reopen', async () => {
    const clock = fakeClock();
    const dir = tempDir();
    const store = openStore({ directory: dir, ttlHours: { docs: 2 } }, { now: clock.now });
    const manifest = { ids: Array.from({ length: 50_000 }, (_, i) => `chunk-${i}`) };
    await store.set('docs', 'big@1', manifest, { memory: false });
    await store.set('docs', 'short@1', 1, { ttlMs: 1000 });
    await store.set('docs', 'forever@1', 1, { ttlMs: 0 });
    expect(await store.expiresAt('docs', 'big@1')).toBe(clock.now() + 2 * HOUR);
    expect(await store.expiresAt('docs', 'short@1')).toBe(clock.now() + 1000);
    expect(await store.expiresAt('docs', 'forever@1')).toBeNull();
    expect(await store.expiresAt('docs', 'absent@1')).toBeUndefined();
    clock.advance(HOUR);
    // expired entries too (get() with allowStale says the same)
    expect(await store.expiresAt('docs', 'short@1')).toBe(
      (await store.get('docs', 'short@1', { allowStale: true }))?.expiresAt,
    );
    await store.close();
    const reopened = openStore({ directory: dir }, { now: clock.now });
    expect(await reopened.expiresAt('docs', 'big@1')).toBe((await reopened.get('docs', 'big@1'))?.expiresAt);
    await reopened.delete('docs', 'big@1');
    expect(await reopened.expiresAt('docs', 'big@1')).toBeUndefined();
  });

  it('serves an expired entry only with allowStale, marked stale, from memory and after a restart', async () => {
    const clock = fakeClock();
    const dir = tempDir();
    const store = openStore({ directory: dir }, { now: clock.now });
    await store.set('docs', 'lib@1:topic', { text: 'old' }, { ttlMs: 1000 });
    clock.advance(5000);
    expect(await store.get('docs', 'lib@1:topic')).toBeUndefined();
    const stale = await store.get('docs', 'lib@1:topic', { allowStale: true });
    expect(stale).toMatchObject({ value: { text: 'old' }, stale: true });
    expect((await store.stats()).durableEntries).toBe(1); // kept for stale serving
    await store.close();

    const reopened = openStore({ directory: dir }, { now: clock.now });
    expect(await reopened.get('docs', 'lib@1:topic')).toBeUndefined();
    expect(await reopened.get('docs', 'lib@1:topic', { allowStale: true })).toMatchObject({ stale: true });
  });
});

describe('SqliteCacheStore: memory tier', () => {
  it('serves reads from memory first and fills memory from SQLite', async () => {
    const dir = tempDir();
    const store = openStore({ directory: dir });
    await store.set('toc', 'k', 'written');
    // Change the row behind the store's back: a memory hit never looks at SQLite.
    const db = raw(dir);
    db.prepare("UPDATE entries SET value = CAST('changed' AS BLOB), checksum = 0 WHERE key = 'k'").run();
    db.close();
    expect((await store.get('toc', 'k'))?.value).toBe('written');

    // A second store starts with an empty memory tier and fills it from SQLite on a read.
    await store.set('toc', 'k2', 'v2');
    const other = openStore({ directory: dir });
    expect((await other.stats()).memoryEntries).toBe(0);
    expect((await other.get('toc', 'k2'))?.value).toBe('v2');
    expect((await other.stats()).memoryEntries).toBe(1);
    expect((await other.get('toc', 'k2'))?.value).toBe('v2');
    expect(await other.get('toc', 'nothing')).toBeUndefined();
    // reads by the tier that answered: SQLite the first time, memory after, and the miss
    expect((await other.stats()).reads).toEqual([{ namespace: 'toc', memoryHits: 1, durableHits: 1, misses: 1 }]);
  });

  it('is bounded by maxMemoryEntries and maxMemoryMB while SQLite keeps everything', async () => {
    const byCount = openStore({ maxMemoryEntries: 3 });
    for (let i = 0; i < 10; i++) await byCount.set('pages', `p${i}`, `page ${i}`);
    expect(await byCount.stats()).toMatchObject({ memoryEntries: 3, durableEntries: 10 });
    expect((await byCount.get('pages', 'p0'))?.value).toBe('page 0');

    const bySize = openStore({ maxMemoryMB: 1 });
    for (let i = 0; i < 8; i++) await bySize.set('pages', `p${i}`, 'x'.repeat(300 * 1024));
    const stats = await bySize.stats();
    expect(stats.memoryEntries).toBeLessThanOrEqual(3);
    expect(stats.durableEntries).toBe(8);
  });

  it('counts text beyond Latin-1 at two bytes a character against maxMemoryMB', async () => {
    // 200 K characters: 200 KB as ASCII, 400 KB in memory as UTF-16 (its UTF-8 form is 600 KB on disk)
    const ascii = openStore({ maxMemoryMB: 1 });
    for (let i = 0; i < 4; i++) await ascii.set('pages', `p${i}`, 'x'.repeat(200 * 1024));
    expect((await ascii.stats()).memoryEntries).toBe(4);
    const wide = openStore({ maxMemoryMB: 1 });
    for (let i = 0; i < 4; i++) await wide.set('pages', `p${i}`, '\u2192'.repeat(200 * 1024));
    expect(await wide.stats()).toMatchObject({ memoryEntries: 2, durableEntries: 4 });
    expect((await wide.get('pages', 'p0'))?.value).toBe('\u2192'.repeat(200 * 1024));
  });

  it('keeps values written or read with memory: false out of the memory tier, and serves them from SQLite', async () => {
    const dir = tempDir();
    const store = openStore({ directory: dir });
    await store.set('chunks', 'lib@1#0', [{ body: 'a' }]);
    expect((await store.stats()).memoryEntries).toBe(1);
    // written again through to SQLite only: the memory copy of the old value goes
    await store.set('chunks', 'lib@1#0', [{ body: 'b' }], { memory: false });
    await store.set('chunks', 'lib@1#1', [{ body: 'c' }], { memory: false });
    expect(await store.stats()).toMatchObject({ memoryEntries: 0, durableEntries: 2 });
    expect((await store.get('chunks', 'lib@1#0', { memory: false }))?.value).toEqual([{ body: 'b' }]);
    expect((await store.stats()).memoryEntries).toBe(0);
    // an ordinary read of the same key fills the memory tier; a memory: false read is then answered from it
    expect((await store.get('chunks', 'lib@1#1'))?.value).toEqual([{ body: 'c' }]);
    expect((await store.get('chunks', 'lib@1#1', { memory: false }))?.value).toEqual([{ body: 'c' }]);
    expect((await store.stats()).memoryEntries).toBe(1);
    expect((await store.stats()).reads).toEqual([{ namespace: 'chunks', memoryHits: 1, durableHits: 2, misses: 0 }]);
    // a second process reads what the first wrote
    const other = openStore({ directory: dir });
    expect((await other.get('chunks', 'lib@1#0', { memory: false }))?.value).toEqual([{ body: 'b' }]);
  });

  it('stores bytes written with or without the memory tier as they were when set, whatever the caller does next', async () => {
    const store = openStore();
    // a view into a larger buffer, as a worker's transferred index or a pooled Buffer is
    const whole = new Uint8Array(64).map((_, i) => i);
    const view = whole.subarray(8, 40);
    await store.set('index', 'through', view, { memory: false });
    await store.set('index', 'kept', view);
    const buffer = Buffer.from('snapshot bytes');
    await store.set('index', 'buffer', buffer, { memory: false });
    whole.fill(0);
    buffer.fill(0);
    const expected = Uint8Array.from({ length: 32 }, (_, i) => i + 8);
    expect((await store.get('index', 'through'))?.value).toEqual(expected);
    expect((await store.get('index', 'kept'))?.value).toEqual(expected);
    const read = (await store.get('index', 'buffer'))?.value;
    expect(Buffer.isBuffer(read) && read.toString()).toBe('snapshot bytes');
  });

  it('gives every reader bytes of its own, from the memory tier or from SQLite', async () => {
    // 600 KB: over the memory tier's largest entry (512 KB), so read from SQLite every time
    const store = openStore();
    const big = new Uint8Array(600 * 1024).fill(7);
    await store.set('index', 'big', big);
    await store.set('index', 'small', new Uint8Array([1, 2, 3]));
    await store.set('index', 'buffer', Buffer.from('abc'));
    for (const options of [{}, { memory: false }]) {
      for (const key of ['big', 'small', 'buffer']) {
        const first = (await store.get<Uint8Array>('index', key, options))?.value as Uint8Array;
        const copy = Uint8Array.from(first);
        first.fill(0);
        expect(
          (await store.get<Uint8Array>('index', key, options))?.value,
          `${key} ${JSON.stringify(options)}`,
        ).toEqual(Buffer.isBuffer(first) ? Buffer.from(copy) : copy);
      }
    }
  });
});

describe('SqliteCacheStore: keys, delete, clear, stats', () => {
  it('lists keys by literal prefix (LIKE and GLOB characters are not wildcards)', async () => {
    const store = openStore();
    for (const key of ['lib@1/a', 'lib@1/b', 'lib@10/a', 'lib_1/a', 'lib%1/a', 'other'])
      await store.set('chunks', key, 1);
    await store.set('pages', 'lib@1/x', 1);
    expect(await store.keys('chunks', 'lib@1/')).toEqual(['lib@1/a', 'lib@1/b']);
    expect(await store.keys('chunks', 'lib_')).toEqual(['lib_1/a']);
    expect(await store.keys('chunks', 'lib%')).toEqual(['lib%1/a']);
    expect(await store.keys('chunks')).toHaveLength(6);
  });

  it('deletes from both tiers and clears one namespace or all', async () => {
    const store = openStore();
    await store.set('chunks', 'a', 1);
    await store.set('chunks', 'b', 2);
    await store.set('pages', 'p', 3);
    expect(await store.delete('chunks', 'a')).toBe(true);
    expect(await store.delete('chunks', 'a')).toBe(false);
    expect(await store.get('chunks', 'a')).toBeUndefined();
    expect(await store.clear('chunks')).toBe(1);
    expect(await store.get('chunks', 'b')).toBeUndefined();
    expect((await store.get('pages', 'p'))?.value).toBe(3);
    expect(await store.clear()).toBe(1);
    expect(await store.stats()).toMatchObject({ memoryEntries: 0, durableEntries: 0, durableBytes: 0 });
  });

  it('reports entries, bytes, hits, misses and hit rate', async () => {
    const store = openStore();
    expect((await store.stats()).hitRate).toBe(0);
    await store.set('pages', 'a', 'x'.repeat(1000));
    await store.set('pages', 'a', 'y'.repeat(2000)); // an overwrite replaces the bytes, not adds to them
    await store.set('pages', 'b', 'z');
    await store.get('pages', 'a');
    await store.get('pages', 'b');
    await store.get('pages', 'b');
    await store.get('pages', 'missing');
    const stats = await store.stats();
    expect(stats).toMatchObject({ durableEntries: 2, memoryEntries: 2, hits: 3, misses: 1, hitRate: 0.75 });
    expect(stats.durableBytes).toBeGreaterThanOrEqual(2001);
    expect(stats.durableBytes).toBeLessThan(2100);
  });
});

describe('SqliteCacheStore: size-bounded eviction', () => {
  const KB = 1024;

  it('stays under maxSizeMB, evicting expired entries first, then the least recently accessed', async () => {
    const clock = fakeClock();
    const { logger, records } = recordingLogger();
    // room for 4 entries, not 5; every entry here was used moments ago, so none is kept as in use
    const store = openStore({ maxSizeMB: 88 / 1024, keepInUseSeconds: 0 }, { now: clock.now, logger });
    const value = 'v'.repeat(20 * KB);
    await store.set('pages', 'expired', value, { ttlMs: 1000 });
    for (const key of ['a', 'b', 'c']) {
      clock.advance(1000);
      await store.set('pages', key, value);
    }
    clock.advance(1000);
    await store.get('pages', 'expired', { allowStale: true }); // recently read, but expired: still goes first
    await store.get('pages', 'a'); // a is now more recent than b and c
    clock.advance(1000);
    await store.set('pages', 'd', value); // over the limit: evicts down to 90 %

    expect((await store.stats()).durableBytes).toBeLessThanOrEqual(0.9 * 88 * KB);
    expect(await store.get('pages', 'expired', { allowStale: true })).toBeUndefined();
    expect(await store.keys('pages')).toEqual(['a', 'c', 'd']); // b was the least recently accessed
    expect(records.some((r) => r.msg.includes('evicted'))).toBe(true);
  });

  it('keeps the entries in use (keepInUseSeconds) over maxSizeMB, says to raise it, and evicts them once idle', async () => {
    const clock = fakeClock();
    const { logger, records } = recordingLogger();
    const store = openStore({ maxSizeMB: 88 / 1024, keepInUseSeconds: 60 }, { now: clock.now, logger });
    const value = 'v'.repeat(20 * KB);
    await store.set('chunks', 'old', value);
    clock.advance(120_000);
    // a library being written: five blocks in a few seconds, more than the budget holds
    for (const key of ['b0', 'b1', 'b2', 'b3', 'b4']) {
      clock.advance(1000);
      await store.set('chunks', key, value);
    }
    expect(await store.keys('chunks')).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']); // only the idle one went
    expect((await store.stats()).durableBytes).toBeGreaterThan(88 * KB);
    const warnings = records.filter((r) => r.level === 'warn' && r.msg.includes('Raise cache.maxSizeMB'));
    expect(warnings).toHaveLength(1); // once, not at every write
    // a minute on, b0..b3 are no longer in use: evicted, least recently used first, down to 90 %
    clock.advance(61_000);
    await store.get('chunks', 'b1');
    await store.set('chunks', 'next', value);
    expect((await store.stats()).durableBytes).toBeLessThanOrEqual(0.9 * 88 * KB);
    expect(await store.keys('chunks')).toEqual(['b1', 'b4', 'next']); // b0, b2, b3: the least recently used
  });

  it('records the access times of many reads in slices, handing the thread back between them', async () => {
    const clock = fakeClock();
    const store = openStore({}, { now: clock.now });
    const dir = store.options.directory;
    const count = 600; // over the 512 pending access times that start a write
    for (let i = 0; i < count; i++) await store.set('chunks', `k${i}`, `value ${i}`);
    const db = raw(dir);
    const atBefore = (db.prepare('SELECT max(accessed_at) AS t FROM entries').get() as { t: number }).t;
    clock.advance(HOUR);
    for (let i = 0; i < count; i++) await store.get('chunks', `k${i}`);
    const since = () =>
      (db.prepare('SELECT count(*) AS n FROM entries WHERE accessed_at > ?').get(atBefore) as { n: number }).n;
    expect(since()).toBe(0); // nothing written inside the reads themselves
    await new Promise((resolve) => setImmediate(resolve));
    const afterOneTurn = since();
    expect(afterOneTurn).toBeGreaterThan(0);
    expect(afterOneTurn).toBeLessThan(count); // a slice, then other work gets its turn
    for (let turn = 0; turn < 50 && since() < count; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(since()).toBe(count); // every access time recorded, without waiting for the 10 s timer or close()
    db.close();
  });

  it('evicts on cleanup() what other processes wrote past the limit', async () => {
    const dir = tempDir();
    const big = openStore({ directory: dir, maxSizeMB: 10 });
    for (let i = 0; i < 6; i++) await big.set('pages', `p${i}`, 'x'.repeat(29 * KB));
    const small = openStore({ directory: dir, maxSizeMB: 100 / 1024, keepInUseSeconds: 0 });
    const result = await small.cleanup();
    expect(result.evicted).toBe(3);
    expect(result.bytesFreed).toBeGreaterThanOrEqual(3 * 29 * KB);
    expect((await small.stats()).durableBytes).toBeLessThanOrEqual(90 * KB);
  });
});

describe('SqliteCacheStore: space on disk', () => {
  it('reports the bytes its files take and those no entry uses, and compact() gives those back', async () => {
    const store = openStore();
    for (let i = 0; i < 8; i++) await store.set('chunks', `block-${i}`, Buffer.alloc(512 * 1024, i));
    const full = await store.stats();
    expect(full.fileBytes).toBeGreaterThanOrEqual(4 * 2 ** 20);
    expect(full.freeBytes).toBeLessThan(2 ** 20);
    expect(await store.clear()).toBe(8);
    const cleared = await store.stats();
    expect(cleared.durableBytes).toBe(0);
    expect(cleared.freeBytes).toBeGreaterThanOrEqual(3 * 2 ** 20); // the file keeps its size, the pages are free
    const result = await store.compact();
    expect(result.fileBytesBefore).toBeGreaterThanOrEqual(4 * 2 ** 20);
    expect(result.fileBytesAfter).toBeLessThan(2 ** 20);
    const compacted = await store.stats();
    expect(compacted.fileBytes).toBe(result.fileBytesAfter);
    expect(compacted.freeBytes).toBe(0);
    // and the store goes on working
    await store.set('chunks', 'again', 'value');
    expect((await store.get('chunks', 'again'))?.value).toBe('value');
  });

  it('answers CACHE_BUSY, losing nothing, when another process is writing', async () => {
    const store = openStore({ busyTimeoutMs: 100 });
    await store.set('pages', 'kept', 'value');
    const other = raw(store.options.directory);
    other.exec('BEGIN IMMEDIATE');
    try {
      const error = await rejection(store.compact());
      expect(isProContextError(error) && error.code).toBe('CACHE_BUSY');
      expect(isProContextError(error) && error.suggestion).toMatch(/Try again/);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await store.get('pages', 'kept'))?.value).toBe('value');
  });
});

describe('SqliteCacheStore: checkpoints in a worker thread (checkpointInWorker)', () => {
  const MB = 2 ** 20;
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 25));
  };

  it('the writing connection never checkpoints: a worker copies the log into cache.db every ~4 MB written', async () => {
    const store = openStore({ checkpointInWorker: true });
    store.open();
    const db = (store as unknown as { db: Database.Database }).db;
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const checkpoints = () => (store as unknown as { checkpointer: { checkpoints: number } }).checkpointer.checkpoints;
    for (let i = 0; i < 10; i++) await store.set('chunks', `block-${i}`, Buffer.alloc(MB, i), { memory: false });
    await until(() => checkpoints() >= 2);
    expect(checkpoints()).toBeGreaterThanOrEqual(2);
    // what the worker copied is in the database file itself, while the store still writes and reads
    expect(statSync(store.file).size).toBeGreaterThanOrEqual(7 * MB);
    expect((await store.get<Buffer>('chunks', 'block-3'))?.value.equals(Buffer.alloc(MB, 3))).toBe(true);
  });

  it('a worker that cannot start hands the checkpoints back to SQLite, with a warning, and loses nothing', async () => {
    const { logger, records } = recordingLogger();
    const missing = new URL('file:///nonexistent/checkpoint-worker.js');
    const store = openStore({ checkpointInWorker: true }, { logger, checkpointScript: missing });
    for (let i = 0; i < 6; i++) await store.set('chunks', `block-${i}`, Buffer.alloc(MB, i), { memory: false });
    await until(() => records.some((r) => r.msg.includes('checkpoint worker failed')));
    expect(records.filter((r) => r.level === 'warn' && r.msg.includes('checkpoint worker failed'))).toHaveLength(1);
    const db = (store as unknown as { db: Database.Database }).db;
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(250);
    for (let i = 0; i < 6; i++) expect((await store.get<Buffer>('chunks', `block-${i}`))?.value[0]).toBe(i);
  });

  it('by default (checkpointInWorker false), SQLite checkpoints inside the writes, every 1 MB of log', async () => {
    const store = openStore();
    store.open();
    const db = (store as unknown as { db: Database.Database }).db;
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(250);
    for (let i = 0; i < 6; i++) await store.set('chunks', `block-${i}`, Buffer.alloc(MB, i), { memory: false });
    // checkpointed as it went: the data is in the database file, and the log never held much more than 1 MB
    expect(statSync(store.file).size).toBeGreaterThanOrEqual(4 * MB);
  });
});

describe('SqliteCacheStore: the database file', () => {
  it('does no I/O until opened, then creates the directory and one WAL-mode cache.db', async () => {
    const dir = join(tempDir(), 'nested', 'cache');
    const store = openStore({ directory: dir });
    expect(existsSync(dir)).toBe(false);
    expect(store.file).toBe(join(dir, 'cache.db'));
    store.open();
    expect(existsSync(join(dir, 'cache.db'))).toBe(true);
    const db = raw(dir);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('expands ~ to the home directory', () => {
    expect(new SqliteCacheStore({ directory: '~/pc-cache' }).file).toBe(join(homedir(), 'pc-cache', 'cache.db'));
    expect(new SqliteCacheStore().file).toBe(join(homedir(), '.pro-context', 'cache', 'cache.db'));
  });

  it('opens lazily on first use, and works in memory with directory ":memory:"', async () => {
    const store = openStore({ directory: ':memory:' });
    await store.set('toc', 'k', [1]);
    expect((await store.get('toc', 'k'))?.value).toEqual([1]);
    expect(store.file).toBe(':memory:');
  });

  it('records migrations once and re-opens an existing file unchanged', async () => {
    const dir = tempDir();
    const first = openStore({ directory: dir });
    await first.set('toc', 'k', 'v');
    await first.close();
    const second = openStore({ directory: dir });
    expect((await second.get('toc', 'k'))?.value).toBe('v');
    await second.close();
    const db = raw(dir);
    const rows = db.prepare('SELECT version, name FROM schema_migrations').all();
    db.close();
    expect(rows).toEqual([
      { version: 1, name: 'entries' },
      { version: SCHEMA_VERSION, name: 'value parts' },
    ]);
  });

  it('brings a file of the first schema up to date and keeps its entries', async () => {
    const dir = tempDir();
    const first = openStore({ directory: dir });
    await first.set('toc', 'k', { title: 'kept' });
    await first.close();
    // the file as the first release left it
    const db = raw(dir);
    db.exec(
      `DROP TRIGGER entries_after_delete_parts; DROP TRIGGER entries_after_update_parts; DROP TABLE parts;
       DELETE FROM schema_migrations WHERE version = 2;`,
    );
    db.close();
    const second = openStore({ directory: dir });
    expect((await second.get('toc', 'k'))?.value).toEqual({ title: 'kept' });
    const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
    await second.set('index', 'big', big, { memory: false });
    expect((await second.get('index', 'big'))?.value).toEqual(big);
  });

  it('refuses a database from a newer schema version, with a clear error', async () => {
    const dir = tempDir();
    await openStore({ directory: dir }).set('toc', 'k', 'v');
    const db = raw(dir);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(99, 'future', 0);
    db.close();
    const error = await rejection(openStore({ directory: dir }).get('toc', 'k'));
    expect(isProContextError(error) && error.code).toBe('CONFIG_INVALID');
    expect((error as Error).message).toMatch(/schema version 99, newer than this plugin understands/);
  });

  it('reports a file that is not a SQLite database', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'cache.db'), 'this is not a database, just text long enough to have a header'.repeat(20));
    const store = openStore({ directory: dir });
    expect(() => store.open()).toThrow(/Cannot open the cache database/);
  });

  it('treats an entry whose bytes fail their checksum as a miss and deletes it', async () => {
    const dir = tempDir();
    const writer = openStore({ directory: dir });
    await writer.set('pages', 'bad', 'original text');
    await writer.set('pages', 'good', 'fine');
    await writer.close();
    const db = raw(dir);
    db.prepare("UPDATE entries SET value = CAST('tampered text' AS BLOB) WHERE key = 'bad'").run();
    db.close();

    const { logger, records } = recordingLogger();
    const reader = openStore({ directory: dir }, { logger });
    expect(await reader.get('pages', 'bad', { allowStale: true })).toBeUndefined();
    expect((await reader.get('pages', 'good'))?.value).toBe('fine');
    expect(await reader.keys('pages')).toEqual(['good']);
    expect(records.find((r) => r.msg.includes('corrupt'))).toMatchObject({ level: 'warn', key: 'bad' });
  });

  it('stores a value larger than 1 MB in parts, and reads, replaces, deletes and checks it whole', async () => {
    const dir = tempDir();
    const store = openStore({ directory: dir });
    // 2.5 MB of bytes (three parts) and a 1.5 MB JSON table (two parts)
    const big = new Uint8Array(2.5 * 1024 * 1024).map((_, i) => (i * 7) % 256);
    const table = { rows: Array.from({ length: 30_000 }, (_, i) => ({ id: `chunk-${i}`, text: 'x'.repeat(30) })) };
    await store.set('index', 'snapshot', big, { memory: false });
    await store.set('docs', 'manifest', table);
    await store.set('index', 'small', new Uint8Array([1, 2, 3]));
    const partsOf = (key: string) => {
      const db = raw(dir);
      const row = db
        .prepare<[string], { parts: number; inline: number }>(
          `SELECT (SELECT count(*) FROM parts WHERE value_group = CAST(CAST(e.value AS TEXT) AS INTEGER)) AS parts,
             length(e.value) = e.value_length AS inline FROM entries e WHERE key = ?`,
        )
        .get(key);
      db.close();
      return row;
    };
    expect(partsOf('snapshot')).toEqual({ parts: 3, inline: 0 });
    expect(partsOf('manifest')).toEqual({ parts: 2, inline: 0 });
    expect(partsOf('small')).toEqual({ parts: 0, inline: 1 });
    // read back after a restart, whole
    const reader = openStore({ directory: dir });
    expect((await reader.get('index', 'snapshot'))?.value).toEqual(big);
    expect((await reader.get('docs', 'manifest'))?.value).toEqual(table);
    expect((await reader.stats()).durableBytes).toBeGreaterThan(big.byteLength + 1024 * 1024);
    // replaced by a small value: its parts go; deleted: so do the others'
    await reader.set('index', 'snapshot', new Uint8Array([9]), { memory: false });
    expect(partsOf('snapshot')).toEqual({ parts: 0, inline: 1 });
    expect((await reader.get('index', 'snapshot'))?.value).toEqual(new Uint8Array([9]));
    // replaced by another large value: only the new parts remain
    await reader.set('index', 'snapshot', big.slice().reverse(), { memory: false });
    expect(partsOf('snapshot')).toEqual({ parts: 3, inline: 0 });
    await reader.delete('docs', 'manifest');
    const db = raw(dir);
    expect(db.prepare('SELECT count(*) AS n FROM parts').get()).toEqual({ n: 3 });
    db.close();
    await reader.clear();
    const cleared = raw(dir);
    expect(cleared.prepare('SELECT count(*) AS n FROM parts').get()).toEqual({ n: 0 });
    cleared.close();
  });

  it('writes a large value a few parts at a time: others are answered meanwhile and see the old value whole', async () => {
    const store = openStore();
    const old = new Uint8Array(3 * 1024 * 1024).fill(1);
    const next = new Uint8Array(12 * 1024 * 1024).fill(2);
    await store.set('index', 'snapshot', old, { memory: false });
    let settled = false;
    const writing = store.set('index', 'snapshot', next, { memory: false }).then(() => {
      settled = true;
    });
    // the write yields between its transactions: a read gets its turn before it ends, and sees the old value
    const during = (await store.get<Uint8Array>('index', 'snapshot'))?.value;
    expect(settled).toBe(false);
    // (compared as Buffers: a failing toEqual of 12 MB arrays would take minutes to print)
    const same = (a: Uint8Array | undefined, b: Uint8Array) => a !== undefined && Buffer.from(a).equals(Buffer.from(b));
    expect(same(during, old)).toBe(true);
    await writing;
    expect(same((await store.get<Uint8Array>('index', 'snapshot'))?.value, next)).toBe(true);
  });

  it('gives two processes writing large values in the same millisecond groups of their own', async () => {
    const clock = fakeClock();
    const dir = tempDir();
    const one = openStore({ directory: dir }, { now: clock.now });
    const two = openStore({ directory: dir }, { now: clock.now });
    const a = new Uint8Array(6 * 1024 * 1024).fill(4);
    const b = new Uint8Array(6 * 1024 * 1024).fill(5);
    // the same clock, their writes interleaved turn by turn
    await Promise.all([
      one.set('index', 'a', a, { ttlMs: 0, memory: false }),
      two.set('index', 'b', b, { ttlMs: 0, memory: false }),
    ]);
    const same = (x: Uint8Array | undefined, y: Uint8Array) => x !== undefined && Buffer.from(x).equals(Buffer.from(y));
    const reader = openStore({ directory: dir });
    expect(same((await reader.get<Uint8Array>('index', 'a'))?.value, a)).toBe(true);
    expect(same((await reader.get<Uint8Array>('index', 'b'))?.value, b)).toBe(true);
  });

  it('cleans up parts no entry names once they are an hour old (a writer died before its entry)', async () => {
    const clock = fakeClock();
    const dir = tempDir();
    const store = openStore({ directory: dir }, { now: clock.now });
    const kept = new Uint8Array(2 * 1024 * 1024).fill(3);
    await store.set('index', 'kept', kept, { ttlMs: 0, memory: false });
    const db = raw(dir);
    db.prepare('INSERT INTO parts (value_group, n, bytes) VALUES (?, ?, ?)').run(
      clock.now() * 1000 + 999,
      0,
      Buffer.from('orphan of a writer that died'),
    );
    const count = () => (db.prepare('SELECT count(*) AS n FROM parts').get() as { n: number }).n;
    expect(count()).toBe(3);
    // not an hour old yet: another process may still be writing its entry
    await store.cleanup();
    expect(count()).toBe(3);
    clock.advance(HOUR + 1000);
    await store.cleanup();
    expect(count()).toBe(2);
    db.close();
    expect((await store.get<Uint8Array>('index', 'kept'))?.value).toEqual(kept);
  });

  it('drops a value whose parts were damaged, as a miss', async () => {
    const dir = tempDir();
    const writer = openStore({ directory: dir });
    await writer.set('index', 'snapshot', new Uint8Array(2 * 1024 * 1024 + 10).fill(5), { memory: false });
    await writer.set('index', 'short', new Uint8Array(2 * 1024 * 1024 + 10).fill(6), { memory: false });
    await writer.close();
    const db = raw(dir);
    const group = (key: string) => `(SELECT CAST(CAST(value AS TEXT) AS INTEGER) FROM entries WHERE key = '${key}')`;
    db.prepare(
      `UPDATE parts SET bytes = CAST('tampered' AS BLOB) WHERE n = 1 AND value_group = ${group('snapshot')}`,
    ).run();
    db.prepare(`DELETE FROM parts WHERE n = 2 AND value_group = ${group('short')}`).run();
    db.close();
    const { logger, records } = recordingLogger();
    const reader = openStore({ directory: dir }, { logger });
    expect(await reader.get('index', 'snapshot')).toBeUndefined();
    expect(await reader.get('index', 'short')).toBeUndefined();
    expect(await reader.keys('index')).toEqual([]);
    expect(records.filter((r) => r.msg.includes('corrupt'))).toHaveLength(2);
    const check = raw(dir);
    expect(check.prepare('SELECT count(*) AS n FROM parts').get()).toEqual({ n: 0 });
    check.close();
  });

  it('closes idempotently; a closed store refuses further use', async () => {
    const store = openStore();
    await store.set('toc', 'k', 1);
    await store.close();
    await store.close();
    const error = await rejection(store.get('toc', 'k'));
    expect(isProContextError(error) && error.code).toBe('KERNEL_STATE');
  });
});

describe('memory tier and big values', () => {
  it('keeps values over maxMemoryEntryKB out of memory, and still serves them from SQLite', async () => {
    const store = openStore({ maxMemoryEntryKB: 1 });
    const big = 'x'.repeat(4096);
    await store.set('docs', 'lib@1', { chunks: [big] });
    await store.set('toc', 'lib@1', { entries: ['small'] });
    expect((await store.stats()).memoryEntries).toBe(1);
    expect((await store.get<{ chunks: string[] }>('docs', 'lib@1'))?.value.chunks[0]).toBe(big);
    expect((await store.stats()).memoryEntries).toBe(1);
  });
});
