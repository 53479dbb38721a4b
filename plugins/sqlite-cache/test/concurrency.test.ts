import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteAccessStore } from '../src/index.js';
import { fakeClock, openStore, tempDir } from './helpers.js';

const require = createRequire(import.meta.url);
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the crash writer (TypeScript sources, run through a transpiling loader) on `dir`. */
function startWriter(dir: string, round: number): { child: ChildProcess; stderr: () => string } {
  const child = spawn(
    process.execPath,
    [
      '--conditions=source',
      '--import',
      join(fixtures, 'register-ts.mjs'),
      join(fixtures, 'crash-writer.ts'),
      dir,
      String(round),
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return { child, stderr: () => stderr };
}

/** Resolves once the child reports `count` completed iterations; rejects if it exits first. */
function waitForWrites(child: ChildProcess, count: number, stderr: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { written?: number }) => {
      if ((message.written ?? 0) >= count) {
        child.off('exit', onExit);
        child.off('message', onMessage);
        resolve();
      }
    };
    const onExit = (code: number | null) => reject(new Error(`writer exited early (${code}):\n${stderr()}`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

describe('SqliteCacheStore: crashes and concurrent writers', () => {
  it('never serves a torn entry after a writer process is SIGKILLed mid-write', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    // This process writes to the same file meanwhile: WAL plus the busy timeout let both proceed.
    const neighbour = openStore({ directory: dir, maxSizeMB: 4096 });
    let neighbourWrites = 0;
    for (let round = 0; round < 3; round++) {
      const { child, stderr } = startWriter(dir, round);
      await waitForWrites(child, 3 + round, stderr);
      const deadline = Date.now() + 10 + Math.random() * 60;
      while (Date.now() < deadline) {
        await neighbour.set('neighbour', `n${neighbourWrites}`, { n: neighbourWrites });
        neighbourWrites++;
        await sleep(1);
      }
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    await neighbour.close();

    const db = new Database(join(dir, 'cache.db'), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();

    const store = openStore({ directory: dir, maxSizeMB: 4096 });
    const blobKeys = await store.keys('blobs');
    expect(blobKeys.length).toBeGreaterThan(5);
    for (const key of blobKeys) {
      const entry = await store.get<Buffer>('blobs', key, { allowStale: true });
      expect(entry, key).toBeDefined();
      expect(createHash('sha256').update(entry!.value).digest('hex'), key).toBe(entry!.meta?.sha256);
    }
    for (const key of await store.keys('json')) {
      const entry = await store.get<{ items: string[]; count: number }>('json', key, { allowStale: true });
      const { round, i } = entry!.meta as { round: string; i: number };
      expect(entry!.value.items).toHaveLength(entry!.value.count);
      expect(entry!.value.items.every((item) => item.startsWith(`${round}:${i}:`))).toBe(true);
    }
    for (let n = 0; n < neighbourWrites; n++) {
      expect((await store.get('neighbour', `n${n}`))?.value).toEqual({ n });
    }
    const stats = await store.stats();
    expect(stats.durableEntries).toBe(blobKeys.length + (await store.keys('json')).length + neighbourWrites);
  });

  it("lets two stores share one file: each sees the other's writes, totals agree", async () => {
    const dir = tempDir();
    const a = openStore({ directory: dir });
    const b = openStore({ directory: dir });
    for (let i = 0; i < 100; i++) await (i % 2 === 0 ? a : b).set('pages', `k${i}`, { i });
    for (let i = 0; i < 100; i++) {
      expect((await a.get('pages', `k${i}`))?.value).toEqual({ i });
      expect((await b.get('pages', `k${i}`))?.value).toEqual({ i });
    }
    expect((await a.stats()).durableEntries).toBe(100);
    expect((await b.stats()).durableBytes).toBe((await a.stats()).durableBytes);
    await a.close(); // the WAL checkpoint on close must not disturb the other connection
    await b.set('pages', 'after', 1);
    expect(await b.keys('pages', 'after')).toEqual(['after']);
  });

  it('picks up an entry another store refreshed once its own memory copy has expired', async () => {
    const clock = fakeClock();
    const dir = tempDir();
    const a = openStore({ directory: dir }, { now: clock.now });
    const b = openStore({ directory: dir }, { now: clock.now });
    await a.set('versions', 'pkg', ['1.0.0'], { ttlMs: 1000 });
    expect((await a.get('versions', 'pkg'))?.value).toEqual(['1.0.0']);
    clock.advance(2000);
    await b.set('versions', 'pkg', ['1.0.0', '1.1.0'], { ttlMs: 1000 });
    expect((await a.get('versions', 'pkg'))?.value).toEqual(['1.0.0', '1.1.0']);
    await b.delete('versions', 'pkg');
    clock.advance(2000);
    expect(await a.get('versions', 'pkg', { allowStale: true })).toBeUndefined();
  });

  it('waits busyTimeoutMs for a lock held by another connection before failing', async () => {
    const dir = tempDir();
    const store = openStore({ directory: dir, busyTimeoutMs: 300 });
    store.open();
    const holder = new Database(join(dir, 'cache.db'));
    holder.exec('BEGIN IMMEDIATE');
    const started = performance.now();
    await expect(store.set('pages', 'k', 1)).rejects.toThrow(/locked|busy/i);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    holder.exec('ROLLBACK');
    holder.close();
    await store.set('pages', 'k', 1);
    expect((await store.get('pages', 'k'))?.value).toBe(1);
  });

  it('opens a new cache directory while another process holds its first write lock (two servers starting at once)', async () => {
    // SQLite refuses the switch of a new file to WAL at once, without waiting, while another process holds a
    // write lock on it in the old journal mode: that happens when two servers start on one new cache directory
    const dir = tempDir();
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require(${JSON.stringify(require.resolve('better-sqlite3'))}))(process.argv[1]);
         db.exec('BEGIN IMMEDIATE'); process.stdout.write('locked');
         setTimeout(() => { db.exec('COMMIT'); db.close(); }, 300);`,
        join(dir, 'cache.db'),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await once(holder.stdout!, 'data');
    const started = performance.now();
    const store = openStore({ directory: dir });
    store.open();
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    await store.set('pages', 'k', 1);
    expect((await store.get('pages', 'k'))?.value).toBe(1);
    const access = new SqliteAccessStore(dir);
    await access.add({ id: 'key_1', name: 'alice', hash: 'h'.repeat(64), createdAt: 1 });
    expect((await access.list()).map((key) => key.name)).toEqual(['alice']);
    access.close();
    await once(holder, 'exit');
  });
});
