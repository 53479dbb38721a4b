import type { StoredChunk } from '@pro-context/engine';
import { describe, expect, it } from 'vitest';
import { distinctSections, fillBudget, fts5Query, fts5Retriever, miniSearchRetriever } from '../src/lib/baselines.js';
import { synthesize } from '../src/lib/scale.js';

function chunk(id: string, heading: string, body: string, extra: Partial<StoredChunk> = {}): StoredChunk {
  return {
    id,
    url: `http://docs.test/${id.split('#')[0]}`,
    pageTitle: 'Guide',
    headings: ['Guide', heading],
    anchor: heading.toLowerCase().replace(/\s+/g, '-'),
    body: `## ${heading}\n\n${body}`,
    tokens: Math.ceil(`## ${heading}\n\n${body}`.length / 4),
    order: 0,
    ...extra,
  };
}

const chunks = [
  chunk(
    'a#1',
    'Dependencies with yield',
    'Code after yield runs after the response is sent. Close the database session there.',
  ),
  chunk('a#2', 'Path parameters', 'Declare path parameters with the same syntax as Python format strings.'),
  chunk('b#1', 'Background tasks', 'Run work after returning a response with BackgroundTasks.'),
];

describe('FTS5 baseline', () => {
  it('turns any question into a safe OR query, quotes and operators included', () => {
    expect(fts5Query('Depends(scope="function") AND "yield" NEAR -x')).toBe(
      '"depends" OR "scope" OR "function" OR "and" OR "yield" OR "near" OR "x"',
    );
    expect(fts5Query('?!')).toBe('');
  });

  it('ranks the chunk that holds the question terms first (porter stemming: closing → close)', () => {
    const fts = fts5Retriever(chunks);
    try {
      expect(fts.search('closing the database session after yield', 10)[0]).toBe('a#1');
      expect(fts.search('"unbalanced quote', 10)).toEqual([]);
    } finally {
      fts.close();
    }
  });
});

describe('MiniSearch baseline', () => {
  it('finds chunks by prefix and with a typo', () => {
    const mini = miniSearchRetriever(chunks);
    expect(mini.search('backgrond tasks', 10)[0]).toBe('b#1');
    expect(mini.search('param', 10)[0]).toBe('a#2');
  });
});

describe('fillBudget (mirror of the engine rule)', () => {
  it('packs whole chunks in rank order while they fit, each labelled with its section and URL', () => {
    const content = fillBudget(chunks, 5000);
    expect(content.indexOf('Dependencies with yield')).toBeLessThan(content.indexOf('Path parameters'));
    expect(content).toContain('<!-- Guide › Dependencies with yield — http://docs.test/a#dependencies-with-yield -->');
    expect(content.split('\n\n---\n\n')).toHaveLength(3);
  });

  it('cuts the first chunk at a paragraph boundary when even it does not fit', () => {
    const long = chunk(
      'c#1',
      'Long',
      `${'First paragraph words. '.repeat(20)}\n\n${'Second paragraph words. '.repeat(400)}`,
    );
    const content = fillBudget([long], 500);
    expect(Math.ceil(content.length / 4)).toBeLessThanOrEqual(500);
    expect(content).toContain('First paragraph');
    expect(content).toContain('[Section truncated to fit maxTokens.');
  });

  it('lists one search result per url#anchor', () => {
    const twin = chunk('a#1b', 'Dependencies with yield', 'second part', { url: 'http://docs.test/a' });
    expect(distinctSections([chunks[0] as StoredChunk, twin]).map((c) => c.id)).toEqual(['a#1']);
  });
});

describe('synthetic corpus', () => {
  it('copies every chunk with its own id and URL, and new words in each copy', () => {
    const copies = synthesize(chunks, 3);
    expect(copies).toHaveLength(9);
    expect(new Set(copies.map((c) => c.id)).size).toBe(9);
    expect(copies[0]?.body).toBe(chunks[0]?.body);
    expect(copies[3]?.body).not.toBe(chunks[0]?.body);
    expect(copies[3]?.url).toContain('copy=1');
  });
});
