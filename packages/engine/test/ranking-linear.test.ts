import { describe, expect, it } from 'vitest';
import {
  continuedHeading,
  headingIdentifier,
  headingText,
  queryTerms,
  withoutAttributesAndComments,
  withoutCallOrTypeArguments,
  withoutSectionSuffix,
} from '../src/core/ranking.js';
import { normalizeQuery, trimToken } from '../src/libraries/catalog.js';

// issue #25: ranking's heading regexes were super-linear on fetched text (a chunk's lines and headings). Each rewrite
// must give exactly what the regex gave: compared here on generated strings over the characters that matter, and on
// the pathological inputs that took seconds before (50,000 repeats).
const old = {
  headingText: (line: string) => /^ {0,3}#{1,6}[ \t]+(.*?)[ \t]*$/.exec(line)?.[1],
  continuedHeading: (body: string) => body.replace(/^(#{1,6}[ \t].*?)[ \t]*$/m, '$1 (continued)'),
  attributes: (t: string) => t.replace(/\{#[^}]*\}|\{\/\*.*?\*\/\}/g, ''),
  section: (t: string) => t.replace(/\s+\|\s+.*$/, ''),
  call: (t: string) => t.replace(/(?:\s*\(|(?<=\S)<).*$/, ''),
  edges: (t: string) => t.replace(/^[._@$-]+|[._@$-]+$/g, ''),
};

/** Deterministic strings over `alphabet` (a small LCG: the same cases on every run). */
function* cases(alphabet: string[], count: number, maxLength: number): Generator<string> {
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

const chars = ['#', ' ', '\t', '\n', '\r', '\u2028', 'a', 'x', '{', '}', '/', '*', '|', '(', '<', '.', '-', '@', '$'];

describe('linear heading parsing in ranking gives what the regexes gave (issue #25)', () => {
  it('agrees with the old patterns on 20,000 generated strings', () => {
    for (const s of cases(chars, 20_000, 14)) {
      expect(headingText(s), JSON.stringify(s)).toBe(old.headingText(s));
      expect(continuedHeading(s), JSON.stringify(s)).toBe(old.continuedHeading(s));
      expect(withoutAttributesAndComments(s), JSON.stringify(s)).toBe(old.attributes(s));
      expect(withoutSectionSuffix(s), JSON.stringify(s)).toBe(old.section(s));
      expect(withoutCallOrTypeArguments(s), JSON.stringify(s)).toBe(old.call(s));
    }
  });

  it('agrees on headings as the chunker writes them', () => {
    for (const h of [
      'useState(initialState)',
      'Array<T>',
      'new Client(options) {#client}',
      'Routing {/* internal */} | Next.js',
      'class `Pydantic` | Docs',
      '@app.get(path)',
    ]) {
      expect(withoutAttributesAndComments(h)).toBe(old.attributes(h));
      expect(withoutSectionSuffix(h)).toBe(old.section(h));
      expect(withoutCallOrTypeArguments(h)).toBe(old.call(h));
    }
    expect(headingIdentifier('new Client(options) {#client}')).toBe('client');
    expect(headingIdentifier('`useState<T>` | React')).toBe('usestate');
  });

  it('completes on 50,000 repeats of each opener with the same result as before', () => {
    const n = 50_000;
    const line = `# ${' '.repeat(n)}x${' \t'.repeat(n)}!`;
    expect(headingText(line)).toBe(`x${' \t'.repeat(n)}!`);
    expect(headingText(`##${'\t'.repeat(n)}\u0000`)).toBe('\u0000');
    const body = `## a${' '.repeat(n)}\u0000\ntext`;
    expect(continuedHeading(body)).toBe(`## a${' '.repeat(n)}\u0000 (continued)\ntext`);
    expect(withoutAttributesAndComments('{#'.repeat(n))).toBe('{#'.repeat(n));
    expect(withoutAttributesAndComments('{/*'.repeat(n))).toBe('{/*'.repeat(n));
    expect(withoutAttributesAndComments(`${'{/*'.repeat(n)}\n*/}`)).toBe(`${'{/*'.repeat(n)}\n*/}`);
    expect(withoutSectionSuffix(`${' '.repeat(n)}|\n\nx\n`)).toBe(`${' '.repeat(n)}|\n\nx\n`);
    expect(withoutSectionSuffix(`a${' | '.repeat(n)}\n`)).toBe(`a${' | '.repeat(n - 1).trimEnd()}`);
    expect(withoutCallOrTypeArguments(`${' '.repeat(n)}x`)).toBe(`${' '.repeat(n)}x`);
    expect(withoutCallOrTypeArguments(`a${'('.repeat(n)}\n`)).toBe(`a${'('.repeat(n)}\n`);
    expect(queryTerms(`x${'.'.repeat(n)}a`)).toEqual([`x${'.'.repeat(n)}a`]);
  });

  it("strips a query term's edge punctuation as before", () => {
    for (const s of cases(['.', '_', '@', '$', '-', 'a', 'B'], 5_000, 10)) {
      const term = old.edges(s).toLowerCase();
      if (term.length > 1) expect(queryTerms(s)[0], JSON.stringify(s)).toBe(term);
    }
  });
});

describe('linear query-token trimming in the catalog gives what the regex gave (issue #25)', () => {
  const oldTrim = (t: string) => t.replace(/^[^a-z0-9@]+|[^a-z0-9]+$/g, '');
  it('agrees with the old pattern on 20,000 generated words and on 50,000 repeats', () => {
    for (const s of cases(['@', '-', '.', 'a', '9', 'Z', '^', '~', ' '], 20_000, 10))
      expect(trimToken(s), JSON.stringify(s)).toBe(oldTrim(s));
    expect(trimToken(`-@a${'-'.repeat(50_000)}x${'.'.repeat(50_000)}`)).toBe(`@a${'-'.repeat(50_000)}x`);
    expect(normalizeQuery(`zod${'@ '.repeat(25_000)}x`)).toBe(normalizeQuery('zod@ x'));
  });

  it('spaces version operators off a name as before (zod@ ^3, pydantic==2)', () => {
    const operator = /(?<=[a-z0-9_\])-])\s*(?:@\s*[\^~]?|={1,3}|>=|~=|~>|\^|~)\s*(?=v?\d)/gi;
    for (const q of ['zod@3', 'zod@ ^3.22', 'zod @  ~ 3', 'pydantic==2.5', 'typer~=0.15', 'zod^3', 'x@ @3', 'a@\t^v2'])
      expect(normalizeQuery(q), q).toBe(normalizeQuery(q.replace(operator, ' ')));
  });
});
