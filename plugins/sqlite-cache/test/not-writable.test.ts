import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, recordingLogger, tempDir } from './helpers.js';

/** `chattr +i`: a file even root cannot write (tests run as root here, which file modes do not stop). */
function immutable(paths: string[], on: boolean): boolean {
  try {
    execFileSync('chattr', [on ? '+i' : '-i', ...paths], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const canFreeze = (() => {
  const dir = tempDir();
  const ok = immutable([dir], true);
  if (ok) immutable([dir], false);
  return ok;
})();

describe('a cache that cannot be written', () => {
  it('a directory that cannot be created (under a regular file): served from memory, one CACHE_NOT_WRITABLE warning', async () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, 'not a folder');
    const { logger, records } = recordingLogger();
    const store = openStore({ directory: join(file, 'cache') }, { logger });
    store.open();
    expect(store.notWritable?.code).toBe('CACHE_NOT_WRITABLE');
    await store.set('toc', 'k', { a: 1 });
    expect((await store.get('toc', 'k'))?.value).toEqual({ a: 1 });
    await store.set('toc', 'k2', 'two');
    expect(records.filter((r) => r.level === 'warn')).toHaveLength(1);
    expect(records.find((r) => r.level === 'warn')?.msg).toMatch(
      /cannot be written \(.*ENOTDIR.*\): it is served from memory/,
    );
    await store.close();
  });

  it.skipIf(!canFreeze)(
    'a read-only cache (immutable files): its entries are read, new ones kept in memory, the file untouched',
    async () => {
      const dir = tempDir();
      const first = openStore({ directory: dir });
      await first.set('toc', 'kept', { v: 'from disk' });
      await first.close();
      const before = readFileSync(join(dir, 'cache.db'));
      expect(immutable([join(dir, 'cache.db'), dir], true)).toBe(true);
      try {
        const { logger, records } = recordingLogger();
        const store = openStore({ directory: dir }, { logger });
        store.open();
        expect(store.notWritable?.code).toBe('CACHE_NOT_WRITABLE');
        expect((await store.get('toc', 'kept'))?.value).toEqual({ v: 'from disk' });
        await store.set('toc', 'new', { v: 'in memory' });
        expect((await store.get('toc', 'new'))?.value).toEqual({ v: 'in memory' });
        expect(await store.delete('toc', 'kept')).toBe(true);
        await store.close();
        expect(records.filter((r) => r.level === 'warn').map((r) => r.msg)).toEqual([
          expect.stringMatching(/a copy of what it holds/),
        ]);
        expect(readFileSync(join(dir, 'cache.db')).equals(before)).toBe(true);
      } finally {
        immutable([dir, join(dir, 'cache.db')], false);
      }
    },
  );
});
