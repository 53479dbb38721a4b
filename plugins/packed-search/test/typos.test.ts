import { createCodeTokenizer, TypoVocabulary } from '@pro-context/search-kit';
import { describe, expect, it } from 'vitest';
import { PackedIndex, PackedIndexBuilder } from '../src/packed-index.js';

const words = [
  'validator',
  'validators',
  'valid',
  'background',
  'backend',
  'backwards',
  'serializer',
  'serialize',
  'middleware',
  'origin',
  'origins',
  'orgid',
  'object',
  'objects',
  'camelcase',
  'café',
  'ñandú',
  'naïve',
  'response',
  'responses',
  'pydantic',
];

/** Every word one substitution, insertion, deletion or swap of neighbours away from `word`, at every position. */
function oneEditAway(word: string): string[] {
  const out = new Set<string>();
  for (let i = 0; i <= word.length; i++) {
    out.add(`${word.slice(0, i)}x${word.slice(i)}`);
    if (i < word.length) {
      out.add(`${word.slice(0, i)}${word.slice(i + 1)}`);
      out.add(`${word.slice(0, i)}q${word.slice(i + 1)}`);
    }
    if (i + 1 < word.length) out.add(`${word.slice(0, i)}${word[i + 1]}${word[i]}${word.slice(i + 2)}`);
  }
  return [...out];
}

describe('packed-search typo matching', () => {
  it('finds exactly the words the typo vocabulary finds, for an edit at any position', () => {
    const tokenizer = createCodeTokenizer('english');
    const builder = new PackedIndexBuilder();
    const vocabulary = new TypoVocabulary();
    words.forEach((word, i) => {
      builder.add({ id: `c${i}`, title: '', section: '', headings: '', body: word });
      // as the builder notes them: the written form as the tokenizer normalizes it (`café` is `cafe`)
      for (const { surface, term } of tokenizer.analyzeWord(word)) vocabulary.add(surface, term);
    });
    const index = new PackedIndex(builder.finish(), tokenizer);
    const search = index as unknown as {
      typoCandidates(surface: string, maxDistance: number, limit: number): { term: string; distance: number }[];
    };
    let found = 0;
    for (const word of words) {
      for (const typo of oneEditAway(word)) {
        for (const maxDistance of [1, 2]) {
          const expected = vocabulary
            .candidates(typo, maxDistance, 10)
            .map((c) => ({ term: c.term, distance: c.distance }));
          expect(search.typoCandidates(typo, maxDistance, 10), `${typo} (${maxDistance})`).toEqual(expected);
          found += expected.length;
        }
      }
    }
    expect(found).toBeGreaterThan(1000);
  });
});
