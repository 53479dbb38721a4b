import { describe, expect, it } from 'vitest';
import { breakBetweenEcLines } from '../src/html/strip.js';

/** Random strings over the tokens the replaced regex cares about (seeded: the same cases on every run). */
function* samples(alphabet: string[], count: number): Generator<string> {
  let seed = 25;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  for (let n = 0; n < count; n++) {
    const len = Math.floor(next() * 10);
    let s = '';
    for (let i = 0; i < len; i++) s += alphabet[Math.floor(next() * alphabet.length)];
    yield s;
  }
}

const EC_LINE = /(<\/div>\s*)(<div\b[^>]*\bclass="[^"]*\bec-line\b)/gi;

describe('breakBetweenEcLines gives what the regex it replaces gave', () => {
  it('on seeded cases', () => {
    const tokens = [
      '</div>',
      '</DIV>',
      ' ',
      '\n',
      '<div',
      '<divx',
      ' class="',
      'xclass="',
      'CLASS="',
      'ec-line',
      'EC-LINE',
    ];
    const more = ['"', '>', 'a', '-', 'x', '<', '</div><div class="ec-line">'];
    for (const s of samples([...tokens, ...more], 60_000))
      expect(breakBetweenEcLines(s), JSON.stringify(s)).toBe(s.replace(EC_LINE, '$1\n$2'));
  });

  it('on a real Expressive Code block', () => {
    const html = '<div class="ec-line"><span>a</span></div><div class="ec-line highlight"><span>b</span></div>';
    expect(breakBetweenEcLines(html)).toBe(html.replace('</div><div', '</div>\n<div'));
  });

  it('finishes on long tags and many lines (50,000 repeats), with the same result', () => {
    const n = 50_000;
    const classes = `</div><div${' class="x"'.repeat(n)}>`;
    expect(breakBetweenEcLines(classes)).toBe(classes);
    const opens = '</div><div '.repeat(n);
    expect(breakBetweenEcLines(opens)).toBe(opens);
    const lines = '</div><div class="ec-line">'.repeat(n);
    expect(breakBetweenEcLines(lines)).toBe(lines.replaceAll('</div><div', '</div>\n<div'));
  });
});
