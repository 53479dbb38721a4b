import { describe, expect, it } from 'vitest';
import { replaceBracketLinks, replaceTags } from '../src/markdown/inline-scan.js';
import { headingPlainText, inlinePlainText, slugify } from '../src/markdown/slug.js';

/** Random strings over the characters the replaced regexes care about (seeded: the same cases on every run). */
function* samples(alphabet: string[], count: number): Generator<string> {
  let seed = 25;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  for (let n = 0; n < count; n++) {
    const len = Math.floor(next() * 14);
    let s = '';
    for (let i = 0; i < len; i++) s += alphabet[Math.floor(next() * alphabet.length)];
    yield s;
  }
}

describe('linear scans give what the regexes they replace gave', () => {
  it('replaceBracketLinks', () => {
    for (const s of samples(['[', ']', '(', ')', '!', '![', 'a', '$1', '\n'], 40_000)) {
      const label = JSON.stringify(s);
      expect(
        replaceBracketLinks(s, true, '(', () => ''),
        label,
      ).toBe(s.replace(/!\[([^\]]*)\]\([^)]*\)/g, ''));
      expect(
        replaceBracketLinks(s, false, '(', (l) => l),
        label,
      ).toBe(s.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
      expect(
        replaceBracketLinks(s, false, '[', (l) => l),
        label,
      ).toBe(s.replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1'));
    }
  });

  it('replaceTags', () => {
    for (const s of samples(['<', '</', '>', 'a', 'Z', '1', ' ', '/'], 40_000)) {
      expect(replaceTags(s, ''), JSON.stringify(s)).toBe(s.replace(/<\/?[A-Za-z][^>]*>/g, ''));
      expect(replaceTags(s, ' '), JSON.stringify(s)).toBe(s.replace(/<\/?[A-Za-z][^>]*>/g, ' '));
    }
  });

  it('finishes on headings that made the regexes retry for long (50,000 repeats), with the same result', () => {
    const n = 50_000;
    const brackets = `Title ${'[a'.repeat(n)}`;
    expect(headingPlainText(brackets)).toBe(brackets);
    const links = `${'[a]('.repeat(n)}`;
    expect(headingPlainText(links)).toBe(links);
    const refs = `[a][${'x['.repeat(n)}`;
    expect(headingPlainText(refs)).toBe(refs);
    const tags = `Title ${'<a'.repeat(n)}`;
    expect(headingPlainText(tags)).toBe(tags);
    expect(slugify(tags)).toBe(`title-${'a'.repeat(n)}`);
    expect(inlinePlainText(`${'<a '.repeat(n)}`)).toBe(`${'<a '.repeat(6_666)}<a`);
  });
});
