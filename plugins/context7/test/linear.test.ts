import { describe, expect, it } from 'vitest';
import { normalizeLibraryKey, stripQuotes } from '../src/normalize.js';

// issue #25: the key normalizer's trailing-run regexes (`[\s"'…]+$`, `\/+$`, `@[^/]*$`) were retried from every
// position of a long run; the rewrites try a run only where it starts, or scan. Same results, linear time.
describe('library key normalization on pathological input (issue #25)', () => {
  it('strips 50,000 trailing quotes and spaces after a name, as before', () => {
    const hostile = `vercel/next.js${' "'.repeat(25_000)}x${' "'.repeat(25_000)}`;
    expect(stripQuotes(hostile)).toBe(`vercel/next.js${' "'.repeat(25_000)}x`);
    expect(stripQuotes(`'${'"'.repeat(50_000)}'`)).toBe('');
  });

  it('keeps stripping both ends the way the old pattern did', () => {
    const old = (t: string) => t.replace(/^[\s"'`‘’“”]+|[\s"'`‘’“”]+$/g, '');
    for (const t of ['  "a b"  ', '“x”', 'a', '', '   ', '"a" "b"', "'`a`'\n"]) expect(stripQuotes(t)).toBe(old(t));
  });

  it('normalizes 50,000 slashes and `@`s the same way as before', () => {
    expect(normalizeLibraryKey(`vercel/next.js${'/'.repeat(25_000)}x${'/'.repeat(25_000)}`)).toEqual({
      kind: 'key',
      key: 'vercel/next.js',
    });
    expect(normalizeLibraryKey(`org/repo${'@'.repeat(50_000)}`)).toEqual({ kind: 'key', key: 'org/repo' });
    expect(normalizeLibraryKey('org/repo@v1@x')).toEqual({ kind: 'key', key: 'org/repo' });
    expect(normalizeLibraryKey('//org//repo//')).toEqual({ kind: 'key', key: 'org/repo' });
    expect(normalizeLibraryKey(`${'/'.repeat(50_000)}`)).toEqual({ kind: 'shorthand', name: '' });
  });
});
