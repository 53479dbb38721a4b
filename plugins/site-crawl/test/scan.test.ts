import { describe, expect, it } from 'vitest';
import { atxTitle, sitemapLocTexts, withoutHeadingId } from '../src/scan.js';

/** Random strings over the characters the replaced regexes care about (seeded: the same cases on every run). */
function* samples(alphabet: string[], count: number): Generator<string> {
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

const LOC = /<(?:\w+:)?loc>\s*(?:<!\[CDATA\[)?([\s\S]*?)(?:\]\]>)?\s*<\/(?:\w+:)?loc>/gi;

describe('linear scans give what the regexes they replace gave', () => {
  it('atxTitle and withoutHeadingId', () => {
    for (const s of samples(['#', ' ', '\t', 'a', '{#', '}', '{', '\r', '\u2028'], 20_000)) {
      expect(atxTitle(s), JSON.stringify(s)).toBe(/^#\s+(.+?)\s*#*\s*$/.exec(s)?.[1]);
      expect(withoutHeadingId(s), JSON.stringify(s)).toBe(s.replace(/\s*\{#[^}]*\}\s*$/, ''));
    }
  });

  it('sitemapLocTexts', () => {
    const parts = ['<loc>', '<s:LOC>', '</loc>', '</x:loc>', '<![CDATA[', ']]>', ' ', '\n', 'u', '<', ']'];
    for (const s of samples(parts, 20_000))
      expect(sitemapLocTexts(s), JSON.stringify(s)).toEqual([...s.matchAll(LOC)].map((m) => m[1]));
  });

  it('finishes on inputs that made the regexes backtrack for long (50,000 repeats)', () => {
    const n = 50_000;
    expect(atxTitle(`# a${' '.repeat(n)}\rb`)).toBeUndefined();
    expect(atxTitle(`# ${'a '.repeat(n)}# `)).toBe(`${'a '.repeat(n)}`.trimEnd());
    expect(withoutHeadingId(`x${' '.repeat(n)}{#`)).toBe(`x${' '.repeat(n)}{#`);
    expect(withoutHeadingId(`x${'{#'.repeat(n)}}`)).toBe('x');
    expect(sitemapLocTexts('<loc>'.repeat(n))).toEqual([]);
    expect(sitemapLocTexts(`${'<loc>'.repeat(n)}u</loc>`)).toEqual([`${'<loc>'.repeat(n - 1)}u`]);
  });
});
