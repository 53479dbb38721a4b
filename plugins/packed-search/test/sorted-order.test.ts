import { describe, expect, it } from 'vitest';
import { sortedOrder } from '../src/packed-index.js';

/** A deterministic pseudo-random generator (tests must not depend on Math.random). */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const inSortOrder = (strings: string[]) => [...sortedOrder(strings)].map((n) => strings[n]);

describe('sortedOrder (the order of a build’s terms)', () => {
  it('orders strings exactly as sort() does: shared prefixes, prefixes of each other, units above 255, pairs', () => {
    const strings = [
      'validator',
      'validatoraa',
      'validation',
      'valid',
      'va',
      'v',
      '',
      'ÿb',
      'Āa',
      'ā',
      'abÿ',
      'ab\u0101',
      'a\u0000',
      '\ud83d\ude00x',
      '\uffff',
      'z',
      '0',
      '_x',
      'field_validator',
      'field.validator',
    ];
    const random = generator(7);
    const alphabet = 'abcdeéÿĀ_.0z';
    for (let n = 0; n < 3000; n++) {
      // many strings sharing long prefixes, as a corpus' terms and their copy-specific suffixes do
      const base = strings[Math.floor(random() * strings.length)] as string;
      let s = base;
      const extra = Math.floor(random() * 6);
      for (let k = 0; k < extra; k++) s += alphabet[Math.floor(random() * alphabet.length)];
      strings.push(s);
    }
    const distinct = [...new Set(strings)];
    expect(inSortOrder(distinct)).toEqual([...distinct].sort());
    // duplicates too (a build's terms are distinct, but the order must not depend on it)
    expect(inSortOrder(strings)).toEqual([...strings].sort());
  });

  it('handles no string and one string', () => {
    expect([...sortedOrder([])]).toEqual([]);
    expect([...sortedOrder(['only'])]).toEqual([0]);
  });
});
