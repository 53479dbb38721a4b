import { describe, expect, it } from 'vitest';
import { adornmentOf, jsdocTag, linksAsCode } from '../src/scan.js';

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

describe('linear scans give what the regexes they replace gave', () => {
  it('linksAsCode', () => {
    for (const s of samples(['{@link', ' ', '\n', '}', '|', 'a', '{', '\u00a0'], 30_000))
      expect(linksAsCode(s), JSON.stringify(s)).toBe(s.replace(/\{@link\s+([^}|\s]+)(?:[|\s][^}]*)?\}/g, '`$1`'));
  });

  it('jsdocTag and adornmentOf', () => {
    for (const s of samples(['@', 'a', '_', '9', ' ', '\r', '\u2028', '=', '-', ':', '\t', 'é'], 30_000)) {
      const label = JSON.stringify(s);
      const m = /^@(\w+)\s*(.*)$/.exec(s);
      expect(jsdocTag(s), label).toEqual(m ? { name: m[1], text: m[2] } : undefined);
      expect(adornmentOf(s), label).toBe(/^([=\-~^"'`#*+<>:._])\1{2,}\s*$/.exec(s)?.[1]);
    }
  });

  it('finishes on inputs that made the regexes backtrack for long (50,000 repeats)', () => {
    const n = 50_000;
    expect(linksAsCode('{@link a '.repeat(n))).toBe('{@link a '.repeat(n));
    expect(linksAsCode(`${'{@link a '.repeat(n)}}`)).toBe('`a`');
    expect(jsdocTag(`@${'a'.repeat(n)} x\r`)).toBeUndefined();
    expect(jsdocTag(`@param ${' '.repeat(n)}x`)).toEqual({ name: 'param', text: 'x' });
    expect(adornmentOf(`==${' '.repeat(n)}x`)).toBeUndefined();
  });
});
