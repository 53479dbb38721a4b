import { estimateTokens } from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import type { StoredChunk } from '../src/core/doc-store.js';
import {
  confidenceOf,
  fillBudget,
  queryTerms,
  type RankedChunk,
  termCoverage,
  withoutLibraryName,
  withSectionParts,
} from '../src/core/ranking.js';

const page = 'https://docs.example.test/deployment/workers/';

function stored(id: string, headings: string[], body: string, order: number, url = page): StoredChunk {
  return { id, url, pageTitle: headings[0] ?? '', headings, body, tokens: estimateTokens(body), order };
}

const ranked = (chunk: StoredChunk, score: number): RankedChunk => ({ chunk, score, coverage: 1 });

describe('withoutLibraryName', () => {
  const names = ['FastAPI', 'fastapi'];

  it('drops the library name as a word of its own, possessive included', () => {
    expect(withoutLibraryName('How do I run FastAPI with several workers?', names)).toBe(
      'How do I run with several workers?',
    );
    expect(withoutLibraryName("FastAPI's dependency injection", names)).toBe('dependency injection');
    expect(withoutLibraryName('what is dependency injection in fastapi', names)).toBe(
      'what is dependency injection in',
    );
  });

  it('keeps it inside identifiers, paths and package names', () => {
    expect(withoutLibraryName('fastapi.Depends vs Depends', names)).toBe('fastapi.Depends vs Depends');
    expect(withoutLibraryName('install fastapi-cli', names)).toBe('install fastapi-cli');
    expect(withoutLibraryName('from fastapi_users import x', names)).toBe('from fastapi_users import x');
    expect(withoutLibraryName('pydantic-settings BaseSettings', ['Pydantic'])).toBe('pydantic-settings BaseSettings');
  });

  it('keeps a query that is nothing but the name', () => {
    expect(withoutLibraryName('FastAPI', names)).toBe('FastAPI');
    expect(withoutLibraryName('fastapi?', names)).toBe('fastapi?');
  });

  it('matches a name of several words as a phrase', () => {
    expect(withoutLibraryName('streaming with the Vercel AI SDK', ['Vercel AI SDK'])).toBe('streaming with the');
    expect(withoutLibraryName('the AI of Vercel', ['Vercel AI SDK'])).toBe('the AI of Vercel');
  });
});

describe('withSectionParts', () => {
  // A section cut in three: the sentence that explains, a long console session, and a closing note.
  const intro = stored(
    'intro',
    ['Server Workers', 'Multiple Workers'],
    '## Multiple Workers\n\nStart several workers with `--workers`:',
    0,
  );
  const session = stored(
    'session',
    ['Server Workers', 'Multiple Workers'],
    `## Multiple Workers\n\n\`\`\`console\n${'INFO started\n'.repeat(40)}\`\`\``,
    1,
  );
  const note = stored(
    'note',
    ['Server Workers', 'Multiple Workers'],
    '## Multiple Workers\n\nEach worker is a process.',
    2,
  );
  const other = stored('other', ['Server Workers', 'Containers'], '## Containers\n\nOne process per container.', 3);
  const elsewhere = stored(
    'elsewhere',
    ['Deployment', 'Multiple Workers'],
    '## Multiple Workers\n\nElsewhere.',
    0,
    'https://docs.example.test/other/',
  );
  const chunks = new Map([intro, session, note, other, elsewhere].map((c) => [c.id, c]));

  it('brings the other parts of a ranked section right after it', () => {
    const out = withSectionParts([ranked(session, 1), ranked(other, 0.5)], chunks, ['workers']);
    expect(out.map((r) => r.chunk.id)).toEqual(['session', 'intro', 'note', 'other']);
    expect(out[1]!.score).toBeLessThan(1);
    expect(out[1]!.score).toBeGreaterThan(0.5);
  });

  it('does not lower a part that ranked better on its own, nor add sections of other pages', () => {
    const out = withSectionParts([ranked(note, 1), ranked(session, 0.99)], chunks, ['workers']);
    expect(out.map((r) => r.chunk.id)).toEqual(['note', 'session', 'intro']);
    expect(out[1]!.score).toBe(0.99);
  });
});

describe('fillBudget', () => {
  const code = `\`\`\`python\n${'x = compute()\n'.repeat(60)}\`\`\``;
  const first = stored('first', ['Security', 'Hash the passwords'], `## Hash the passwords\n\n${code}`, 0);
  const copy = stored('copy', ['Security', 'Handle JWT tokens'], `## Handle JWT tokens\n\n${code}`, 1);
  const prose = stored('prose', ['Security', 'Verify'], '## Verify\n\nCreate a PasswordHash instance.', 2);

  it('skips a chunk repeating text already given (the same example under another heading)', () => {
    const { content, used } = fillBudget([ranked(first, 1), ranked(copy, 0.9), ranked(prose, 0.8)], 5000);
    expect(used.map((u) => u.chunk.id)).toEqual(['first', 'prose']);
    expect(content).toContain('Create a PasswordHash instance.');
    expect(content).not.toContain('Handle JWT tokens');
  });

  it('stays within the budget, truncating only a first chunk that does not fit', () => {
    const { content, used } = fillBudget([ranked(first, 1), ranked(prose, 0.8)], 100);
    expect(used.map((u) => u.chunk.id)).toEqual(['first']);
    expect(estimateTokens(content)).toBeLessThanOrEqual(100);
    expect(content).toContain('Section truncated');
  });
});

describe('confidenceOf', () => {
  const validators = stored(
    'v',
    ['Validators', 'Field validators'],
    '## Field validators\n\nA field validator checks one field.',
    0,
  );
  const best = (terms: string[]): RankedChunk => ({
    chunk: validators,
    score: 1,
    coverage: termCoverage(terms, `${validators.headings.join(' ')} ${validators.body}`),
  });

  it('is high when the best chunk holds the query words, in its headings too', () => {
    const terms = queryTerms('field validator');
    expect(confidenceOf(best(terms), terms)).toBe(1);
  });

  it('counts a word one typo or one spelling away, as the search backend does', () => {
    const terms = queryTerms('feild valdiator');
    expect(best(terms).coverage).toBe(0);
    expect(confidenceOf(best(terms), terms)).toBeGreaterThan(0.5);
  });

  it('is low when the best chunk holds few of the query words', () => {
    const terms = queryTerms('field serializer context pagination');
    expect(confidenceOf(best(terms), terms)).toBeLessThan(0.5);
  });
});
