import { describe, expect, it } from 'vitest';
import {
  atxTitle,
  cutQueryAndHash,
  htmlTitleText,
  quoteText,
  replaceLastSegment,
  trimTrailingSlashes,
} from '../src/scan.js';

/** Random strings over the characters the replaced regexes care about (seeded: the same cases on every run). */
function* samples(alphabet: string[], count = 4000): Generator<string> {
  let seed = 25;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  for (let n = 0; n < count; n++) {
    const len = Math.floor(next() * 12);
    let s = '';
    for (let i = 0; i < len; i++) s += alphabet[Math.floor(next() * alphabet.length)];
    yield s;
  }
}

describe('linear scans give what the regexes they replace gave', () => {
  it('trimTrailingSlashes, cutQueryAndHash, replaceLastSegment', () => {
    for (const s of samples(['/', '?', '#', 'a', '\n', '\r', '.'])) {
      expect(trimTrailingSlashes(s)).toBe(s.replace(/\/+$/, ''));
      expect(cutQueryAndHash(s)).toBe(s.replace(/[?#].*$/, ''));
      expect(replaceLastSegment(s, 'llms-full.txt')).toBe(s.replace(/[^/]*$/, 'llms-full.txt'));
    }
  });

  it('atxTitle and quoteText', () => {
    for (const s of samples(['#', ' ', '\t', 'a', '>', '\r', '\u2028', '\u00a0'], 20_000)) {
      expect(atxTitle(s), JSON.stringify(s)).toBe(/^#\s+(.+?)\s*#*$/.exec(s)?.[1]);
      expect(quoteText(s), JSON.stringify(s)).toBe(/^>\s*(.+)$/.exec(s)?.[1]);
    }
  });

  it('htmlTitleText', () => {
    for (const s of samples(['<title', '<TITLE ', '>', '<', '</title>', '</Title>', 'x', ' '], 20_000))
      expect(htmlTitleText(s), JSON.stringify(s)).toBe(/<title[^>]*>([^<]*)<\/title>/i.exec(s)?.[1]);
  });

  it('finishes on inputs that made the regexes backtrack for long (50,000 repeats)', () => {
    const n = 50_000;
    expect(trimTrailingSlashes(`${'/'.repeat(n)}x`)).toBe(`${'/'.repeat(n)}x`);
    expect(cutQueryAndHash(`${'?'.repeat(n)}\n`)).toBe(`${'?'.repeat(n)}\n`);
    expect(atxTitle(`# a${' '.repeat(n)}\rb`)).toBeUndefined();
    expect(atxTitle(`# ${'a '.repeat(n)}#`)).toBe(`${'a '.repeat(n)}`.trimEnd());
    expect(quoteText(`>${' '.repeat(n)}\r`)).toBeUndefined();
    expect(htmlTitleText('<title'.repeat(n))).toBeUndefined();
    expect(htmlTitleText(`${'<title>'.repeat(n)}x</title>`)).toBe('x');
  });
});
