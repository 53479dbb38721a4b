import { describe, expect, it } from 'vitest';
import { NonProseScanner, replaceSpans } from '../src/non-prose.js';

// issue #25: link targets, bare URLs and attribute lists were removed by one regex retried from every opener of a
// long run (`](](…`, `{#{#…`): quadratic on a chunk. The scan must remove exactly what the regex removed.
const LINK_TARGET = /\]\([^)\s]*(?:\s+"[^"]*")?\)/g;
const ATTRIBUTE_LIST = /\{\s*[#.][^}\n]*\}/g;
const before = (text: string) => text.replace(ATTRIBUTE_LIST, ' ').replace(LINK_TARGET, ']');
const withoutNonProse = (text: string): string => {
  const attributes = new NonProseScanner(text);
  const once = replaceSpans(text, /\{/g, (i) => attributes.attributeListEnd(i), ' ');
  const links = new NonProseScanner(once);
  return replaceSpans(once, /\]\(/g, (i) => links.linkTargetEnd(i), ']');
};

function* strings(alphabet: string[], count: number, maxLength: number): Generator<string> {
  let seed = 25;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let i = 0; i < count; i++) {
    let s = '';
    const length = rand(maxLength + 1);
    for (let j = 0; j < length; j++) s += alphabet[rand(alphabet.length)];
    yield s;
  }
}

const alphabet = [']', '(', ')', ' ', '"', '{', '}', '#', '.', '\n', 'a', '](', 'http://', 'https://', 'x"', ') '];

describe('the tokenizer link-target and attribute-list scans remove what their regexes removed, in linear time (issue #25)', () => {
  it('agrees on 20,000 generated texts', () => {
    for (const s of strings(alphabet, 20_000, 12)) expect(withoutNonProse(s), JSON.stringify(s)).toBe(before(s));
  });

  it('agrees on real markdown', () => {
    const md = '## Title { #anchor .c }\nSee [the guide](https://x.dev/a "Guide") and https://y.dev/b, [x](y).';
    expect(withoutNonProse(md)).toBe(before(md));
  });

  it('completes on 50,000 repeats of each opener with the same result as before', () => {
    const n = 50_000;
    expect(withoutNonProse('](x'.repeat(n))).toBe('](x'.repeat(n));
    expect(withoutNonProse(`${'](x '.repeat(n)}"`)).toBe(`${'](x '.repeat(n)}"`);
    expect(withoutNonProse(`](a${' '.repeat(n)}"t")`)).toBe(']');
    expect(withoutNonProse('{#'.repeat(n))).toBe('{#'.repeat(n));
    expect(withoutNonProse(`${'{#'.repeat(n)}}`)).toBe(' ');
  });
});
