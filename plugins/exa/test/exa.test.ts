import { type FakeExa, MemoryCacheStore, startFakeExa } from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXA_KEY, type ExaServer, startExaServer, textOf } from './helpers.js';

let exa: FakeExa;
const servers: ExaServer[] = [];
const everythingWritten: string[] = [];

beforeAll(async () => {
  exa = await startFakeExa({ apiKey: EXA_KEY });
});
afterEach(async () => {
  for (const server of servers.splice(0)) {
    everythingWritten.push(...server.written);
    await server.close();
  }
  exa.fault();
  exa.requests.length = 0;
});
afterAll(async () => {
  await exa.close();
});

async function server(options: Parameters<typeof startExaServer>[1] = {}) {
  const started = await startExaServer(exa, options);
  servers.push(started);
  return started;
}

interface SearchOutput {
  results: { title: string; url: string; snippet: string; content?: string; publishedDate?: string; score: number }[];
  searchMetadata: { query: string; totalResults: number; searchTime: number };
}
const searchOf = (result: { structuredContent?: unknown }) => result.structuredContent as SearchOutput;
const lastBody = () => exa.requests.at(-1)?.body as Record<string, unknown>;

describe('web_search (seed 004 §2.2)', () => {
  it('searches with the defaults (5 results, neural, content) and answers the seed output schema plus markdown', async () => {
    const s = await server();
    const result = await s.call('web_search', { query: 'FastAPI dependencies with yield' });
    expect(result.isError).toBeFalsy();
    const request = exa.requests.at(-1);
    expect(request?.path).toBe('/search');
    expect(request?.headers['x-api-key']).toBe(EXA_KEY);
    expect(request?.body).toMatchObject({
      query: 'FastAPI dependencies with yield',
      type: 'neural',
      numResults: 5,
      contents: { text: { maxCharacters: 3000 }, highlights: {} },
    });
    const output = searchOf(result);
    expect(output.results).toHaveLength(5);
    expect(output.results[0]).toMatchObject({
      title: 'Dependencies with yield - FastAPI',
      url: 'https://fastapi.tiangolo.com/tutorial/dependencies/dependencies-with-yield/',
      snippet: 'FastAPI supports dependencies that do some extra steps after finishing.',
      publishedDate: '2026-03-02T00:00:00.000Z',
    });
    expect(output.results[0]?.content).toContain('use yield instead of return');
    expect(output.results[0]?.score).toBeGreaterThan(output.results[4]?.score ?? 1);
    expect(output.searchMetadata).toMatchObject({ query: 'FastAPI dependencies with yield', totalResults: 5 });
    expect(output.searchMetadata.searchTime).toBeGreaterThanOrEqual(0);
    // a page without a title is listed under its URL
    const text = textOf(result);
    expect(text).toMatch(/^## Web results for "FastAPI dependencies with yield" \(5\)/);
    expect(text).toContain(
      '### 1. [Dependencies with yield - FastAPI](https://fastapi.tiangolo.com/tutorial/dependencies/dependencies-with-yield/)',
    );
    expect(text).toContain('published 2026-03-02');
    expect(text).toContain('> FastAPI supports dependencies');
  });

  it('numResults, keyword search, no content and a category reach Exa as its own parameters', async () => {
    const s = await server();
    const result = await s.call('web_search', {
      query: 'Python release',
      numResults: 2,
      searchType: 'keyword',
      includeContent: false,
      category: 'news',
    });
    expect(lastBody()).toMatchObject({ type: 'keyword', numResults: 2, category: 'news' });
    expect((lastBody().contents as Record<string, unknown>).text).toBeUndefined();
    const output = searchOf(result);
    expect(output.results.map((r) => r.url)).toEqual(['https://news.example.org/2026/python-3-14-released']);
    expect(output.results[0]?.content).toBeUndefined();
    expect(textOf(result)).not.toContain('**Content:**');
    await s.call('web_search', { query: 'versioned documentation', category: 'research' });
    expect(lastBody().category).toBe('research paper');
    await s.call('web_search', { query: 'httpx async', category: 'documentation' });
    expect(lastBody().category).toBeUndefined();
  });

  it('refuses bad arguments before any request', async () => {
    const s = await server();
    for (const args of [
      { query: '' },
      { query: 'x', numResults: 0 },
      { query: 'x', searchType: 'semantic' },
      { query: 'x', category: 'images' },
    ]) {
      const result = await s.call('web_search', args);
      expect(JSON.parse(textOf(result)).code).toBe('INVALID_INPUT');
    }
    expect(exa.requests).toHaveLength(0);
  });
});

describe('find_similar_content (seed 004 §2.2)', () => {
  it('answers pages similar to the URL with a similarity score, without the page itself', async () => {
    const s = await server();
    const url = 'https://fastapi.tiangolo.com/tutorial/dependencies/';
    const result = await s.call('find_similar_content', { url, numResults: 3 });
    expect(result.isError).toBeFalsy();
    expect(exa.requests.at(-1)?.path).toBe('/findSimilar');
    expect(lastBody()).toMatchObject({ url, numResults: 3 });
    const output = result.structuredContent as {
      results: { url: string; title: string; similarity: number; snippet: string }[];
    };
    expect(output.results).toHaveLength(3);
    expect(output.results.map((r) => r.url)).not.toContain(url);
    expect(output.results[0]?.url).toBe('https://fastapi.tiangolo.com/tutorial/dependencies/dependencies-with-yield/');
    expect(output.results[0]?.similarity).toBeGreaterThan(0);
    expect(Object.keys(output.results[0] ?? {}).sort()).toEqual(['similarity', 'snippet', 'title', 'url']);
    expect(textOf(result)).toContain(`## Pages similar to ${url} (3)`);
    expect(textOf(result)).toMatch(/1\. \[Dependencies with yield - FastAPI\]\(.+\) — similarity \d\.\d\d/);
    const bad = await s.call('find_similar_content', { url: 'file:///etc/passwd' });
    expect(JSON.parse(textOf(bad)).code).toBe('INVALID_INPUT');
  });
});

describe('keys and upstream failures', () => {
  it('without EXA_API_KEY both tools are listed and answer that the key is not set, without a request', async () => {
    const s = await server({ env: { PRO_CONTEXT_EXA_URL: exa.url } });
    expect((await s.client.listTools()).tools.map((t) => t.name)).toEqual(['web_search', 'find_similar_content']);
    const search = await s.call('web_search', { query: 'x' });
    expect(search.isError).toBe(true);
    expect(textOf(search)).toBe('Error: EXA_API_KEY environment variable not set');
    const similar = await s.call('find_similar_content', { url: 'https://example.com/' });
    expect(textOf(similar)).toBe('Error: EXA_API_KEY environment variable not set');
    expect(exa.requests).toHaveLength(0);
  });

  it('a blank EXA_API_KEY (whitespace only) is a missing key: no request is made with it', async () => {
    const s = await server({ env: { EXA_API_KEY: ' \t ', PRO_CONTEXT_EXA_URL: exa.url } });
    const search = await s.call('web_search', { query: 'x' });
    expect(textOf(search)).toBe('Error: EXA_API_KEY environment variable not set');
    expect(exa.requests).toHaveLength(0);
  });

  it('401 (a key Exa refuses) is EXA_KEY_REJECTED with what Exa said, and is not retried', async () => {
    const s = await server({ env: { EXA_API_KEY: 'exa-wrong-key-000000', PRO_CONTEXT_EXA_URL: exa.url } });
    const payload = JSON.parse(textOf(await s.call('web_search', { query: 'x' })));
    expect(payload).toMatchObject({
      code: 'EXA_KEY_REJECTED',
      message: 'Exa search failed: Invalid API key (HTTP 401: the API key was refused)',
    });
    expect(exa.requests).toHaveLength(1);
  });

  it('429 with Retry-After is waited out and retried; one beyond the cap is RATE_LIMITED with the wait', async () => {
    const s = await server();
    exa.fault({ status: 429, retryAfter: 1, times: 1 });
    const started = Date.now();
    const recovered = await s.call('web_search', { query: 'httpx' });
    expect(recovered.isError).toBeFalsy();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(exa.requests.map((r) => r.status)).toEqual([429, 200]);
    exa.fault({ status: 429, retryAfter: 600 });
    const payload = JSON.parse(textOf(await s.call('web_search', { query: 'limited' })));
    expect(payload).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 600 });
    expect(payload.message).toContain('You have exceeded your rate limit');
  });

  it('5xx is retried (twice by default); a lasting one is SOURCE_UNAVAILABLE; an HTML gateway page is reported as exa-js does', async () => {
    const s = await server();
    exa.fault({ status: 503, times: 2 });
    expect((await s.call('web_search', { query: 'flaky' })).isError).toBeFalsy();
    expect(exa.requests.map((r) => r.status)).toEqual([503, 503, 200]);
    exa.requests.length = 0;
    exa.fault({ status: 502, body: '<html><body>Bad gateway</body></html>' });
    const payload = JSON.parse(textOf(await s.call('web_search', { query: 'down' })));
    expect(payload).toMatchObject({
      code: 'SOURCE_UNAVAILABLE',
      message: 'Exa search failed: Request failed with status 502 (HTTP 502)',
    });
    expect(exa.requests).toHaveLength(3);
  });

  it('a response slower than the timeout ends the call with its own message', async () => {
    const s = await server({
      env: { EXA_API_KEY: EXA_KEY, PRO_CONTEXT_EXA_URL: exa.url },
      config: { exa: { timeoutSeconds: 1 } },
    });
    exa.fault({ delayMs: 2500 });
    const started = Date.now();
    const payload = JSON.parse(
      textOf(await s.call('find_similar_content', { url: 'https://www.python-httpx.org/async/' })),
    );
    expect(payload).toMatchObject({ code: 'SOURCE_UNAVAILABLE', message: 'Exa search failed: no answer within 1 s.' });
    expect(Date.now() - started).toBeLessThan(2400);
  });
});

describe('results cached in the CacheStore', () => {
  it('serves identical calls from the cache, shares one request between concurrent ones, never stores an error', async () => {
    const cache = new MemoryCacheStore();
    const s = await server({ cache });
    const calls = await Promise.all([1, 2, 3].map(() => s.call('web_search', { query: 'httpx async client' })));
    expect(exa.count('/search')).toBe(1);
    expect(new Set(calls.map(textOf)).size).toBe(1);
    await s.call('web_search', { query: 'httpx async client' });
    expect(exa.count('/search')).toBe(1);
    const cachedSpan = s
      .spans()
      .filter((r) => r.span === 'exa.web_search')
      .at(-1);
    expect(cachedSpan).toMatchObject({ cached: true, resultCount: 5, success: true });
    // different arguments are a different search
    await s.call('web_search', { query: 'httpx async client', numResults: 2 });
    expect(exa.count('/search')).toBe(2);
    exa.fault({ status: 400, times: 1 });
    expect((await s.call('find_similar_content', { url: 'https://github.com/encode/httpx' })).isError).toBe(true);
    expect((await s.call('find_similar_content', { url: 'https://github.com/encode/httpx' })).isError).toBeFalsy();
    expect(exa.count('/findSimilar')).toBe(2);
    expect(await cache.keys('exa')).toHaveLength(3);
  });

  it('the TTL is the plugin option cacheMinutes', async () => {
    const cache = new MemoryCacheStore();
    const s = await server({
      cache,
      env: { EXA_API_KEY: EXA_KEY, PRO_CONTEXT_EXA_URL: exa.url },
      config: { exa: { cacheMinutes: 2 } },
    });
    await s.call('web_search', { query: 'ttl' });
    const [key] = await cache.keys('exa');
    const entry = await cache.get('exa', key as string);
    expect((entry?.expiresAt ?? 0) - (entry?.storedAt ?? 0)).toBe(120_000);
  });
});

describe('the key never leaves the request header', () => {
  it('appears nowhere in what any server of this file wrote (logs at debug, MCP messages both ways)', () => {
    expect(everythingWritten.length).toBeGreaterThan(50);
    expect(everythingWritten.filter((l) => l.includes(EXA_KEY) || l.includes('exa-wrong-key'))).toEqual([]);
    expect(everythingWritten.some((l) => l.includes('EXA_KEY_REJECTED'))).toBe(true);
  });
});
