import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stemmer } from '@orama/stemmers/english';
import { describe, expect, it } from 'vitest';
import { porterStem } from '../src/porter.js';

const sharedDir = process.env.PRO_CONTEXT_SHARED_DIR ?? resolve(import.meta.dirname, '../../../../shared');
const corpora = join(sharedDir, 'corpora');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(mdx?|txt|html)$/.test(name) ? [path] : [];
  });
}

/** Lowercased words of the corpora (what the tokenizer stems), with their identifier parts. */
function corpusWords(): string[] {
  if (!existsSync(corpora)) return [];
  const words = new Set<string>();
  for (const file of files(corpora)) {
    for (const word of readFileSync(file, 'utf8')
      .toLowerCase()
      .match(/[\p{L}\p{N}_]+/gu) ?? []) {
      words.add(word);
      for (const part of word.split('_')) if (part) words.add(part);
    }
  }
  return [...words];
}

const SUFFIXES = [
  ...['ational', 'tional', 'enci', 'anci', 'izer', 'bli', 'alli', 'entli', 'eli', 'ousli', 'ization', 'ation'],
  ...['ator', 'alism', 'iveness', 'fulness', 'ousness', 'aliti', 'iviti', 'biliti', 'logi', 'icate', 'ative'],
  ...['alize', 'iciti', 'ical', 'ful', 'ness', 'al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement'],
  ...['ment', 'ent', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize', 'sion', 'tion', 'e', 'll', 'y', 'ies'],
  ...['sses', 's', 'ss', 'ed', 'eed', 'ing', 'at', 'bl', 'iz'],
];

/** Words of random stems and every step's suffixes (a fixed seed: the same words every run). */
function generatedWords(count: number): string[] {
  const letters = 'aeiouyslctdgnmrbzwxkp';
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let word = '';
    for (let k = 1 + next(8); k > 0; k--) word += letters[next(letters.length)];
    if (next(2) === 1) word += SUFFIXES[next(SUFFIXES.length)];
    if (next(3) === 0) word += SUFFIXES[next(SUFFIXES.length)];
    out.push(word);
  }
  return out;
}

describe('porterStem', () => {
  it('stems every word as the stemmer of @orama/stemmers/english does', () => {
    const words = [
      ...corpusWords(),
      ...generatedWords(100_000),
      ...['y', 'yy', 'yes', 'yelled', 'yielding', 'agreed', 'feed', 'hopping', 'adoption', 'caresses', 'ponies'],
      ...['relational', 'conditional', 'electrical', 'controll', 'roll', 'cease', 'naïve', 'straße', 'ÿes', 'x\ny'],
    ];
    expect(words.length).toBeGreaterThan(100_000);
    const differing = words.filter((word) => porterStem(word) !== stemmer(word));
    expect(differing.map((word) => [word, porterStem(word), stemmer(word)])).toEqual([]);
  });

  it('stems as the Porter algorithm does', () => {
    expect(['validators', 'configured', 'running', 'happiness', 'relational', 'adjustment'].map(porterStem)).toEqual([
      'valid',
      'configur',
      'run',
      'happi',
      'relat',
      'adjust',
    ]);
  });
});
