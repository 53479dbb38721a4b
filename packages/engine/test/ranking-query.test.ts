import { estimateTokens } from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { isPointer } from '../src/core/ranking/steer.js';
import { analyzeQuery, comparisonSubjects, rerank, searchText } from '../src/core/ranking.js';
import type { StoredChunk } from '../src/indexing/doc-store.js';

// issue #28: questions as agents write them

function stored(id: string, url: string, headings: string[], body: string): StoredChunk {
  return { id, url, pageTitle: headings[0] ?? '', headings, body, tokens: estimateTokens(body), order: 0 };
}

describe('query analysis', () => {
  it('recognises comparisons and their subjects', () => {
    expect(comparisonSubjects('vite vs webpack dev server speed')).toEqual(['vite', 'webpack dev server speed']);
    expect(comparisonSubjects("difference between FastAPI's HTTPException and Starlette's HTTPException")).toEqual([
      "FastAPI's HTTPException",
      "Starlette's HTTPException",
    ]);
    expect(comparisonSubjects('functional API or graph API, which one should I use')).toEqual([
      'functional API',
      'graph API',
    ]);
    expect(comparisonSubjects('the Client compared to AsyncClient')).toEqual(['Client', 'AsyncClient']);
    // `or` without a choice to make compares nothing
    expect(comparisonSubjects('read a query or path parameter')).toEqual([]);
    expect(analyzeQuery('vs jest, can I just switch?')).toMatchObject({ intent: 'comparison', subjects: ['jest'] });
  });

  it('asks the search backend without the scaffolding: "vs" never reaches it', () => {
    expect(searchText('vite vs webpack dev server speed')).toBe('vite webpack dev server speed');
    expect(searchText('@apply vs. reusable components')).toBe('@apply reusable components');
    expect(searchText('what is the difference between Query and Path')).toBe('Query and Path');
    expect(searchText('tailwind classes not working after build')).toBe('tailwind classes after build');
    // a word that merely starts like the scaffolding stays
    expect(searchText('vscode settings')).toBe('vscode settings');
  });

  it('reads the intent: troubleshooting, how-to, API lookup, concept', () => {
    expect(analyzeQuery('why does my component render twice in development').intent).toBe('troubleshooting');
    expect(analyzeQuery('classes not applying after build').intent).toBe('troubleshooting');
    expect(analyzeQuery('how do I configure proxies').intent).toBe('howto');
    expect(analyzeQuery('useEffect cleanup').intent).toBe('api');
    expect(analyzeQuery('what is a dependency').intent).toBe('concept');
  });

  it('reads "what\'s the way to …" as a how-to and does not search for "way"', () => {
    const asked = "what's the way to make a positional argument optional with a default value";
    expect(analyzeQuery(asked).intent).toBe('howto');
    expect(searchText(asked)).toBe('make a positional argument optional with a default value');
    expect(analyzeQuery('what is the simplest way to retry a request').intent).toBe('howto');
    expect(searchText('what is the simplest way to retry a request')).toBe('retry a request');
    // a question about a way of doing something that is not a how-to keeps its words
    expect(analyzeQuery("what's the event loop").intent).toBe('concept');
  });
});

describe('steering by the question', () => {
  const page = 'https://docs.example.test/';

  it('tells a pointer section (a line linking elsewhere) from a section that answers', () => {
    const pointer = stored(
      'p',
      `${page}proxies`,
      ['Proxies', 'Troubleshooting proxies'],
      '### Troubleshooting proxies\n\nIf you encounter issues when setting up proxies, please refer to our [Troubleshooting guide](../troubleshooting.md#proxies).',
    );
    const answer = stored(
      'a',
      `${page}proxies`,
      ['Proxies', 'HTTP Proxies'],
      '## HTTP Proxies\n\nTo route all traffic to a proxy, pass the proxy URL to the client:\n\n```python\nhttpx.Client(proxy="http://localhost:8030")\n```',
    );
    expect(isPointer(pointer)).toBe(true);
    expect(isPointer(answer)).toBe(false);
    // the backend ranked the pointer first (its words are the question's): it goes below what it points to
    const chunks = new Map([pointer, answer].map((c) => [c.id, c]));
    const out = rerank(
      [
        { chunk: pointer, score: 1, coverage: 1 },
        { chunk: answer, score: 0.8, coverage: 1 },
      ],
      'configure proxies',
      chunks,
      ['configure', 'proxies'],
    );
    expect(out.map((r) => r.chunk.id)).toEqual(['a', 'p']);
  });

  it('ranks a troubleshooting section first for a question about a failure, not for a how-to', () => {
    const usage = stored(
      'u',
      `${page}use-effect`,
      ['useEffect', 'Usage', 'Connecting to an external system'],
      'x '.repeat(50),
    );
    const trouble = stored(
      't',
      `${page}use-effect`,
      ['useEffect', 'Troubleshooting', 'My Effect runs twice when the component mounts'],
      'y '.repeat(50),
    );
    const chunks = new Map([usage, trouble].map((c) => [c.id, c]));
    const list = [
      { chunk: usage, score: 1, coverage: 1 },
      { chunk: trouble, score: 0.9, coverage: 1 },
    ];
    const ids = (q: string) => rerank(list, q, chunks, []).map((r) => r.chunk.id);
    expect(ids('why does my effect run two times on mount')).toEqual(['t', 'u']);
    expect(ids('connect an effect to a chat server')).toEqual(['u', 't']);
  });

  it("gives a comparison the section naming both subjects, not 'VS Code'", () => {
    const vscode = stored('v', `${page}ide`, ['IDE Integrations', 'VS Code'], 'Install the VS Code extension.');
    const jest = stored('j', `${page}comparisons`, ['Comparisons with Other Test Runners', 'Jest'], 'Jest took over.');
    const chunks = new Map([vscode, jest].map((c) => [c.id, c]));
    const out = rerank(
      [
        { chunk: vscode, score: 1, coverage: 1 },
        { chunk: jest, score: 0.8, coverage: 1 },
      ],
      'vs jest, can I just switch?',
      chunks,
      ['jest', 'switch'],
    );
    expect(out[0]?.chunk.id).toBe('j');
  });
});
