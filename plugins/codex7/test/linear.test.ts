import { describe, expect, it } from 'vitest';
import { pageOf } from '../src/library.js';

// issue #25: `pageOf` replaced `url.replace(/#.*$/, '')`, which retried `.*$` from every `#` (quadratic on a long run
// of them followed by a line break). Same result as the regex, in one scan.
const before = (url: string) => url.replace(/#.*$/, '');

describe('pageOf (the URL without its fragment) gives what the regex gave, in linear time', () => {
  it.each([
    'https://docs.example.dev/a.md',
    'https://docs.example.dev/a.md#docker',
    'https://docs.example.dev/a.md#x#y',
    '#only',
    '',
    'a#b\nc',
    'a#b\nc#d',
    'a\r#b',
    'a#b\u2028c#d\u2029e',
  ])('%j', (url) => {
    expect(pageOf(url)).toBe(before(url));
  });

  it('completes on 50,000 `#` before a line break (the regex took seconds) with the same result', () => {
    const hostile = `https://x.dev/${'#'.repeat(50_000)}\nend`;
    expect(pageOf(hostile)).toBe(hostile);
    expect(pageOf(`${hostile}#frag`)).toBe(hostile);
  });
});
