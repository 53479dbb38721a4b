import { describe, expect, it } from 'vitest';
import { clamp, normalizeLibraryKey, normalizeTopic } from '../src/normalize.js';

describe('library key normalization (seed 000)', () => {
  it.each([
    ['vercel/next.js', 'vercel/next.js'],
    ['/vercel/next.js', 'vercel/next.js'],
    ['/vercel/next.js/v16.0.3', 'vercel/next.js'],
    ['https://github.com/vercel/next.js', 'vercel/next.js'],
    ['https://github.com/vercel/next.js.git', 'vercel/next.js'],
    ['"vercel/next.js"', 'vercel/next.js'],
    ["'vercel/next.js'", 'vercel/next.js'],
    ['vercel//next.js', 'vercel/next.js'],
    ['vercel/next.js@v14.3.0', 'vercel/next.js'],
  ])('%s → %s', (input, key) => {
    expect(normalizeLibraryKey(input)).toEqual({ kind: 'key', key });
  });

  it('a bare name is a shorthand to resolve through search', () => {
    expect(normalizeLibraryKey('next.js')).toEqual({ kind: 'shorthand', name: 'next.js' });
    expect(normalizeLibraryKey(' "react" ')).toEqual({ kind: 'shorthand', name: 'react' });
  });
});

describe('topic normalization (seed 000)', () => {
  it.each([
    ['"PPR"', 'PPR'],
    ['<relevant topic>', ''],
    ['app/partial-pre-rendering/index', 'partial pre-rendering'],
    ['partial-pre-rendering', 'partial pre rendering'],
    ['routing', 'routing'],
    ['server actions', 'server actions'],
    ['', ''],
  ])('%s → %s', (input, topic) => {
    expect(normalizeTopic(input)).toBe(topic);
  });
});

describe('page and limit', () => {
  it('are clamped to 1..10', () => {
    expect(clamp(0, 1)).toBe(1);
    expect(clamp(-3, 1)).toBe(1);
    expect(clamp(11, 1)).toBe(10);
    expect(clamp(5, 1)).toBe(5);
    expect(clamp(undefined, 10)).toBe(10);
  });
});
