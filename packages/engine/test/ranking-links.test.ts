import { estimateTokens } from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { pageResolver, sentenceAround } from '../src/core/ranking/cited.js';
import { type RankedChunk, rerank } from '../src/core/ranking.js';
import type { StoredChunk } from '../src/indexing/doc-store.js';

// issue #28: what the docs' own links say about the answer, and which part of a page a question wants

const site = 'https://react.example.test';

function stored(id: string, url: string, headings: string[], body: string, order = 0): StoredChunk {
  return { id, url, pageTitle: headings[0] ?? '', headings, body, tokens: estimateTokens(body), order };
}

const code = '\n\n```js\nfunction TodoList({ todos }) {\n  return todos.map((t) => t.title);\n}\n```\n';

const ids = (list: RankedChunk[]) => list.map((r) => r.chunk.id);

describe('pages the best sections link to', () => {
  const pages = ['useMemo', 'useState', 'useReducer', 'useEffect', 'StrictMode', 'Component'].map((name) => ({
    url: `${site}/reference/react/${name}`,
  }));
  const resolve = pageResolver(pages);

  it('resolves site-absolute and relative links to the library pages, and nothing else', () => {
    expect(resolve('/reference/react/StrictMode', `${site}/reference/react/useMemo`)).toBe(
      `${site}/reference/react/StrictMode`,
    );
    expect(resolve('./useState.md#usage', `${site}/reference/react/useMemo`)).toBe(`${site}/reference/react/useState`);
    expect(resolve('https://elsewhere.test/reference/react/StrictMode', `${site}/a`)).toBeUndefined();
    expect(resolve('#usage', `${site}/reference/react/useMemo`)).toBeUndefined();
    expect(resolve('mailto:someone@example.test', `${site}/a`)).toBeUndefined();
  });

  it('puts first the page that several of the best sections link to (they all say "in Strict Mode")', () => {
    const citing = ['useMemo', 'useState', 'useReducer', 'useEffect'].map((name) =>
      stored(
        name,
        `${site}/reference/react/${name}#runs-twice`,
        [name, 'Caveats'],
        `In [Strict Mode](/reference/react/StrictMode), React will call your ${name} functions twice.${code}`,
      ),
    );
    const strict = stored(
      'strict',
      `${site}/reference/react/StrictMode#double-rendering`,
      ['StrictMode', 'Usage', 'Fixing bugs found by double rendering in development'],
      `React calls some of your functions twice in development to find impure components.${code}`,
    );
    const all = [...citing, strict];
    const chunks = new Map(all.map((c) => [c.id, c]));
    const list = all.map((chunk, i) => ({ chunk, score: 1 - i * 0.01, coverage: 1 }));
    // four of the best pages link to StrictMode: its section goes first
    expect(ids(rerank(list, 'component functions called two times', chunks, [], resolve))[0]).toBe('strict');
    // without the library's pages to resolve links against, the backend's order stands
    expect(ids(rerank(list, 'component functions called two times', chunks, []))[0]).toBe('useMemo');
    // three pages linking are not enough
    const fewer = list.filter((item) => item.chunk.id !== 'useEffect');
    expect(ids(rerank(fewer, 'component functions called two times', chunks, [], resolve))[0]).toBe('useMemo');
  });
});

describe('a sentence that points to the answer', () => {
  const vitest = 'https://vitest.example.test';
  const resolve = pageResolver([{ url: `${vitest}/api/mock` }, { url: `${vitest}/config/clearmocks` }]);
  const mockClear = stored(
    'mockClear',
    `${vitest}/api/mock#mockclear`,
    ['Mocks', 'mockClear'],
    `Clears all information about every call. To automatically call this method before each test, enable the [\`clearMocks\`](/config/clearmocks) setting in the configuration.${code}`,
  );
  const other = stored('other', `${vitest}/api/mock#mockreset`, ['Mocks', 'mockReset'], `Resets the mock.${code}`);
  const option = stored(
    'clearMocks',
    `${vitest}/config/clearmocks`,
    ['clearMocks'],
    'Should Vitest automatically call `vi.clearAllMocks()` before each test. This will clear mock history.',
  );
  const chunks = new Map([mockClear, other, option].map((c) => [c.id, c]));
  const list = [
    { chunk: mockClear, score: 1, coverage: 1 },
    { chunk: other, score: 0.9, coverage: 1 },
    { chunk: option, score: 0.5, coverage: 1 },
  ];

  it('raises the page a sentence naming most of the question links to, just below that sentence', () => {
    const terms = ['forget', 'recorded', 'calls', 'mock', 'before', 'each', 'test', 'automatically'];
    const out = rerank(
      list,
      'forget recorded calls of every mock before each test automatically',
      chunks,
      terms,
      resolve,
    );
    expect(ids(out)).toEqual(['mockClear', 'clearMocks', 'other']);
  });

  it('leaves it where it was when the sentence names little of the question', () => {
    const terms = ['spy', 'on', 'getter', 'property', 'object'];
    const out = rerank(list, 'spy on a getter property of an object', chunks, terms, resolve);
    expect(ids(out)).toEqual(['mockClear', 'other', 'clearMocks']);
  });

  it('reads the sentence around a link, not the whole line, and only a window of a hostile line', () => {
    const body =
      'First sentence about nothing. To clear mocks, enable [`clearMocks`](/config/clearmocks) here. Last one.';
    expect(sentenceAround(body, body.indexOf('](/config'))).toBe(' to clear mocks, enable [`clearmocks`] here.');
    const hostile = `${'](x'.repeat(200_000)}`;
    const around = sentenceAround(hostile, 300_000);
    expect(around.length).toBeLessThanOrEqual(600);
  });
});

describe('which part of a page a how-to question wants', () => {
  const httpx = 'https://httpx.example.test/advanced/proxies';

  it('gives a question naming a page its beginning first, a question about one of its parts that part', () => {
    const socks = stored(
      'socks',
      `${httpx}#socks`,
      ['Proxies', 'SOCKS'],
      'Use SOCKS proxies with the socksio package.',
      3,
    );
    const http = stored(
      'http',
      `${httpx}#http-proxies`,
      ['Proxies', 'HTTP Proxies'],
      `To route all traffic to a proxy, pass the proxy URL to the client.${code}`,
      1,
    );
    const chunks = new Map([socks, http].map((c) => [c.id, c]));
    const list = [
      { chunk: socks, score: 1, coverage: 1 },
      { chunk: http, score: 0.8, coverage: 1 },
    ];
    expect(ids(rerank(list, 'how do I configure proxies', chunks, ['configure', 'proxies']))).toEqual([
      'http',
      'socks',
    ]);
    // two words beyond the page's title: a question about one part of it
    const terms = ['route', 'through', 'socks', 'proxies'];
    expect(ids(rerank(list, 'how do I route through socks proxies', chunks, terms))).toEqual(['socks', 'http']);
  });

  it('ranks the page that shows how above the overview of the same ideas', () => {
    const concepts = stored(
      'concepts',
      'https://fastapi.example.test/deployment/concepts#workers',
      ['Deployments Concepts', 'Replication - Processes and Memory', 'Multiple Processes - Workers'],
      'x '.repeat(60),
    );
    const workers = stored(
      'workers',
      'https://fastapi.example.test/deployment/server-workers#multiple-workers',
      ['Server Workers - Uvicorn with Workers', 'Multiple Workers'],
      'y '.repeat(60),
    );
    const chunks = new Map([concepts, workers].map((c) => [c.id, c]));
    const list = [
      { chunk: concepts, score: 1, coverage: 1 },
      { chunk: workers, score: 0.98, coverage: 1 },
    ];
    expect(ids(rerank(list, 'how to run several worker processes', chunks, []))).toEqual(['workers', 'concepts']);
    expect(ids(rerank(list, 'what are worker processes', chunks, []))).toEqual(['concepts', 'workers']);
  });
});
